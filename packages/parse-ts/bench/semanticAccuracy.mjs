#!/usr/bin/env node
/**
 * Accuracy of `calls` and `references` edges: syntactic pass vs semantic pass, against
 * TypeScript's own LanguageService.findReferences as ground truth.
 *
 *   pnpm --filter @ca/parse-ts build && node bench/semanticAccuracy.mjs <repoDir>
 *
 * Ground truth: for every function / method / function-component declaration in the repo
 * (syntactic nodes of kind function|method|component), findReferences; a reference in call
 * position (callee of a call / new, tagged-template tag, JSX tag) gives the pair
 * (innermost syntactic node around the call site, the declaration's syntactic node).
 * A call of an overloaded function counts for the overload it resolves to
 * (`getResolvedSignature`), not for every declaration findReferences lists it under.
 * References: for every declaration with a syntactic node (all kinds but file, module and
 * constructor), each findReferences site that is not a call, not an import/export specifier,
 * not a heritage clause (those are `inherits`/`implements` edges) and not a closing JSX tag
 * gives the pair (innermost syntactic node around the site, the declaration's node).
 * Predictions are restricted to targets of those same kinds. Syntactic targets are resolved
 * like an index would: exact key, else import module path + imported name, else a unique
 * repo-wide name match (the rest is counted as unresolved, not as a prediction).
 *
 * Files no config lists are grouped like the semantic pass groups them: by the deepest
 * enclosing config (whose options they get), else one plain inferred program.
 *
 * Environment:
 *   SAMPLE=0.3 SEED=1  ground truth (and predictions) only for declarations in a seeded random
 *                      30% of the files (for large repositories: findReferences is slow)
 *   VERBOSE=1          print every missed / extra pair with file:line and the source line
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { createRequire } from 'node:module';
import { createTsAdapter, createTsSemanticService } from '../dist/index.js';

const require = createRequire(import.meta.url);
const ts = require('typescript'); // this package's dependency, never the analysed repo's

const repo = resolve(process.argv[2] ?? '.');
const SKIP = new Set(['node_modules', '.git', 'dist', 'build', 'out', 'coverage', '.codeagent', '.next']);
const SRC = /\.(tsx?|mts|cts|jsx?|mjs|cjs)$/;
const CALLEE_KINDS = new Set(['function', 'method', 'component']);
/** Kinds that `references` edges are measured for (everything with a name one can use). */
const NOT_REFERENCED_KINDS = new Set(['file', 'module', 'constructor']);
const rel = (abs) => relative(repo, abs).split(sep).join('/');

function walk(dir, out = { sources: [], configs: [] }) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isSymbolicLink()) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (!SKIP.has(e.name) && !e.name.startsWith('.')) walk(p, out);
    } else if (e.name === 'tsconfig.json' || e.name === 'jsconfig.json') out.configs.push(p);
    else if (SRC.test(e.name)) out.sources.push(p);
  }
  return out;
}

const { sources, configs } = walk(repo);
sources.sort();
configs.sort();
const SAMPLE = Number(process.env.SAMPLE ?? '1');
const SEED = String(process.env.SEED ?? '1');
/** Deterministic per-file sample: FNV-1a of seed + path, compared to the fraction. */
const sampled = (p) => {
  if (SAMPLE >= 1) return true;
  let h = 0x811c9dc5;
  for (const ch of `${SEED}:${p}`) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  return h / 0x100000000 < SAMPLE;
};
const adapter = await createTsAdapter();
/** rel path → { index, text, children, byteAt } */
const files = new Map();
let totalLines = 0;
for (const abs of sources) {
  const text = ts.sys.readFile(abs) ?? '';
  const index = adapter.parse({ path: rel(abs), text });
  totalLines += index.lineCount;
  const enc = new TextEncoder();
  const ascii = !/[^\x00-\x7f]/.test(text);
  const byteAt = (i) => (ascii ? i : enc.encode(text.slice(0, i)).length);
  files.set(rel(abs), { index, text, byteAt });
}
const keyKind = new Map(); // `${path}\0${key}` → kind
const byName = new Map(); // name → [`${path}\0${key}`] of callables
const byNameAll = new Map(); // name → [`${path}\0${key}`] of every referenceable kind
for (const [p, f] of files) {
  for (const n of f.index.nodes) {
    keyKind.set(`${p}\0${n.symbolKey}`, n.kind);
    if (CALLEE_KINDS.has(n.kind)) byName.set(n.name, [...(byName.get(n.name) ?? []), `${p}\0${n.symbolKey}`]);
    if (!NOT_REFERENCED_KINDS.has(n.kind)) byNameAll.set(n.name, [...(byNameAll.get(n.name) ?? []), `${p}\0${n.symbolKey}`]);
  }
}
function innermost(p, pos) {
  const f = files.get(p);
  const b = f.byteAt(pos);
  let best = f.index.nodes[0];
  for (const n of f.index.nodes) {
    if (n.span.startByte <= b && b < n.span.endByte && n.span.endByte - n.span.startByte <= best.span.endByte - best.span.startByte) best = n;
  }
  return best;
}

