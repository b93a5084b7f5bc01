#!/usr/bin/env node
// Precision / recall of an index's C# `calls` edges against a ground truth written by
// roslyn-host/tools/GroundTruth (SymbolFinder or IOperation mode).
//   node packages/parse-cs/bench/callAccuracy.mjs <groundTruth.json> <index.db> [--test-prefix Src/Newtonsoft.Json.Tests/,...] [--samples N]
// Ground truth = distinct (caller declaration, callee declaration) pairs whose reference is a call
// (invocation, object creation, `: base(…)`/`: this(…)`, explicit operator/cast; `implicit` sites —
// foreach/collection-initializer/await/implicit conversions — are reported but not required).
// Our pairs: edges(type='calls', target_id not null) with source and target nodes mapped onto
// ground-truth declarations (same path, identifier line inside the node's span, same kind, same
// name when names are comparable). Edges whose target is a type (implicit constructors) or a
// field/property/event (delegate invocation) have no ground-truth counterpart and are counted apart.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';

const require = createRequire(import.meta.url);
const Database = require('/work/main/node_modules/.pnpm/better-sqlite3@12.6.2/node_modules/better-sqlite3');

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const v = args[i + 1];
  args.splice(i, 2);
  return v;
};
const testPrefixes = opt('--test-prefix', 'Src/Newtonsoft.Json.Tests/,Src/Newtonsoft.Json.TestConsole/,Src/Newtonsoft.Json.FuzzTests/').split(',');
const samples = Number(opt('--samples', '8'));
const [gtPath, dbPath] = args;
const gt = JSON.parse(readFileSync(gtPath, 'utf8'));
const isTest = (path) => testPrefixes.some((p) => path.startsWith(p));

const CALL = new Set(['invocation', 'creation', 'ctor-initializer', 'operator', 'conversion']);
const CALLEE_KINDS = new Set(['method', 'constructor', 'operator']);
const decl = new Map(gt.declarations.map((d) => [d.id, d]));
const declsByPath = new Map();
for (const d of gt.declarations) {
  if (!declsByPath.has(d.path)) declsByPath.set(d.path, []);
  declsByPath.get(d.path).push(d);
}

const truth = new Map(); // "caller|callee" → { explicit: bool, line, path }
const implicitOnly = new Map();
for (const p of gt.pairs) {
  const callee = decl.get(p.callee);
  if (!CALLEE_KINDS.has(callee.kind)) continue;
  const key = `${p.caller}|${p.callee}`;
  if (CALL.has(p.category)) truth.set(key, p);
  else if (p.category === 'implicit') implicitOnly.set(key, p);
}
for (const k of truth.keys()) implicitOnly.delete(k);

const kindMap = { method: ['method'], constructor: ['constructor'], operator: ['operator'], getter: ['getter', 'property'], setter: ['setter'], property: ['property', 'getter'], indexer: ['indexer', 'getter'], field: ['field', 'constant'], constant: ['constant', 'field'], event: ['event'] };
/** Ground-truth declaration of a node: identifier line inside the span, kind compatible, name equal when comparable. */
function mapNode(n) {
  const list = declsByPath.get(n.path);
  if (!list) return null;
  const kinds = kindMap[n.kind];
  if (!kinds) return null;
  let best = null;
  for (const d of list) {
    if (d.line < n.start_line || d.line > n.end_line || !kinds.includes(d.kind)) continue;
    const nameOk = d.kind === 'operator' || d.name === n.name || d.name.endsWith(`.${n.name}`) /* explicit interface impl */ || (n.kind === 'indexer' && d.name === 'this[]');
    if (!nameOk) continue;
    if (!best || d.line < best.line) best = d;
  }
  return best;
}

const db = new Database(dbPath, { readonly: true });
const rows = db
  .prepare(
    `SELECT e.line, e.confidence, e.target_key,
            s.kind AS s_kind, s.name AS s_name, s.start_line AS s_start, s.end_line AS s_end, sf.path AS s_path,
            t.kind AS t_kind, t.name AS t_name, t.start_line AS t_start, t.end_line AS t_end, tf.path AS t_path
     FROM edges e JOIN nodes s ON s.id = e.source_id JOIN files sf ON sf.id = s.file_id
     JOIN nodes t ON t.id = e.target_id JOIN files tf ON tf.id = t.file_id
     WHERE e.type = 'calls' AND e.target_id IS NOT NULL AND sf.language = 'cs'`,
  )
  .all();
