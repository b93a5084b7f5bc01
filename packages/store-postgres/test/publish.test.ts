import { afterAll, describe, expect, it } from 'vitest';
import { publish, snapshotDump, tableCounts, listRepositories } from '../src/index.js';
import { freshDatabase, localIndex, postgresAvailable, sourceFile } from './helpers.js';
import type { Store } from '@ca/store';

const run = postgresAvailable();
const opened: Store[] = [];
afterAll(() => opened.forEach((s) => s.close()));

function index(...args: Parameters<typeof localIndex>): Store {
  const s = localIndex(...args);
  opened.push(s);
  return s;
}

// The fixture tree: two files, two functions each, one call inside each file.
//   src/a.ts (blob aaaa01): file node, alpha (line 1), beta (line 2); beta calls alpha
//   src/b.ts (blob bbbb01): file node, gamma (line 1), delta (line 2); delta calls gamma
// So 2 files, 6 nodes (a file node and two functions per file), 2 edges, 2 blobs, 6 distinct
// chunk texts ("file src/a.ts", "function alpha() {}", …), one vector per node with 6 distinct
// text hashes.
const treeV1 = () => [
  sourceFile('src/a.ts', 'aaaa01', ['alpha', 'beta'], [['beta', 'alpha']]),
  sourceFile('src/b.ts', 'bbbb01', ['gamma', 'delta'], [['delta', 'gamma']]),
];

describe.runIf(run)('publishing a label to PostgreSQL', () => {
  it('reads back what was published: counts, files, nodes and edges by hand', async () => {
    const db = await freshDatabase();
    const report = await publish(db.rw, 'acme/app', index(treeV1()).snapshotSource('working'));
    expect(report).toMatchObject({ repository: 'acme/app', label: 'working', files: 2, nodes: 6, edges: 2 });
    expect(report.written).toEqual({ versions: 2, edgeSets: 2, blobs: 2, chunks: 6, embeddings: 6 });
    const dump = (await snapshotDump(db.ro, 'acme/app', 'working'))!;
    expect(dump.files).toEqual(['src/a.ts aaaa01 ts ok none', 'src/b.ts bbbb01 ts ok none']);
    expect(dump.nodes.filter((n) => n.startsWith('src/a.ts')).map((n) => n.replace(/ chunk=\w+$/, ''))).toEqual([
      'src/a.ts|ts:file:src/a.ts#alpha()|0 function alpha 1-1 parent=ts:file:src/a.ts#',
      'src/a.ts|ts:file:src/a.ts#beta()|0 function beta 2-2 parent=ts:file:src/a.ts#',
      'src/a.ts|ts:file:src/a.ts#|0 file src/a.ts 1-1 parent=-',
    ]);
    expect(dump.edges).toEqual([
      'src/a.ts|ts:file:src/a.ts#beta()|0 -calls/probable-> src/a.ts|ts:file:src/a.ts#alpha()|0 @1',
      'src/b.ts|ts:file:src/b.ts#delta()|0 -calls/probable-> src/b.ts|ts:file:src/b.ts#gamma()|0 @1',
    ]);
    expect(dump.vectors).toHaveLength(6);
    const repos = await listRepositories(db.ro);
    expect(repos.map((r) => [r.repository, r.label, r.files, r.nodes, r.edges])).toEqual([['acme/app', 'working', 2, 6, 2]]);
  });

  it('publishing the same tree twice writes no new content rows', async () => {
    const db = await freshDatabase();
    const source = index(treeV1()).snapshotSource('working');
    await publish(db.rw, 'acme/app', source);
    const before = await tableCounts(db.rw);
    const again = await publish(db.rw, 'acme/app', source);
    expect(again.written).toEqual({ versions: 0, edgeSets: 0, blobs: 0, chunks: 0, embeddings: 0 });
    // The second snapshot replaced the first: the same one snapshot, 2 snapshot files, 1 label.
    expect(await tableCounts(db.rw)).toEqual(before);
    expect(before).toEqual({ blobs: 2, chunks: 6, embeddings: 6, file_versions: 2, nodes: 6, node_vectors: 6, reexports: 0, edge_sets: 2, edges: 2, snapshots: 1, snapshot_files: 2, labels: 1 });
  });

  it('a second repository sharing a file stores only the content that differs', async () => {
    const db = await freshDatabase();
    await publish(db.rw, 'acme/app', index(treeV1()).snapshotSource('working'));
    // The fork keeps src/a.ts and changes src/b.ts (blob bbbb02): gamma stays, delta becomes epsilon.
    const fork = [sourceFile('src/a.ts', 'aaaa01', ['alpha', 'beta'], [['beta', 'alpha']]), sourceFile('src/b.ts', 'bbbb02', ['gamma', 'epsilon'], [['epsilon', 'gamma']])];
    const report = await publish(db.rw, 'acme/fork', index(fork).snapshotSource('working'));
    // New content: one blob (bbbb02), one chunk text and one vector ("function epsilon() {}");
    // "file src/b.ts", "function gamma() {}" and all of src/a.ts were there. The fork's own
    // occurrences (versions, nodes, edges) are its rows: repository-leading keys.
    expect(report.written).toEqual({ versions: 2, edgeSets: 2, blobs: 1, chunks: 1, embeddings: 1 });
    expect(await tableCounts(db.rw)).toMatchObject({ blobs: 3, chunks: 7, embeddings: 7 });
    expect(await tableCounts(db.rw, 'acme/fork')).toMatchObject({ file_versions: 2, nodes: 6, edges: 2 });
  });
});