// ---- ground truth through the LanguageService (plugins stripped, one service per project) ----
function projectsOf() {
  const out = [];
  for (const c of configs) {
    const read = ts.readConfigFile(c, ts.sys.readFile);
    if (read.error) continue;
    if (read.config?.compilerOptions) delete read.config.compilerOptions.plugins;
    const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, dirname(c), undefined, c);
    delete parsed.options.plugins;
    if (parsed.fileNames.length > 0) out.push({ dir: dirname(c), options: { ...parsed.options, noEmit: true }, roots: parsed.fileNames.map((f) => resolve(f)) });
  }
  const covered = new Set(out.flatMap((p) => p.roots));
  const groups = new Map();
  for (const f of sources.filter((s) => !covered.has(s))) {
    let base = null;
    for (const p of out) if ((f.startsWith(p.dir + sep)) && (base === null || p.dir.length > base.dir.length)) base = p;
    const key = base?.dir ?? '';
    const g = groups.get(key) ?? { base, roots: [] };
    g.roots.push(f);
    groups.set(key, g);
  }
  const plain = { allowJs: true, checkJs: false, jsx: ts.JsxEmit.Preserve, noEmit: true, moduleResolution: ts.ModuleResolutionKind.Bundler, module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 };
  for (const { base, roots } of groups.values()) {
    out.push({ options: base === null ? plain : { ...base.options, allowJs: true, checkJs: false }, roots });
  }
  return out;
}
function isCallPosition(node) {
  const p = node.parent;
  if (!p) return false;
  const callee = (e) => e === node || (ts.isPropertyAccessExpression(e) && e.name === node);
  if ((ts.isCallExpression(p) || ts.isNewExpression(p)) && callee(p.expression)) return true;
  if (ts.isPropertyAccessExpression(p) && p.name === node) {
    const g = p.parent;
    if (g && (ts.isCallExpression(g) || ts.isNewExpression(g)) && g.expression === p) return true;
    if (g && ts.isTaggedTemplateExpression(g) && g.tag === p) return true;
    if (g && (ts.isJsxOpeningElement(g) || ts.isJsxSelfClosingElement(g)) && g.tagName === p) return true;
  }
  if (ts.isTaggedTemplateExpression(p) && p.tag === node) return true;
  if ((ts.isJsxOpeningElement(p) || ts.isJsxSelfClosingElement(p)) && p.tagName === node) return true;
  return false;
}
/**
 * The declaration a call resolves to when its callee is overloaded (several function-like
 * declarations of one symbol), else null. `tok` is in call position (isCallPosition).
 */