const confidences = {};
const ours = new Map();
const apart = { typeTarget: 0, memberTarget: 0, unmappedSource: 0, unmappedTarget: 0 };
for (const r of rows) {
  confidences[r.confidence] = (confidences[r.confidence] ?? 0) + 1;
  if (['class', 'struct', 'record', 'interface'].includes(r.t_kind)) {
    apart.typeTarget++;
    continue;
  }
  if (['field', 'property', 'event', 'constant'].includes(r.t_kind)) {
    apart.memberTarget++;
    continue;
  }
  const s = mapNode({ path: r.s_path, kind: r.s_kind, name: r.s_name, start_line: r.s_start, end_line: r.s_end });
  const t = mapNode({ path: r.t_path, kind: r.t_kind, name: r.t_name, start_line: r.t_start, end_line: r.t_end });
  if (!s) {
    apart.unmappedSource++;
    // Still a claim: keep it as an unmatched pair so that precision counts it.
    ours.set(`?src:${r.s_path}:${r.s_start}:${r.s_name}|${t?.id ?? r.t_name}`, { ...r, unmapped: 'source' });
    continue;
  }
  if (!t) {
    apart.unmappedTarget++;
    ours.set(`${s.id}|?tgt:${r.t_path}:${r.t_start}:${r.t_name}`, { ...r, unmapped: 'target' });
    continue;
  }
  ours.set(`${s.id}|${t.id}`, r);
}

function score(filter) {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  let implicitHit = 0;
  const fps = [];
  const fns = [];
  for (const [k, r] of ours) {
    const callerPath = k.startsWith('?src:') ? r.s_path : decl.get(k.split('|')[0])?.path ?? r.s_path;
    if (!filter(callerPath)) continue;
    if (truth.has(k)) tp++;
    else if (implicitOnly.has(k)) implicitHit++;
    else {
      fp++;
      fps.push(`${k}  @${r.s_path}:${r.line}${r.unmapped ? ` (unmapped ${r.unmapped}: ${r.t_kind} ${r.t_name})` : ''}`);
    }
  }
  for (const [k, p] of truth) {
    if (!filter(decl.get(p.caller).path)) continue;
    if (!ours.has(k)) {
      fn++;
      fns.push(`${k}  @${p.path}:${p.line} [${p.category}]`);
    }
  }
  return { tp, fp, fn, implicitHit, precision: tp / (tp + fp), recall: tp / (tp + fn), fps, fns };
}

const pick = (xs) => {
  // Deterministic spread of samples.
  const step = Math.max(1, Math.floor(xs.length / samples));
  return xs.filter((_, i) => i % step === 0).slice(0, samples);
};
console.log(`ground truth ${gtPath}: ${truth.size} call pairs (callee method/ctor/operator in source), ${implicitOnly.size} implicit-only pairs`);
console.log(`index ${dbPath}: ${rows.length} resolved C# calls edges ${JSON.stringify(confidences)}; apart: ${JSON.stringify(apart)}`);
for (const [name, filter] of [
  ['all', () => true],
  ['excluding tests', (p) => !isTest(p)],
]) {
  const s = score(filter);
  console.log(`${name.padEnd(16)} precision ${s.precision.toFixed(4)}  recall ${s.recall.toFixed(4)}  (tp ${s.tp}, fp ${s.fp}, fn ${s.fn}, implicit-only hits ${s.implicitHit})`);
  if (samples > 0 && name === 'all') {
    console.log('  false positives (sample):');
    for (const f of pick(s.fps)) console.log(`    ${f}`);
    console.log('  false negatives (sample):');
    for (const f of pick(s.fns)) console.log(`    ${f}`);
  }
}
const fnCallees = {};
for (const [k, p] of truth) if (!ours.has(k)) { const c = decl.get(p.callee); const t = c.docId.replace(/\(.*$/, ''); fnCallees[t] = (fnCallees[t] ?? 0) + 1; }
console.log('false negatives, top callees:', Object.entries(fnCallees).sort((a, b) => b[1] - a[1]).slice(0, 8).map(([k, v]) => `${k} ${v}`).join('; '));
const fnCats = {};
for (const [k, p] of truth) if (!ours.has(k)) fnCats[p.category] = (fnCats[p.category] ?? 0) + 1;
console.log(`false negatives by category: ${JSON.stringify(fnCats)}`);
