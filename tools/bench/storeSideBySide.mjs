#!/usr/bin/env node
// Store hot queries of two checkouts side by side over one existing index (e.g. main's and a
// branch's built packages/store/dist), in one process: per round both run each query kind, the
// order alternating; prints median and minimum µs per kind and whether both gave the same answers.
// Usage: node tools/bench/storeSideBySide.mjs <rootA> <rootB> <index.db> [rounds]
const [mainRoot, branchRoot, db, roundsArg] = process.argv.slice(2);
const rounds = Number(roundsArg ?? 21);
const open = async (root) => {
  const { Store } = await import(`${root}/packages/store/dist/index.js`);
  const store = Store.open(db, { readonly: true, skipQuickCheck: true });
  return { store, reader: store.reader('working'), explore: store.explore('working') };
};
const A = await open(mainRoot);
const B = await open(branchRoot);
const sample = A.reader.find({ symbolsOnly: true }, { limit: 200 }).nodes;
const names = sample.slice(0, 40).map((n) => n.name);
const qnames = sample.slice(0, 40).map((n) => n.qualifiedName);
const ids = sample.map((n) => n.id);
const paths = [...new Set(sample.map((n) => n.path))].slice(0, 20);
const words = ['context', 'router', 'middleware handler', 'request body json', 'cookie', 'validate schema', 'stream', 'header'];
const kinds = {
  bm25: (s) => words.map((w) => s.reader.bm25(w, undefined, 50)),
  bm25Filtered: (s) => words.map((w) => s.reader.bm25(w, { kinds: ['function', 'method'] }, 50)),
  byQualifiedName: (s) => qnames.map((q) => s.reader.byQualifiedName(q)),
  bySuffix: (s) => names.map((q) => s.reader.bySuffix(q)),
  outline: (s) => paths.map((p) => s.reader.outline(p)),
  nodesByIds: (s) => s.reader.nodesByIds(ids),
  nodeFacts: (s) => [...s.reader.nodeFacts(ids.slice(0, 50))],
  dependentsOf: (s) => ids.slice(0, 40).map((id) => s.reader.dependentsOf([id], ['calls', 'references'])),
  edges: (s) => ids.slice(0, 40).map((id) => [s.reader.edgesFrom(id), s.reader.edgesTo(id)]),
  labelEntries: (s) => [...s.reader.labelEntries()],
  statusCounts: (s) => [s.reader.fileStatuses(), s.reader.counts()],
  contentHash: (s) => paths.map((p) => [s.reader.contentHashOf(p), s.reader.indexedFile(p)]),
  exploreFiles: (s) => [s.explore.files(), paths.map((p) => s.explore.file(p))],
  edgeCounts: (s) => ids.slice(0, 40).map((id) => s.explore.edgeCounts(id)),
  find: (s) => s.reader.find({ kinds: ['function'] }, { limit: 100 }),
};
const time = (fn, s) => { const t = process.hrtime.bigint(); fn(s); return Number(process.hrtime.bigint() - t) / 1000; };
const med = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
console.log("kind\tmain med\tbranch med\tmain min\tbranch min\tmin ratio\tsame answers");
for (const [k, fn] of Object.entries(kinds)) {
  const same = JSON.stringify(fn(A)) === JSON.stringify(fn(B));
  fn(A); fn(B);
  const ta = [], tb = [];
  for (let r = 0; r < rounds; r++) {
    if (r % 2 === 0) { ta.push(time(fn, A)); tb.push(time(fn, B)); } else { tb.push(time(fn, B)); ta.push(time(fn, A)); }
  }
  const ma = med(ta), mb = med(tb);
  const na = Math.min(...ta), nb = Math.min(...tb);
  console.log(`${k}\t${Math.round(ma)}\t${Math.round(mb)}\t${Math.round(na)}\t${Math.round(nb)}\t${(nb / na).toFixed(2)}\t${same}`);
}
A.store.close(); B.store.close();