function resolvedOverload(tok, checker) {
  let symbol = checker.getSymbolAtLocation(tok);
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  const decls = (symbol?.declarations ?? []).filter((d) => ts.isFunctionLike(d));
  if (decls.length < 2) return null;
  const p = tok.parent;
  const call = ts.isPropertyAccessExpression(p) && p.name === tok ? p.parent : p;
  if (!ts.isCallLikeExpression(call)) return null;
  return checker.getResolvedSignature(call)?.declaration ?? null;
}
/** A use the semantic pass records as another edge type, or not at all (see the header). */
function notAReference(tok) {
  const p = tok.parent;
  if (!p) return true;
  if (ts.isImportSpecifier(p) || ts.isExportSpecifier(p) || ts.isImportClause(p) || ts.isNamespaceImport(p) || ts.isNamespaceExport(p)) return true;
  if (ts.isJsxClosingElement(p)) return true;
  if (ts.isPropertyAccessExpression(p) && p.name === tok && p.parent && ts.isJsxClosingElement(p.parent)) return true;
  let e = tok;
  while (e.parent && ts.isPropertyAccessExpression(e.parent) && e.parent.name === e) e = e.parent;
  return !!(e.parent && ts.isExpressionWithTypeArguments(e.parent) && e.parent.parent && ts.isHeritageClause(e.parent.parent));
}
function tokenAt(sf, pos) {
  let found;
  const visit = (n) => {
    if (pos >= n.getStart(sf) && pos < n.getEnd()) {
      found = n;
      ts.forEachChild(n, visit);
    }
  };
  visit(sf);
  return found;
}

const truth = new Set();
const refTruth = new Set();
/** pair → first call site `path:line  source text` (for VERBOSE). */
const truthSite = new Map();
const refSite = new Map();
const tTruth = performance.now();
for (const proj of projectsOf()) {
  const host = {
    getScriptFileNames: () => proj.roots,
    getScriptVersion: () => '1',
    getScriptSnapshot: (f) => {
      const t = ts.sys.readFile(f);
      return t === undefined ? undefined : ts.ScriptSnapshot.fromString(t);
    },
    getCurrentDirectory: () => repo,
    getCompilationSettings: () => proj.options,
    getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
    fileExists: ts.sys.fileExists,
    readFile: ts.sys.readFile,
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
  };
  const ls = ts.createLanguageService(host, ts.createDocumentRegistry());
  const program = ls.getProgram();
  const checker = program.getTypeChecker();
  // Every repo file of the program (sources of referenced packages too), so cross-package
  // call sites are found by the program that contains them.
  for (const abs of program.getSourceFiles().map((x) => resolve(x.fileName))) {
    const p = rel(abs);
    const f = files.get(p);
    if (!f || !sampled(p)) continue;
    const sf = program.getSourceFile(abs);
    if (!sf) continue;
    for (const n of f.index.nodes) {
      if (NOT_REFERENCED_KINDS.has(n.kind)) continue;
      // Position of the declaration's name: first occurrence of the name inside its span.
      const spanText = Buffer.from(f.text).subarray(n.span.startByte, n.span.endByte).toString();
      const spanStart = Buffer.from(f.text).subarray(0, n.span.startByte).toString().length;
      const nameIdx = spanText.search(new RegExp(`\\b${n.name.replace(/[$]/g, '\\$')}\\b`));
      if (nameIdx < 0) continue;
      let refs;
      try {
        refs = ls.findReferences(abs, spanStart + nameIdx);
      } catch {
        continue;
      }
      for (const group of refs ?? []) {
        // The declaration's own group (and its aliases): related symbols (base members, interface members,
        // implementations) come in groups of their own and are not calls of this declaration.
        // Import/export aliases of the declaration are its own references too.
        const own = resolve(group.definition.fileName) === abs && group.definition.textSpan.start === spanStart + nameIdx;
        if (!own && group.definition.kind !== ts.ScriptElementKind.alias) continue;
        for (const r of group.references) {
          if (r.isDefinition) continue;
          const rp = rel(resolve(r.fileName));
          if (!files.has(rp)) continue;
          const rsf = program.getSourceFile(resolve(r.fileName));
          const tok = rsf && tokenAt(rsf, r.textSpan.start);
          if (!tok) continue;
          if (!isCallPosition(tok)) {
            if (notAReference(tok)) continue;
            const pair = `${rp}\0${innermost(rp, r.textSpan.start).symbolKey}\u0001${p}\0${n.symbolKey}`;
            refTruth.add(pair);
            if (!refSite.has(pair)) {
              const lc = rsf.getLineAndCharacterOfPosition(r.textSpan.start);
              refSite.set(pair, `${rp}:${lc.line + 1}  ${rsf.text.split('\n')[lc.line].trim().slice(0, 140)}`);
            }
            continue;
          }
          if (!CALLEE_KINDS.has(n.kind)) continue;
          // findReferences lists every call of an overloaded function under each of its
          // declarations; a call belongs to the overload it resolves to.
          const overload = resolvedOverload(tok, checker);
          if (overload && !(resolve(overload.getSourceFile().fileName) === abs && overload.name?.getStart() === spanStart + nameIdx)) continue;
          // Import/export specifiers are not call sites; the caller is the innermost symbol.
          const caller = innermost(rp, r.textSpan.start);
          const pair = `${rp}\0${caller.symbolKey}\u0001${p}\0${n.symbolKey}`;
          truth.add(pair);
          if (!truthSite.has(pair)) {
            const lc = rsf.getLineAndCharacterOfPosition(r.textSpan.start);
            truthSite.set(pair, `${rp}:${lc.line + 1}  ${rsf.text.split('\n')[lc.line].trim().slice(0, 140)}`);
          }
        }
      }
    }
  }
  ls.dispose();
}
const truthMs = performance.now() - tTruth;

