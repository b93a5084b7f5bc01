import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { posix } from 'node:path';
import type { Store } from '@ca/store';
import type { DiscoveredFile } from './discovery.js';

/** One semantic-context file that was added, changed or removed since the previous index. */
export interface ContextChange {
  readonly path: string;
  readonly change: 'added' | 'changed' | 'removed';
  /** Source files whose semantic pass runs again because of it. */
  readonly files: number;
}

interface Recorded {
  readonly size: number;
  readonly mtimeMs: number;
  readonly hash: string;
}

const METADATA_KEY = 'semantic_context';

/**
 * Compares the repository's semantic-context files (discovery's `contextFiles`) with those
 * recorded by the previous index and marks the source files they shape `pending`, so the
 * semantic passes of this `index()` analyse them again (INVALIDATION.md, second class). The
 * first index only records them: every file is pending then anyway. Contents are hashed only
 * when size or mtime moved; an unreadable file hashes as its error, so it counts as changed.
 */
export function applyContextChanges(store: Store, label: string, current: readonly DiscoveredFile[]): ContextChange[] {
  const raw = store.reader(label).metadata(METADATA_KEY);
  let previous: Record<string, Recorded> | null = null;
  try {
    previous = raw === null ? null : (JSON.parse(raw) as Record<string, Recorded>);
  } catch {
    previous = null;
  }
  const next: Record<string, Recorded> = {};
  const changed: { path: string; change: ContextChange['change'] }[] = [];
  for (const f of current) {
    const old = previous?.[f.path];
    const hash = old && old.size === f.size && old.mtimeMs === f.mtimeMs ? old.hash : hashOf(f.absPath);
    next[f.path] = { size: f.size, mtimeMs: f.mtimeMs, hash };
    if (previous !== null && (!old || old.hash !== hash)) changed.push({ path: f.path, change: old ? 'changed' : 'added' });
  }
  for (const path of Object.keys(previous ?? {})) if (!(path in next)) changed.push({ path, change: 'removed' });

  const out: ContextChange[] = [];
  store.db.transaction(() => {
    if (changed.length > 0) {
      const files = store.db
        .prepare(
          `SELECT f.id, f.path, f.language, f.project FROM files f JOIN label_files lf ON lf.file_id = f.id JOIN labels l ON l.id = lf.label_id AND l.name = ?
           WHERE f.language IN ('ts','js','cs') AND f.parse_status IN ('ok','partial')`,
        )
        .all(label) as ScopeFile[];
      const extendsGraph = tsconfigExtends(current);
      const mark = store.db.prepare(`UPDATE files SET semantic_state = 'pending', semantic_reason = ? WHERE id = ?`);
      for (const c of changed) {
        const scope = scopeOf(c.path, files, extendsGraph);
        const reason = `semantic context ${c.change}: ${c.path}`;
        for (const f of scope) mark.run(reason, f.id);
        store.writer.recordEvent('semantic_context_changed', c.path, `${reason}; ${scope.length} files to re-analyse`);
        out.push({ path: c.path, change: c.change, files: scope.length });
      }
    }
    store.writer.setMetadata(METADATA_KEY, JSON.stringify(next));
  })();
  return out;
}

interface ScopeFile {
  readonly id: number;
  readonly path: string;
  readonly language: string;
  readonly project: string;
}

function hashOf(absPath: string): string {
  try {
    return createHash('sha1').update(readFileSync(absPath)).digest('hex');
  } catch (e) {
    return `unreadable: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`;
  }
}

const C_SHARP_WIDE = /(^|\/)(directory\.build\.(props|targets)|directory\.packages\.props|global\.json|nuget\.config|packages\.lock\.json)$/i;

