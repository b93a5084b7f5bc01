#!/usr/bin/env node
// Counts C# files whose tree-sitter parse has ERROR/MISSING nodes, with and without the syntactic
// adapter's #if evaluation, on a directory (default: fixtures/cs-solution).
//   node packages/parse-cs/bench/preprocessorErrors.mjs [dir] [--list N]
// Modes:
//   raw        the file text parsed by web-tree-sitter as is (no preprocessing: every #if branch is parsed)
//   default    createCsAdapter() with DEFAULT_PREPROCESSOR_SYMBOLS (net8.0 Release)
//   project    createCsAdapter() with the symbols the engine uses: the nearest .csproj read by
//              readCsproj + preprocessorSymbolsFor (as packages/engine/src/csProjects.ts does)
//   project+tfm   like project, plus the DefineConstants of PropertyGroups conditioned on the first
//              target framework (`'$(TargetFramework)'=='net8.0'`), which readCsproj skips today
// Needs packages/parse-cs/dist (pnpm --filter @ca/parse-cs build).
import { createRequire } from 'node:module';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Language, Parser } from 'web-tree-sitter';
import { createCsAdapter, DEFAULT_PREPROCESSOR_SYMBOLS, preprocessorSymbolsFor, readCsproj } from '../dist/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const listAt = args.indexOf('--list');
const listN = listAt >= 0 ? Number(args.splice(listAt, 2)[1]) : 10;
const dir = resolve(args[0] ?? join(here, '../../../fixtures/cs-solution'));

function walk(root) {
  const out = [];
  const stack = [root];
  while (stack.length) {
    const d = stack.pop();
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.name.startsWith('.') || ['bin', 'obj', 'node_modules'].includes(e.name)) continue;
      const p = join(d, e.name);
      if (e.isDirectory()) stack.push(p);
      else if (e.name.endsWith('.cs')) out.push(p);
    }
  }
  return out.sort();
}

/** Nearest .csproj above a file (same walk as the engine's createCsSymbolLookup). */
function nearestCsproj(file) {
  for (let d = dirname(file); d.startsWith(dir); d = dirname(d)) {
    const proj = readdirSync(d).find((f) => f.endsWith('.csproj'));
    if (proj) return join(d, proj);
    if (d === dir) break;
  }
  return null;
}

const projectSymbols = new Map();
function symbolsFor(file, withTfm) {
  const proj = nearestCsproj(file);
  if (!proj) return DEFAULT_PREPROCESSOR_SYMBOLS;
  const key = `${proj}|${withTfm}`;
  let s = projectSymbols.get(key);
  if (s) return s;
  const text = readFileSync(proj, 'utf8');
  const project = readCsproj(text, relative(dir, proj));
  s = preprocessorSymbolsFor(project);
  if (withTfm) {
    const tfm = project.targetFrameworks[0];
    const extra = [];
    const re = /<PropertyGroup\s+Condition="\s*'\$\(TargetFramework\)'\s*==\s*'([^']+)'\s*"\s*>([\s\S]*?)<\/PropertyGroup>/g;
    for (const m of text.matchAll(re)) {
      if (m[1] !== tfm) continue;
      const dc = /<DefineConstants>([^<]*)<\/DefineConstants>/.exec(m[2]);
      if (dc) extra.push(...dc[1].split(';').map((x) => x.trim()).filter((x) => /^\w+$/.test(x)));
    }
    s = [...new Set([...s, ...extra])];
  }
  projectSymbols.set(key, s);
  return s;
}

const require = createRequire(import.meta.url);
await Parser.init({ locateFile: () => require.resolve('web-tree-sitter/web-tree-sitter.wasm') });
const language = await Language.load(join(dirname(require.resolve('tree-sitter-c-sharp/package.json')), 'tree-sitter-c_sharp.wasm'));
const raw = new Parser();
raw.setLanguage(language);

const files = walk(dir);
const adapters = {
  default: await createCsAdapter(),
  project: await createCsAdapter({ preprocessorSymbols: (p) => symbolsFor(join(dir, p), false) }),
  'project+tfm': await createCsAdapter({ preprocessorSymbols: (p) => symbolsFor(join(dir, p), true) }),
};
const bad = { raw: [], default: [], project: [], 'project+tfm': [] };
let withDirectives = 0;
let lines = 0;
for (const abs of files) {
  const text = readFileSync(abs, 'utf8');
  const path = relative(dir, abs).split('\\').join('/');
  lines += text.split('\n').length;
  if (/^\s*#\s*if\b/m.test(text)) withDirectives++;
  const tree = raw.parse(text);
  if (tree.rootNode.hasError) bad.raw.push(path);
  tree.delete();
  for (const [mode, adapter] of Object.entries(adapters)) {
    const r = adapter.parse({ path, text }, { deadlineMs: 60_000 });
    if (r.parseStatus !== 'ok') bad[mode].push(`${path} (${r.parseStatus})`);
  }
}
console.log(`${dir}: ${files.length} .cs files, ${lines} lines, ${withDirectives} with #if`);
for (const [proj] of [...projectSymbols].filter(([k]) => k.endsWith('|false'))) {
  console.log(`  symbols ${relative(dir, proj.split('|')[0])}: ${projectSymbols.get(proj).join(' ')}`);
}
for (const [mode, list] of Object.entries(bad)) {
  console.log(`${mode.padEnd(12)} files with ERROR/MISSING: ${list.length}`);
  for (const f of list.slice(0, listN)) console.log(`    ${f}`);
}
if (!existsSync(dir)) process.exit(1);