// ---- syntactic predictions ----
const modFile = new Map();
for (const p of files.keys()) {
  const base = p.replace(/\.(d\.ts|tsx?|mts|cts|jsx?|mjs|cjs)$/, '');
  modFile.set(base, [...(modFile.get(base) ?? []), p]);
  if (base.endsWith('/index')) modFile.set(base.slice(0, -6), [...(modFile.get(base.slice(0, -6)) ?? []), p]);
}
const syntactic = new Set();
const syntacticRefs = new Set();
let unresolved = 0;
let unresolvedRefs = 0;
for (const [p, f] of files) {
  const keyOf = new Map(f.index.nodes.map((n) => [n.localId, n.symbolKey]));
  for (const e of f.index.edges) {
    if (e.type !== 'calls' && e.type !== 'references') continue;
    const isCall = e.type === 'calls';
    const src = `${p}\0${keyOf.get(e.sourceLocalId)}`;
    let tgt = null;
    if (e.target.localId) tgt = `${p}\0${keyOf.get(e.target.localId)}`;
    else if (e.target.modulePath) {
      for (const mf of modFile.get(e.target.modulePath) ?? []) {
        const idx = files.get(mf).index;
        const want = e.target.importedName === 'default' ? null : e.target.importedName;
        const hit = idx.nodes.find((n) => n.parentLocalId === idx.nodes[0].localId && (want === null ? n.modifiers.includes('default') : n.name === want));
        if (hit) tgt = `${mf}\0${hit.symbolKey}`;
      }
    }
    if (tgt === null) {
      const name = e.target.name.split('.').pop();
      const cands = (isCall ? byName : byNameAll).get(name) ?? [];
      if (cands.length === 1) tgt = cands[0];
    }
    if (tgt === null) {
      if (isCall) unresolved++;
      else unresolvedRefs++;
      continue;
    }
    if (!sampled(tgt.split('\0')[0])) continue;
    if (isCall && CALLEE_KINDS.has(keyKind.get(tgt))) syntactic.add(`${src}\u0001${tgt}`);
    if (!isCall && !NOT_REFERENCED_KINDS.has(keyKind.get(tgt))) syntacticRefs.add(`${src}\u0001${tgt}`);
  }
}