/** The source files a context file shapes. */
function scopeOf(path: string, files: readonly ScopeFile[], extendsGraph: ReadonlyMap<string, readonly string[]>): ScopeFile[] {
  const lower = path.toLowerCase();
  const under = (dir: string) => (p: string) => dir === '' || p.startsWith(`${dir}/`);
  if (lower.endsWith('.csproj')) return files.filter((f) => f.language === 'cs' && f.project === path);
  if (/\.(sln|slnx)$/.test(lower)) return files.filter((f) => f.language === 'cs');
  if (C_SHARP_WIDE.test(lower)) {
    const inDir = under(dirOf(path));
    return files.filter((f) => f.language === 'cs' && inDir(f.path));
  }
  // TS/JS: the directory of the config, lockfile or workspace file, plus the directories of
  // the tsconfigs that extend a changed one (transitively).
  const dirs = new Set([dirOf(path)]);
  const todo = [path];
  while (todo.length > 0) {
    for (const child of extendsGraph.get(todo.pop()!) ?? []) {
      if (dirs.has(dirOf(child)) && child !== path) continue;
      dirs.add(dirOf(child));
      todo.push(child);
    }
  }
  const tests = [...dirs].map(under);
  return files.filter((f) => f.language !== 'cs' && tests.some((t) => t(f.path)));
}

function dirOf(path: string): string {
  const d = posix.dirname(path);
  return d === '.' ? '' : d;
}

/**
 * Parent tsconfig path → the tsconfigs whose `extends` names it (relative paths only: a
 * package name resolves into node_modules, which is not tracked). Configs are read as JSON with
 * comments and trailing commas; one that cannot be read extends nothing.
 */
function tsconfigExtends(contextFiles: readonly DiscoveredFile[]): Map<string, string[]> {
  const known = new Set(contextFiles.map((f) => f.path));
  const children = new Map<string, string[]>();
  for (const f of contextFiles) {
    const name = posix.basename(f.path).toLowerCase();
    if (!/^(tsconfig(\..*)?|jsconfig)\.json$/.test(name)) continue;
    let parents: unknown;
    try {
      parents = (parseJsonc(readFileSync(f.absPath, 'utf8')) as { extends?: unknown } | null)?.extends;
    } catch {
      continue;
    }
    for (const p of Array.isArray(parents) ? parents : [parents]) {
      if (typeof p !== 'string' || !/^\.\.?\//.test(p)) continue;
      const joined = posix.normalize(posix.join(dirOf(f.path), p));
      const target = [joined, `${joined}.json`, `${joined}/tsconfig.json`].find((c) => known.has(c));
      if (target === undefined) continue;
      const list = children.get(target) ?? [];
      list.push(f.path);
      children.set(target, list);
    }
  }
  return children;
}

/** JSON with `//` and `/* *\/` comments and trailing commas (tsconfig's dialect); strings are left intact. */
export function parseJsonc(text: string): unknown {
  // Pass 1 drops comments, pass 2 drops commas before a closing bracket; both skip strings.
  const scan = (src: string, onChar: (src: string, i: number) => { emit: string; next: number }): string => {
    let out = '';
    for (let i = 0; i < src.length; ) {
      if (src[i] === '"') {
        let j = i + 1;
        while (j < src.length && src[j] !== '"') j += src[j] === '\\' ? 2 : 1;
        out += src.slice(i, j + 1);
        i = j + 1;
        continue;
      }
      const { emit, next } = onChar(src, i);
      out += emit;
      i = next;
    }
    return out;
  };
  const noComments = scan(text, (src, i) => {
    if (src.startsWith('//', i)) {
      const end = src.indexOf('\n', i);
      return { emit: '\n', next: end < 0 ? src.length : end + 1 };
    }
    if (src.startsWith('/*', i)) {
      const end = src.indexOf('*/', i + 2);
      return { emit: ' ', next: end < 0 ? src.length : end + 2 };
    }
    return { emit: src[i]!, next: i + 1 };
  });
  const noTrailingCommas = scan(noComments, (src, i) => ({
    emit: src[i] === ',' && /^\s*[}\]]/.test(src.slice(i + 1, i + 200)) ? '' : src[i]!,
    next: i + 1,
  }));
  return JSON.parse(noTrailingCommas);
}
