#!/usr/bin/env node
// Enforces the layer rules (docs/architecture.md, "Layers"): a package imports only packages below
// it, apps import only @ca/engine and @ca/schema (the CLI also the apps it dispatches to), and
// nobody deep-imports another package's files. And the language rule (decision 031): the store
// and the engine name no language — a language id literal ('ts', 'cs' …) appears in their
// sources only under engine/src/languages/, where each language registers its semantic pass.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Which @ca packages each workspace member may import. */
export const ALLOWED = {
  '@ca/schema': [],
  // The process supervisor sits beside @ca/schema: every package that runs a worker uses it.
  '@ca/supervisor': ['@ca/schema'],
  '@ca/store': ['@ca/schema'],
  // The team store (PostgreSQL) sits beside @ca/store and reads a local index through its public API.
  '@ca/store-postgres': ['@ca/schema', '@ca/store'],
  '@ca/parse-ts': ['@ca/schema', '@ca/supervisor'],
  '@ca/parse-cs': ['@ca/schema', '@ca/supervisor'],
  // OpenAPI/Swagger documents: a pure reader over text.
  '@ca/parse-openapi': ['@ca/schema'],
  // Non-code files (Markdown, JSON, YAML): pure scanners over text.
  '@ca/parse-doc': ['@ca/schema'],
  '@ca/embed': ['@ca/schema', '@ca/supervisor'],
  '@ca/retrieve': ['@ca/schema', '@ca/store', '@ca/embed'],
  '@ca/invalidation': ['@ca/schema', '@ca/supervisor', '@ca/store', '@ca/parse-cs'],
  '@ca/engine': ['@ca/schema', '@ca/supervisor', '@ca/store', '@ca/parse-ts', '@ca/parse-cs', '@ca/parse-openapi', '@ca/parse-doc', '@ca/embed', '@ca/retrieve', '@ca/invalidation', '@ca/store-postgres'],
  // The CLI dispatches `ca eval` to the eval app (apps compose apps; no package imports an app).
  '@ca/cli': ['@ca/engine', '@ca/schema', '@ca/eval', '@ca/mcp', '@ca/ui', '@ca/store-postgres'],
  // The MCP server over the team store (`ca serve --store`) holds a connection pool of it.
  '@ca/mcp': ['@ca/engine', '@ca/schema', '@ca/store-postgres'],
  '@ca/eval': ['@ca/engine', '@ca/schema'],
  // The viewer reuses the MCP server's Host/Origin guard (one guard for every loopback server).
  '@ca/ui': ['@ca/engine', '@ca/schema', '@ca/mcp'],
};

const IMPORT_RE = /(?:^|[^\w.])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|(?:^|[^\w.])import\s*\(\s*['"]([^'"]+)['"]\s*\)|(?:^|[^\w.])import\s+['"]([^'"]+)['"]/g;

/** Language ids (and grammar names) that may not be spelled as literals in the language-free sources. */
const LANGUAGE_IDS = ['ts', 'tsx', 'js', 'jsx', 'mts', 'cts', 'mjs', 'cjs', 'cs', 'typescript', 'javascript', 'csharp'];
const LANGUAGE_LITERAL = new RegExp(`(['"\`])(${LANGUAGE_IDS.join('|')})\\1`, 'g');
/** Source trees that hold no language names, and the one folder inside them that may. */
const LANGUAGE_FREE = [
  { dir: 'packages/store/src', except: null },
  { dir: 'packages/engine/src', except: 'packages/engine/src/languages/' },
];

/** The text with comments blanked (line numbers kept), so a comment may mention a language. */
function withoutComments(text) {
  const blank = (s) => s.replace(/[^\n]/g, ' ');
  return text.replace(/\/\*[\s\S]*?\*\//g, blank).replace(/(^|[^:])(\/\/[^\n]*)/gm, (_, lead, comment) => lead + blank(comment));
}

/** Language id literals in the language-free sources of the workspace at `root` ({file, specifier, reason}). */
export function checkLanguageLiterals(root) {
  const violations = [];
  for (const { dir, except } of LANGUAGE_FREE) {
    let files = [];
    try {
      files = [...sourceFiles(join(root, dir))];
    } catch (e) {
      if (e.code === 'ENOENT') continue; // a workspace without this package
      throw e;
    }
    for (const file of files) {
      const rel = relative(root, file).split('\\').join('/');
      if (except !== null && rel.startsWith(except)) continue;
      const text = withoutComments(readFileSync(file, 'utf8'));
      for (const m of text.matchAll(LANGUAGE_LITERAL)) {
        const line = text.slice(0, m.index).split('\n').length;
        violations.push({ file: rel, specifier: m[0], reason: `language id literal on line ${line}: a language's rules belong to its LanguageSupport (engine/src/languages/ for its semantic pass)` });
      }
    }
  }
  return violations;
}

function* sourceFiles(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (name === 'node_modules' || name === 'dist') continue;
    const st = statSync(p);
    if (st.isDirectory()) yield* sourceFiles(p);
    else if (/\.(ts|tsx|mts|js|mjs)$/.test(name)) yield p;
  }
}

/** Returns the list of violations ({file, specifier, reason}) for the workspace at `root`. */
export function checkLayers(root) {
  const violations = [];
  for (const group of ['packages', 'apps']) {
    let members = [];
    try {
      members = readdirSync(join(root, group));
    } catch {
      // A workspace without this group (no apps/, say) has nothing to check there.
      continue;
    }
    for (const m of members) {
      const dir = join(root, group, m);
      let pkg;
      try {
        pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      } catch {
        // A directory without a package.json is not a workspace member.
        continue;
      }
      const allowed = ALLOWED[pkg.name];
      for (const sub of ['src', 'test']) {
        let files = [];
        try {
          files = [...sourceFiles(join(dir, sub))];
        } catch {
          // A member without this directory (no test/, say) has nothing to check there.
          continue;
        }
        for (const file of files) {
          const text = readFileSync(file, 'utf8');
          for (const match of text.matchAll(IMPORT_RE)) {
            const spec = match[1] ?? match[2] ?? match[3];
            const rel = relative(root, file);
            if (spec.startsWith('@ca/')) {
              const [scope, name, ...rest] = spec.split('/');
              const target = `${scope}/${name}`;
              if (rest.length > 0) violations.push({ file: rel, specifier: spec, reason: 'deep import: use the package entry point' });
              else if (!allowed) violations.push({ file: rel, specifier: spec, reason: `${pkg.name} has no layer rule` });
              else if (target !== pkg.name && !allowed.includes(target)) {
                violations.push({ file: rel, specifier: spec, reason: `${pkg.name} may not import ${target} (layer rule)` });
              }
            } else if (spec.startsWith('.')) {
              const abs = resolve(file, '..', spec);
              if (!abs.startsWith(dir + '/')) violations.push({ file: rel, specifier: spec, reason: 'relative import leaves the package' });
            }
          }
        }
      }
    }
  }
  return violations;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(fileURLToPath(import.meta.url), '../..');
  const v = [...checkLayers(root), ...checkLanguageLiterals(root)];
  for (const x of v) console.error(`${x.file}: ${x.specifier} — ${x.reason}`);
  if (v.length > 0) {
    console.error(`${v.length} layer violation(s)`);
    process.exit(1);
  }
  console.log('layers ok');
}
