import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { Store } from '@ca/store';
import { listRepositories, publish, snapshotDump, tableCounts } from '../src/index.js';
import { freshDatabase, localIndex, postgresAvailable, sourceFile } from './helpers.js';

const run = postgresAvailable();
const opened: Store[] = [];
afterAll(() => opened.forEach((s) => s.close()));

function index(files: Parameters<typeof localIndex>[0], label = 'working'): Store {
  const s = localIndex(files, label);
  opened.push(s);
  return s;
}

const treeV1 = () => [
  sourceFile('src/a.ts', 'aaaa01', ['alpha', 'beta'], [['beta', 'alpha']]),
  sourceFile('src/b.ts', 'bbbb01', ['gamma', 'delta'], [['delta', 'gamma']]),
];
// v2: src/a.ts unchanged, src/b.ts changed (delta → epsilon), src/c.ts new.
const treeV2 = () => [
  sourceFile('src/a.ts', 'aaaa01', ['alpha', 'beta'], [['beta', 'alpha']]),
  sourceFile('src/b.ts', 'bbbb02', ['gamma', 'epsilon'], [['epsilon', 'gamma']]),
  sourceFile('src/c.ts', 'cccc01', ['zeta'], []),
];

/** Starts test/publisher.mjs and resolves once it paused after the first batch of `phase`. */
function pausedPublisher(indexPath: string, url: string, repository: string, phase: string): Promise<ReturnType<typeof spawn>> {
  const child = spawn(process.execPath, [fileURLToPath(new URL('./publisher.mjs', import.meta.url)), indexPath, url, repository, phase], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout!.on('data', (d: Buffer) => { if (d.toString().includes('paused')) resolve(child); });
    child.on('exit', (code) => reject(new Error(`publisher exited (${code}) before pausing: ${err}`)));
  });
}

describe.runIf(run)('publishers at once and killed publishers', () => {
  it('three publishers at once on three repositories and two labels all complete', async () => {
    const db = await freshDatabase();
    const reports = await Promise.all([
      publish(db.rw, 'acme/one', index(treeV1()).snapshotSource('working')),
      publish(db.rw, 'acme/two', index(treeV2()).snapshotSource('working')),
      publish(db.rw, 'acme/one', index(treeV2(), 'release').snapshotSource('release')),
    ]);
    expect(reports.map((r) => [r.repository, r.label, r.files, r.nodes, r.edges])).toEqual([
      ['acme/one', 'working', 2, 6, 2],
      ['acme/two', 'working', 3, 8, 2], // v2: 3 + 3 + 2 nodes (c.ts: file node and zeta), no call in c.ts
      ['acme/one', 'release', 3, 8, 2],
    ]);
    expect((await listRepositories(db.ro)).map((r) => `${r.repository} ${r.label} ${r.files}`)).toEqual([
      'acme/one release 3', 'acme/one working 2', 'acme/two working 3',
    ]);
    // Shared content is stored once across the three: blobs aaaa01, bbbb01, bbbb02, cccc01.
    expect(await tableCounts(db.rw)).toMatchObject({ blobs: 4 });
  });

  it.each(['versions', 'edges'])('a publisher SIGKILLed after the first batch of %s leaves the previous snapshot; the rerun equals a clean publish', async (phase) => {
    const db = await freshDatabase();
    await publish(db.rw, 'acme/app', index(treeV1()).snapshotSource('working'));
    const previous = await snapshotDump(db.ro, 'acme/app', 'working');
    const v2 = index(treeV2());
    const child = await pausedPublisher(v2.path, db.rw, 'acme/app', phase);
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    expect(await snapshotDump(db.ro, 'acme/app', 'working')).toEqual(previous);
    expect((await listRepositories(db.ro)).map((r) => r.files)).toEqual([2]);

    const rerun = await publish(db.rw, 'acme/app', v2.snapshotSource('working'));
    expect([rerun.files, rerun.nodes, rerun.edges]).toEqual([3, 8, 2]);
    // The rerun resumes: killed after the first versions batch (src/a.ts, already there from v1),
    // the versions of src/b.ts and src/c.ts are still to write (2); killed in the edges phase,
    // every version was committed before, so the rerun writes none.
    expect(rerun.written.versions).toBe(phase === 'versions' ? 2 : 0);
    const clean = await freshDatabase();
    await publish(clean.rw, 'acme/app', v2.snapshotSource('working'));
    expect(await snapshotDump(db.ro, 'acme/app', 'working')).toEqual(await snapshotDump(clean.ro, 'acme/app', 'working'));
    // The killed run's building snapshot and the replaced one are gone: one snapshot, 3 files.
    expect(await tableCounts(db.rw, 'acme/app')).toMatchObject({ snapshots: 1, snapshot_files: 3, labels: 1 });
  });
});
