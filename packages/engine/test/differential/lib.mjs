// Differential testing of incremental indexing (decision 022): a seeded generator of change
// sequences drawn from a repository's own content, and a comparator of an incremental index
// with a clean index of the same tree (canonical store dump + navigation answers). Used by the
// bounded vitest run (../differential.test.ts) and the long run
// (tools/bench/differential.mjs). Plain ESM so that both can load it; types in lib.d.mts.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, extname, join, posix } from 'node:path';

/** A small seeded PRNG (mulberry32): the same seed gives the same change sequence. */
export function prng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n) => Math.floor(next() * n),
    pick: (xs) => (xs.length === 0 ? undefined : xs[Math.floor(next() * xs.length)]),
  };
}

const GIT_ID = ['-c', 'user.name=ca-differential', '-c', 'user.email=differential@ca.local', '-c', 'commit.gpgsign=false'];
// Fixed dates: the generated commits (and a branch switch's target) have the same ids in every replay.
const GIT_ENV = { ...process.env, GIT_AUTHOR_DATE: '2000-01-01T00:00:00Z', GIT_COMMITTER_DATE: '2000-01-01T00:00:00Z' };
const git = (dir, ...args) => execFileSync('git', ['-C', dir, ...GIT_ID, ...args], { encoding: 'utf8', env: GIT_ENV, maxBuffer: 1 << 26, stdio: ['ignore', 'pipe', 'pipe'] }).trim();
const TS_SOURCE = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;
const CS_SOURCE = /\.cs$/;
const WORD = /^[A-Za-z_$][\w$]*$/;
const CALLABLE = new Set(['function', 'method']);
const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A copy of `source` (without .git, .codeagent, node_modules) as a fresh git repository with one commit. */
export function workspaceOf(source) {
  const repo = join(mkdtempSync(join(tmpdir(), 'ca-differential-')), 'repo');
  const skip = new Set(['.git', '.codeagent', 'node_modules']);
  cpSync(source, repo, { recursive: true, filter: (p) => !skip.has(basename(p)) });
  git(repo, 'init', '-q');
  // The index lives in the tree (`.codeagent/`); it is never part of a generated commit.
  writeFileSync(join(repo, '.git', 'info', 'exclude'), '.codeagent/\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '--allow-empty', '-m', 'start');
  return repo;
}

/**
 * Generates one change per `step` from the repository's current content (files listed by git,
 * symbols read from `engine`'s index of the current tree), applies it and commits it.
 */
export class ChangeGenerator {
  constructor(repo, seed) {
    this.repo = repo;
    this.rng = prng(seed);
    this.deleted = [];
    this.commits = [git(repo, 'rev-parse', 'HEAD')];
  }

  /** Applies one generated change; returns `{ op, detail }`. */
  step(engine, n) {
    const files = git(this.repo, 'ls-files', '-co', '--exclude-standard').split('\n').filter(Boolean);
    const ctx = { engine, n, files, ts: files.filter((f) => TS_SOURCE.test(f) && !f.endsWith('.d.ts')), cs: files.filter((f) => CS_SOURCE.test(f)) };
    const ops = OPERATIONS.filter((o) => o.when(ctx, this));
    for (let attempt = 0; attempt < 40; attempt++) {
      const op = weighted(this.rng, ops);
      const detail = op.apply(ctx, this);
      if (detail === null) continue;
      git(this.repo, 'add', '-A');
      git(this.repo, 'commit', '-q', '--allow-empty', '-m', `step ${n}: ${op.name}`);
      this.commits.push(git(this.repo, 'rev-parse', 'HEAD'));
      return { op: op.name, detail };
    }
    return { op: 'none', detail: 'no applicable change' };
  }

  read(path) {
    return readFileSync(join(this.repo, path), 'utf8');
  }

  write(path, text) {
    mkdirSync(dirname(join(this.repo, path)), { recursive: true });
    writeFileSync(join(this.repo, path), text);
  }

  /** A random symbol of `files` whose kind passes `accept`, with its file's lines. */
  symbol(engine, files, accept) {
    for (let i = 0; i < 12; i++) {
      const path = this.rng.pick(files);
      if (path === undefined) return null;
      let outline;
      try {
        outline = engine.outline(path);
      } catch {
        // A file the index does not hold (skipped, too big): another one is picked.
        continue;
      }
      const nodes = outline.filter((n) => n.path === path && accept(n, outline));
      const node = this.rng.pick(nodes);
      if (node) return { path, node, outline, lines: this.read(path).split('\n') };
    }
    return null;
  }
}

function weighted(rng, ops) {
  const total = ops.reduce((s, o) => s + o.weight, 0);
  let r = rng.next() * total;
  for (const o of ops) if ((r -= o.weight) < 0) return o;
  return ops[ops.length - 1];
}

const sourcesOf = (ctx) => [...ctx.ts, ...ctx.cs];
const isCs = (path) => CS_SOURCE.test(path);
/** A callable with a block body: its last line closes it. */
const blockCallable = (n, lines) => CALLABLE.has(n.kind) && n.endLine > n.startLine + 1 && /^\s*}/.test(lines[n.endLine - 1] ?? '');
const relModule = (from, to) => {
  let rel = posix.relative(posix.dirname(from), to).replace(/\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/, '');
  if (!rel.startsWith('.')) rel = `./${rel}`;
  return rel;
};