// ---- semantic predictions ----
const svc = createTsSemanticService();
const t0 = performance.now();
const result = await svc.analyzeRepository(repo, { deadlineMs: 30 * 60_000 });
const semMs = performance.now() - t0;
// CPU time of the worker (user + system, from /proc; Linux clock ticks of 10 ms): robust on a busy machine.
// Summed over the workers (the service may run 2); read before dispose() ends them.
let workerCpuS = null;
const workerCount = svc.pids.length;
for (const pid of svc.pids) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    workerCpuS = (workerCpuS ?? 0) + (Number(stat[11]) + Number(stat[12])) / 100;
  } catch {}
}
await svc.dispose();
const semantic = new Set();
const semanticRefs = new Set();
const semSite = new Map();
const semRefSite = new Map();
let semLines = 0;
for (const proj of result.projects) {
  for (const f of proj.files) semLines += files.get(f)?.index.lineCount ?? 0;
  for (const e of proj.edges) {
    if (e.type === 'references') {
      const tgt = `${e.targetPath}\0${e.targetKey}`;
      if (NOT_REFERENCED_KINDS.has(keyKind.get(tgt)) || !keyKind.has(tgt) || !sampled(e.targetPath)) continue;
      const pair = `${e.sourcePath}\0${e.sourceKey}\u0001${tgt}`;
      semanticRefs.add(pair);
      if (!semRefSite.has(pair)) semRefSite.set(pair, `${e.sourcePath}:${e.line}  ${(files.get(e.sourcePath)?.text.split('\n')[e.line - 1] ?? '').trim().slice(0, 140)}`);
      continue;
    }
    if (e.type !== 'calls') continue;
    const tgt = `${e.targetPath}\0${e.targetKey}`;
    if (!CALLEE_KINDS.has(keyKind.get(tgt)) || !sampled(e.targetPath)) continue;
    const pair = `${e.sourcePath}\0${e.sourceKey}\u0001${tgt}`;
    semantic.add(pair);
    if (!semSite.has(pair)) semSite.set(pair, `${e.sourcePath}:${e.line}  ${(files.get(e.sourcePath)?.text.split('\n')[e.line - 1] ?? '').trim().slice(0, 140)}`);
  }
}

function score(pred, gold = truth) {
  let tp = 0;
  for (const x of pred) if (gold.has(x)) tp++;
  return { predicted: pred.size, truePositives: tp, precision: pred.size ? tp / pred.size : 1, recall: gold.size ? tp / gold.size : 1, truth: gold.size };
}
const fmt = (s) => `precision ${(s.precision * 100).toFixed(1)}%  recall ${(s.recall * 100).toFixed(1)}%  (${s.truePositives}/${s.predicted} predicted, truth ${s.truth})`;
const syn = score(syntactic);
const sem = score(semantic);
const synRefs = score(syntacticRefs, refTruth);
const semRefs = score(semanticRefs, refTruth);
console.log(`repo: ${repo}`);
console.log(`files: ${files.size}, lines: ${totalLines}, projects: ${result.projects.map((p) => `${p.tsconfig ?? '<inferred>'}:${p.status}`).join(' ')}`);
console.log(`ground truth (findReferences call sites): ${truth.size} pairs in ${(truthMs / 1000).toFixed(1)} s${SAMPLE < 1 ? ` (declarations of a ${SAMPLE} sample of files, seed ${SEED})` : ''}`);
console.log(`syntactic calls: ${fmt(syn)}; ${unresolved} unresolved edges not counted`);
console.log(`semantic  calls: ${fmt(sem)}`);
console.log(`ground truth (findReferences other uses): ${refTruth.size} pairs`);
console.log(`syntactic references: ${fmt(synRefs)}; ${unresolvedRefs} unresolved edges not counted`);
console.log(`semantic  references: ${fmt(semRefs)}`);
console.log(`semantic throughput: ${Math.round(semLines / (semMs / 1000))} lines/s (${semLines} lines in ${(semMs / 1000).toFixed(2)} s, incl. worker start)${workerCpuS === null ? '' : `; worker CPU ${workerCpuS.toFixed(1)} s (${workerCount} worker(s)) = ${Math.round(semLines / workerCpuS)} lines/CPU-s`}`);
if (process.env.VERBOSE) {
  for (const x of truth) if (!semantic.has(x)) console.log('semantic missed', x.replace(/\0/g, ' ').replace('\u0001', ' -> '), '\n    at', truthSite.get(x));
  for (const x of semantic) if (!truth.has(x)) console.log('semantic extra ', x.replace(/\0/g, ' ').replace('\u0001', ' -> '), '\n    at', semSite.get(x));
  for (const x of refTruth) if (!semanticRefs.has(x)) console.log('semantic missed ref', x.replace(/\0/g, ' ').replace('\u0001', ' -> '), '\n    at', refSite.get(x));
  for (const x of semanticRefs) if (!refTruth.has(x)) console.log('semantic extra ref ', x.replace(/\0/g, ' ').replace('\u0001', ' -> '), '\n    at', semRefSite.get(x));
}
adapter.dispose?.();