const OPERATIONS = [
  {
    name: 'edit body',
    weight: 3,
    when: (ctx) => sourcesOf(ctx).length > 0,
    apply(ctx, g) {
      const s = g.symbol(ctx.engine, sourcesOf(ctx), (n) => CALLABLE.has(n.kind) && n.endLine > n.startLine + 1);
      if (!s) return null;
      const at = s.node.startLine + 1 + g.rng.int(s.node.endLine - s.node.startLine - 1);
      s.lines.splice(at - 1, 0, `    // ca-diff edit ${ctx.n}`);
      g.write(s.path, s.lines.join('\n'));
      return `${s.path}: comment line ${at} in ${s.node.qualifiedName}`;
    },
  },
  {
    name: 'add call',
    weight: 3,
    when: (ctx) => sourcesOf(ctx).length > 0,
    apply(ctx, g) {
      const s = g.symbol(ctx.engine, sourcesOf(ctx), (n) => blockCallable(n, g.read(n.path).split('\n')));
      if (!s) return null;
      const cs = isCs(s.path);
      // A callee of the same file (a sibling method, a top-level function), or, in TS, an exported function of another file.
      const sameFile = s.outline.filter((n) => CALLABLE.has(n.kind) && WORD.test(n.name) && n.id !== s.node.id && (cs ? n.parentId === s.node.parentId : true));
      let callee = g.rng.pick(sameFile);
      let importLine = null;
      if (!cs && (callee === undefined || g.rng.next() < 0.5)) {
        const other = g.symbol(ctx.engine, ctx.ts.filter((p) => p !== s.path), (n) => n.kind === 'function' && n.modifiers.includes('export') && WORD.test(n.name));
        if (other) {
          callee = other.node;
          importLine = `import { ${callee.name} } from '${relModule(s.path, other.path)}';`;
        }
      }
      if (callee === undefined) return null;
      const call = cs ? `${callee.name}();` : callee.parentId !== null && callee.kind === 'method' ? `this.${callee.name}();` : `${callee.name}();`;
      s.lines.splice(s.node.endLine - 1, 0, `    ${call}`);
      if (importLine && !s.lines.includes(importLine)) s.lines.unshift(importLine);
      g.write(s.path, s.lines.join('\n'));
      return `${s.path}: ${s.node.qualifiedName} calls ${callee.qualifiedName}${importLine ? ` (${importLine})` : ''}`;
    },
  },
  {
    name: 'remove call',
    weight: 2,
    when: (ctx) => sourcesOf(ctx).length > 0,
    apply(ctx, g) {
      const s = g.symbol(ctx.engine, sourcesOf(ctx), (n) => blockCallable(n, g.read(n.path).split('\n')));
      if (!s) return null;
      const calls = [];
      for (let l = s.node.startLine + 1; l < s.node.endLine; l++) {
        const t = s.lines[l - 1];
        if (/^\s*[\w$.]+\([^(){}]*\);\s*$/.test(t) || /^\s*(await\s+)?[\w$.]+\([^(){}]*\);\s*$/.test(t)) calls.push(l);
      }
      const line = g.rng.pick(calls);
      if (line === undefined) return null;
      const [removed] = s.lines.splice(line - 1, 1);
      g.write(s.path, s.lines.join('\n'));
      return `${s.path}:${line} removed \`${removed.trim()}\` from ${s.node.qualifiedName}`;
    },
  },
  {
    name: 'edit signature',
    weight: 2,
    when: (ctx) => sourcesOf(ctx).length > 0,
    apply(ctx, g) {
      const s = g.symbol(ctx.engine, sourcesOf(ctx), (n) => CALLABLE.has(n.kind) && WORD.test(n.name));
      if (!s) return null;
      const text = s.lines.join('\n');
      const start = s.lines.slice(0, s.node.startLine - 1).join('\n').length + (s.node.startLine > 1 ? 1 : 0);
      const nameAt = text.slice(start).search(new RegExp(`\\b${escapeRe(s.node.name)}\\s*(<[^>]*>)?\\s*\\(`));
      if (nameAt < 0) return null;
      const open = text.indexOf('(', start + nameAt);
      let depth = 0;
      let close = -1;
      for (let i = open; i < text.length; i++) {
        if (text[i] === '(') depth++;
        else if (text[i] === ')' && --depth === 0) {
          close = i;
          break;
        }
      }
      if (close < 0) return null;
      const empty = text.slice(open + 1, close).trim() === '';
      const param = isCs(s.path) ? `int caExtra${ctx.n} = 0` : `caExtra${ctx.n}?: number`;
      g.write(s.path, `${text.slice(0, close)}${empty ? '' : ', '}${param}${text.slice(close)}`);
      return `${s.path}: ${s.node.qualifiedName} gains parameter ${param}`;
    },
  },
  {
    name: 'rename symbol',
    weight: 2,
    when: (ctx) => sourcesOf(ctx).length > 0,
    apply(ctx, g) {
      const s = g.symbol(ctx.engine, sourcesOf(ctx), (n) => ['function', 'method', 'class', 'interface'].includes(n.kind) && WORD.test(n.name) && n.name.length >= 4);
      if (!s) return null;
      const word = new RegExp(`(?<![\\w$])${escapeRe(s.node.name)}(?![\\w$])`, 'g');
      const touched = sourcesOf(ctx).filter((p) => word.test(g.read(p)) && ((word.lastIndex = 0), true));
      if (touched.length > 12) return null;
      const to = `${s.node.name}R${ctx.n}`;
      for (const p of touched) g.write(p, g.read(p).replace(word, to));
      return `${s.node.name} → ${to} in ${touched.length} files (declared in ${s.path})`;
    },
  },
  {
    name: 'move file',
    weight: 2,
    when: (ctx) => sourcesOf(ctx).length > 1,
    apply(ctx, g) {
      const from = g.rng.pick(sourcesOf(ctx));
      const dir = posix.dirname(g.rng.pick(sourcesOf(ctx)));
      let to = posix.join(dir, posix.basename(from));
      if (existsSync(join(g.repo, to))) to = posix.join(dir, `${posix.basename(from, extname(from))}_m${ctx.n}${extname(from)}`);
      git(g.repo, 'mv', from, to);
      return `git mv ${from} ${to}`;
    },
  },
  {
    name: 'rename file',
    weight: 1,
    when: (ctx) => sourcesOf(ctx).length > 0,
    apply(ctx, g) {
      const from = g.rng.pick(sourcesOf(ctx));
      const to = posix.join(posix.dirname(from), `${posix.basename(from, extname(from))}_r${ctx.n}${extname(from)}`);
      git(g.repo, 'mv', from, to);
      return `git mv ${from} ${to}`;
    },
  },
  {
    name: 'delete file',
    weight: 1,
    when: (ctx) => sourcesOf(ctx).length > 2,
    apply(ctx, g) {
      const path = g.rng.pick(sourcesOf(ctx));
      g.deleted.push({ path, text: g.read(path) });
      rmSync(join(g.repo, path));
      return `deleted ${path}`;
    },
  },
  {
    name: 're-create file',
    weight: 1,
    when: (_ctx, g) => g.deleted.length > 0,
    apply(_ctx, g) {
      // Applicable operations are chosen once per step: an earlier attempt may have taken the last one.
      if (g.deleted.length === 0) return null;
      const i = g.rng.int(g.deleted.length);
      const { path, text } = g.deleted[i];
      g.deleted.splice(i, 1);
      if (existsSync(join(g.repo, path))) return null;
      g.write(path, text);
      return `re-created ${path}`;
    },
  },
  {
    name: 'switch branch',
    weight: 1,
    when: (_ctx, g) => g.commits.length > 2,
    apply(_ctx, g) {
      const to = g.rng.pick(g.commits.slice(0, -1));
      git(g.repo, 'checkout', '-q', '--detach', to);
      return `git checkout ${to.slice(0, 10)}`;
    },
  },
  {
    name: 'edit tsconfig',
    weight: 1,
    when: (ctx) => ctx.files.some((f) => /(^|\/)tsconfig[^/]*\.json$/.test(f)),
    apply(ctx, g) {
      const path = g.rng.pick(ctx.files.filter((f) => /(^|\/)tsconfig[^/]*\.json$/.test(f)));
      const text = g.read(path);
      const marker = `    "paths": { "ca-diff/*": ["./*"] },\n`;
      if (text.includes(marker)) {
        g.write(path, text.replace(marker, ''));
        return `${path}: paths mapping removed`;
      }
      const m = /"compilerOptions"\s*:\s*\{\s*\n?/.exec(text);
      if (!m || /"paths"\s*:/.test(text)) {
        const inc = /"include"\s*:\s*\[/.exec(text);
        if (!inc) return null;
        const extra = '"ca-diff-none/**", ';
        g.write(path, text.includes(extra) ? text.replace(extra, '') : text.slice(0, inc.index + inc[0].length) + extra + text.slice(inc.index + inc[0].length));
        return `${path}: include entry toggled`;
      }
      g.write(path, text.slice(0, m.index + m[0].length) + marker + text.slice(m.index + m[0].length));
      return `${path}: paths mapping added`;
    },
  },
  {
    name: 'edit csproj',
    weight: 1,
    when: (ctx) => ctx.files.some((f) => f.endsWith('.csproj')),
    apply(ctx, g) {
      const path = g.rng.pick(ctx.files.filter((f) => f.endsWith('.csproj')));
      const text = g.read(path);
      const group = `  <PropertyGroup><DefineConstants>$(DefineConstants);CA_DIFF</DefineConstants></PropertyGroup>\n`;
      if (text.includes(group)) {
        g.write(path, text.replace(group, ''));
        return `${path}: CA_DIFF constant removed`;
      }
      const end = text.lastIndexOf('</Project>');
      if (end < 0) return null;
      g.write(path, text.slice(0, end) + group + text.slice(end));
      return `${path}: CA_DIFF constant added`;
    },
  },
  {
    name: 'move function + re-export',
    weight: 2,
    when: (ctx) => ctx.ts.length > 0,
    apply(ctx, g) {
      const s = g.symbol(ctx.engine, ctx.ts.filter((p) => /\.(ts|tsx)$/.test(p)), (n, outline) => n.kind === 'function' && n.modifiers.includes('export') && !n.modifiers.includes('default') && WORD.test(n.name) && outline.find((p) => p.id === n.parentId)?.kind === 'file');
      if (!s) return null;
      const body = s.lines.slice(s.node.startLine - 1, s.node.endLine);
      if (!/^\s*export\s/.test(body[0])) return null;
      const dir = posix.dirname(s.path);
      const to = posix.join(dir, `${s.node.name}_m${ctx.n}.ts`);
      s.lines.splice(s.node.startLine - 1, body.length, `export { ${s.node.name} } from '${relModule(s.path, to)}';`);
      g.write(s.path, s.lines.join('\n'));
      g.write(to, `${body.join('\n')}\n`);
      return `${s.node.qualifiedName} moved from ${s.path} to ${to}, re-exported`;
    },
  },
  {
    name: 'add re-export',
    weight: 1,
    when: (ctx) => ctx.ts.length > 1,
    apply(ctx, g) {
      const from = g.rng.pick(ctx.ts.filter((p) => /\.(ts|tsx)$/.test(p)));
      const to = g.rng.pick(ctx.ts.filter((p) => p !== from && /\.(ts|tsx)$/.test(p)));
      if (!from || !to) return null;
      const line = `export * from '${relModule(from, to)}';`;
      g.write(from, `${g.read(from).replace(/\n?$/, '\n')}${line}\n`);
      return `${from}: ${line}`;
    },
  },
  {
    name: 'remove re-export',
    weight: 1,
    when: (ctx) => ctx.ts.length > 0,
    apply(ctx, g) {
      for (let i = 0; i < 12; i++) {
        const path = g.rng.pick(ctx.ts);
        const lines = g.read(path).split('\n');
        const at = lines.map((l, j) => (/^export\s+(type\s+)?(\*|\{[^}]*\})(\s+as\s+\w+)?\s+from\s+['"][^'"]+['"];?\s*$/.test(l) ? j : -1)).filter((j) => j >= 0);
        const j = g.rng.pick(at);
        if (j === undefined) continue;
        const [removed] = lines.splice(j, 1);
        g.write(path, lines.join('\n'));
        return `${path}:${j + 1} removed \`${removed.trim()}\``;
      }
      return null;
    },
  },
  {
    name: 'move member to a partial file',
    weight: 3,
    when: (ctx) => ctx.cs.length > 0,
    apply(ctx, g) {
      const s = g.symbol(ctx.engine, ctx.cs, (n, outline) => {
        const parent = outline.find((p) => p.id === n.parentId);
        const grand = parent ? outline.find((p) => p.id === parent.parentId) : undefined;
        return n.kind === 'method' && parent !== undefined && ['class', 'struct', 'record'].includes(parent.kind) && (grand === undefined || grand.kind === 'namespace' || grand.kind === 'file');
      });
      if (!s) return null;
      const parent = s.outline.find((p) => p.id === s.node.parentId);
      const header = new RegExp(`\\b(class|struct|record)\\s+(${escapeRe(parent.name)}\\s*(<[^>]*>)?)`);
      const headerLine = s.lines.findIndex((l, j) => j >= parent.startLine - 1 && j < parent.endLine && header.test(l));
      if (headerLine < 0) return null;
      const m = header.exec(s.lines[headerLine]);
      const ns = s.lines.map((l) => /^\s*namespace\s+([\w.]+)/.exec(l)).find((x) => x);
      const usings = s.lines.filter((l) => /^\s*(global\s+)?using\s+(static\s+)?[\w.]+(\s*=\s*[\w.<>]+)?\s*;\s*$/.test(l));
      // Another partial file of the same class when there is one, else a new one beside it.
      const existing = ctx.cs.filter((p) => p !== s.path && posix.dirname(p) === posix.dirname(s.path) && posix.basename(p).startsWith(`${parent.name}.`));
      const body = s.lines.slice(s.node.startLine - 1, s.node.endLine);
      if (!/partial\s/.test(s.lines[headerLine])) s.lines[headerLine] = s.lines[headerLine].replace(m[0], `partial ${m[0]}`);
      s.lines.splice(s.node.startLine - 1, body.length);
      g.write(s.path, s.lines.join('\n'));
      const target = g.rng.pick(existing);
      if (target && /partial\s+(class|struct|record)/.test(g.read(target))) {
        const text = g.read(target);
        const end = text.lastIndexOf('}', ns && /\{\s*$/.test(ns.input) ? text.lastIndexOf('}') - 1 : text.length);
        if (end > 0) {
          g.write(target, `${text.slice(0, end)}${body.join('\n')}\n${text.slice(end)}`);
          return `${parent.qualifiedName}.${s.node.name} moved from ${s.path} to ${target}`;
        }
      }
      const to = posix.join(posix.dirname(s.path), `${parent.name}.Part${ctx.n}.cs`);
      const text = [...usings, '', ns ? `namespace ${ns[1]};` : '', '', `partial ${m[1]} ${m[2]}`, '{', ...body, '}', ''].join('\n');
      g.write(to, text);
      return `${parent.qualifiedName}.${s.node.name} moved from ${s.path} to ${to}`;
    },
  },
];

/** The operation names the generator draws from. */
export const OPERATION_NAMES = OPERATIONS.map((o) => o.name);

// ---------------------------------------------------------------- comparison

const NAVIGATIONS = ['callers', 'callees', 'refs', 'impls'];
const SAMPLED_KINDS = new Set(['function', 'method', 'class', 'interface', 'struct', 'record', 'property']);

/** Names of `count` symbols of the dump, drawn with `seed`: what navigation is asked about. */
export function sampleSymbols(dump, seed, count) {
  const rng = prng(seed);
  const names = [...new Set([...dump.nodes.values()].map((f) => f.split(' ¦ ')).filter((f) => SAMPLED_KINDS.has(f[0])).map((f) => f[2]))].sort();
  const out = new Set();
  for (let i = 0; i < count * 3 && out.size < Math.min(count, names.length); i++) out.add(rng.pick(names));
  return [...out];
}

/** The navigation answers of `engine` for `names`, each as one comparable line (node ids replaced by path and key). */
export function navigationAnswers(engine, names) {
  const reader = engine.reader();
  const nameOf = (id) => {
    if (id === null) return null;
    const n = reader.nodeById(Number(id));
    return n ? `${n.path}|${n.symbolKey}` : `missing node`;
  };
  const out = new Map();
  for (const name of names) {
    for (const nav of NAVIGATIONS) {
      let answer;
      try {
        const r = engine.navigate(nav, name);
        const edges = r.edges.map((e) => `${nameOf(e.from)} -${e.type}/${e.confidence}-> ${nameOf(e.to) ?? `(unresolved) ${e.targetName}`} @${e.path}:${e.line}`).sort();
        answer = `complete=${r.complete} gaps=${r.gaps.map((x) => x.scope).sort().join(',')} ${edges.join(' ; ')}`;
      } catch (e) {
        answer = `error ${e?.code ?? e?.message}`;
      }
      out.set(`${nav} ${name}`, answer);
    }
  }
  return out;
}

/**
 * The differences between a clean and an incremental index, as readable lines (`- clean`,
 * `+ incremental`), at most `limit` per section.
 */
export function compare(clean, incremental, limit = Number(process.env.CA_DIFF_LIMIT ?? 12)) {
  const out = [];
  const section = (name, a, b) => {
    const lines = [];
    const keys = new Set([...a.keys(), ...b.keys()]);
    for (const k of [...keys].sort()) {
      const x = a.get(k);
      const y = b.get(k);
      if (x === y) continue;
      if (typeof x === 'number' || typeof y === 'number') lines.push(`  ${x === undefined ? '+' : y === undefined ? '-' : '~'} ${k} (clean ${x ?? 0}, incremental ${y ?? 0})`);
      else if (x === undefined) lines.push(`  + ${k}: ${y}`);
      else if (y === undefined) lines.push(`  - ${k}: ${x}`);
      else lines.push(`  ~ ${k}\n      clean:       ${x}\n      incremental: ${y}`);
    }
    if (lines.length > 0) out.push(`${name}: ${lines.length} differ`, ...lines.slice(0, limit), ...(lines.length > limit ? [`  … ${lines.length - limit} more`] : []));
  };
  const asMap = (set) => new Map([...set].map((k) => [k, 'present']));
  section('files', clean.dump.files, incremental.dump.files);
  section('nodes', clean.dump.nodes, incremental.dump.nodes);
  section('edges', clean.dump.edges, incremental.dump.edges);
  section('re-exports', clean.dump.reexports, incremental.dump.reexports);
  section('fts', clean.dump.fts, incremental.dump.fts);
  section('vectors', asMap(clean.dump.vectors), asMap(incremental.dump.vectors));
  section('navigation', clean.answers, incremental.answers);
  return out;
}

/** What one index looks like for the comparison: its canonical dump and the navigation answers. */
export function snapshot(engine, names, options = {}) {
  return { dump: engine.store.canonicalDump('working', { fts: options.fts !== false }), answers: navigationAnswers(engine, names) };
}

/** Closes `engine` and returns a new one over the same tree, indexed from scratch. */
async function rebuilt(Engine, engine, repo, engineOptions) {
  engine.close();
  rmSync(join(repo, '.codeagent'), { recursive: true, force: true });
  const fresh = Engine.open(repo, engineOptions);
  await fresh.index();
  return fresh;
}

/**
 * Runs `steps` generated changes over a copy of `source`, indexing incrementally after each and
 * comparing with a clean index of a copy of the same tree. `Engine` is @ca/engine's class
 * (source or dist), `engineOptions` what it is opened with. Returns the steps and differences;
 * `keepGoing` rebuilds the incremental index after a difference and goes on (else it stops).
 * `from` (replaying one step): steps before it are applied and indexed incrementally without a
 * clean index to compare with, and the incremental index is rebuilt from scratch just before step
 * `from` — so a difference there comes from that one change, not from what came before.
 */
export async function runDifferential({ Engine, source, seed, steps, engineOptions, queries = 6, fts = true, keepGoing = false, from = 1, onStep = () => {} }) {
  const repo = workspaceOf(source);
  const generator = new ChangeGenerator(repo, seed);
  let engine = Engine.open(repo, engineOptions);
  const results = [];
  try {
    await engine.index();
    for (let n = 1; n <= steps; n++) {
      const change = generator.step(engine, n);
      const t0 = performance.now();
      await engine.index();
      const incrementalMs = Math.round(performance.now() - t0);
      if (n < from) {
        if (n === from - 1) engine = await rebuilt(Engine, engine, repo, engineOptions);
        continue;
      }
      const copy = join(mkdtempSync(join(tmpdir(), 'ca-differential-clean-')), 'repo');
      cpSync(repo, copy, { recursive: true, filter: (p) => !['.git', '.codeagent'].includes(basename(p)) });
      const clean = Engine.open(copy, engineOptions);
      let differences;
      const t1 = performance.now();
      try {
        await clean.index();
        const cleanSnap = snapshot(clean, [], { fts });
        const names = sampleSymbols(cleanSnap.dump, seed * 1000 + n, queries);
        differences = compare({ dump: cleanSnap.dump, answers: navigationAnswers(clean, names) }, snapshot(engine, names, { fts }));
      } finally {
        clean.close();
        rmSync(dirname(copy), { recursive: true, force: true });
      }
      const result = { step: n, ...change, incrementalMs, cleanMs: Math.round(performance.now() - t1), differences, replay: `seed ${seed}, step ${n}` };
      results.push(result);
      onStep(result);
      if (differences.length > 0) {
        // CA_DIFF_KEEP=DIR keeps the workspace (its history of steps and the incremental index) for a look.
        if (process.env.CA_DIFF_KEEP) cpSync(repo, join(process.env.CA_DIFF_KEEP, `step-${n}`), { recursive: true });
        if (!keepGoing) break;
        engine = await rebuilt(Engine, engine, repo, engineOptions);
      }
    }
  } finally {
    engine.close();
    rmSync(dirname(repo), { recursive: true, force: true });
  }
  return results;
}
