import { spawn, spawnSync } from 'node:child_process';
import { closeSync, cpSync, existsSync, mkdtempSync, openSync, readdirSync, readSync, rmSync, statSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ca, cleanEnv, ROOT } from './helpers.js';

/**
 * Corruption and resource faults (issue 22): a truncated index, flipped bytes in its pages, a
 * `-wal` deleted while a reader holds it, a read-only index directory and a full disk. Each is
 * detected and reported with a clear error, the index is rebuilt by `ca index` (it is only a
 * cache of the source), and no answer is ever different from a clean index's: a command either
 * answers exactly as the clean index does, or fails with its error code. Mounts (a read-only
 * bind mount, a small tmpfs) need root with CAP_SYS_ADMIN; without it those cases are skipped
 * with the reason printed.
 */
const ENV = cleanEnv({ CA_EMBEDDING_ENABLED: 'false' });
/** Questions whose answers make up a digest of an index (ts-app fixture). */
const QUERIES = ['BillingAccount.terminatePlan', 'rate limit', 'UserService'];

interface Digest {
  readonly counts: { files: number; symbols: number; edges: number };
  readonly answers: readonly string[][];
}

/** The counts and the search answers of the index at `db` (default path when absent); or the error code of the first command that failed. */
function digest(repo: string, db?: string): Digest | { error: string } {
  const dbArgs = db ? ['--db', db] : [];
  const s = ca(['status', '--repo', repo, '--json', ...dbArgs], { env: ENV });
  if (s.code !== 0) return { error: (JSON.parse(s.stdout) as { error: { code: string } }).error.code };
  const status = JSON.parse(s.stdout) as { files: number; symbols: number; edges: number };
  const answers: string[][] = [];
  for (const q of QUERIES) {
    const r = ca(['search', q, '--repo', repo, '--json', ...dbArgs], { env: ENV });
    if (r.code !== 0) return { error: (JSON.parse(r.stdout) as { error: { code: string } }).error.code };
    answers.push((JSON.parse(r.stdout) as { results: { qualifiedName: string; path: string; startLine: number }[] }).results.map((x) => `${x.qualifiedName} ${x.path}:${x.startLine}`));
  }
  return { counts: { files: status.files, symbols: status.symbols, edges: status.edges }, answers };
}

function freshRepo(): string {
  const repo = join(mkdtempSync(join(tmpdir(), 'ca-faults-')), 'repo');
  cpSync(join(ROOT, 'fixtures/ts-app'), repo, { recursive: true });
  return repo;
}

function indexed(repo: string, db?: string): void {
  const r = ca(['index', repo, ...(db ? ['--db', db] : [])], { env: ENV, timeoutMs: 300_000 });
  if (r.code !== 0) throw new Error(`ca index ${repo} failed: ${r.stderr}`);
}

function errorOf(r: ReturnType<typeof ca>): { code: number | null; error: string; message: string } {
  const e = (JSON.parse(r.stdout) as { error: { code: string; message: string } }).error;
  return { code: r.code, error: e.code, message: e.message };
}

/** True when this process may mount (root with CAP_SYS_ADMIN): checked by mounting a tiny tmpfs. */
function canMount(): string | null {
  const dir = mkdtempSync(join(tmpdir(), 'ca-mountcheck-'));
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir], { encoding: 'utf8' });
  if (r.status !== 0) return `cannot mount here (${(r.stderr || r.error?.message || 'mount failed').trim()})`;
  spawnSync('umount', [dir]);
  return null;
}

/**
 * A child process holding a read transaction open on `db` (better-sqlite3 from @ca/store's
 * dependencies; the CLI app has no SQLite of its own): resolves once the snapshot is taken;
 * `release()` commits and waits for the child to exit.
 */
async function holdReadSnapshot(db: string): Promise<{ release: () => Promise<void> }> {
  const driver = join(ROOT, 'packages', 'store', 'node_modules', 'better-sqlite3');
  const script = `const D = require(${JSON.stringify(driver)}); const db = new D(${JSON.stringify(db)}); db.exec('BEGIN'); db.prepare('SELECT count(*) FROM nodes').get(); process.stdout.write('ready\\n'); process.stdin.once('data', () => { db.exec('COMMIT'); db.close(); process.exit(0); });`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  await new Promise<void>((res, rej) => {
    child.stdout.once('data', () => res());
    child.once('exit', (code) => rej(new Error(`snapshot holder exited early (${code})`)));
  });
  return {
    release: () =>
      new Promise<void>((res) => {
        child.once('exit', () => res());
        child.stdin.write('go\n');
      }),
  };
}

const mountOff = canMount();
if (mountOff) console.warn(`SKIPPED: the read-only mount and full-disk cases: ${mountOff}`);
const mounted: string[] = [];
function mount(args: string[]): void {
  const r = spawnSync('mount', args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`mount ${args.join(' ')}: ${r.stderr}`);
  mounted.push(args[args.length - 1]!);
}

describe('corruption and resource faults', () => {
  let clean: Digest;
  beforeAll(() => {
    const repo = freshRepo();
    indexed(repo);
    const d = digest(repo);
    if ('error' in d) throw new Error(`clean index failed: ${d.error}`);
    clean = d;
  }, 300_000);

  afterAll(() => {
    for (const m of mounted.reverse()) spawnSync('umount', ['-l', m]);
  });

  it('a truncated index is refused (db_corrupt), then rebuilt by ca index', () => {
    const repo = freshRepo();
    indexed(repo);
    const db = join(repo, '.codeagent', 'index.db');
    const size = statSync(db).size;
    truncateSync(db, Math.floor(size / 2));
    const status = errorOf(ca(['status', '--repo', repo, '--json'], { env: ENV }));
    expect(status.code).toBe(1);
    expect(status.error).toBe('db_corrupt');
    expect(status.message).toMatch(new RegExp(`^index ${db} is truncated: ${Math.floor(size / 2)} bytes, its header says \\d+ pages of \\d+ bytes \\(${size}\\); run \`ca index\` to rebuild it$`));
    indexed(repo);
    expect(readdirSync(join(repo, '.codeagent')).filter((f) => f.startsWith('index.db.corrupt-')).length).toBe(1);
    expect(digest(repo)).toEqual(clean);
  });

  it('flipped bytes in its pages: every answer is the clean one or db_corrupt; ca index rebuilds', () => {
    const repo = freshRepo();
    indexed(repo);
    const db = join(repo, '.codeagent', 'index.db');
    const header = Buffer.alloc(100);
    const fd = openSync(db, 'r+');
    try {
      readSync(fd, header, 0, 100, 0);
      const raw = header.readUInt16BE(16);
      const pageSize = raw === 1 ? 65536 : raw;
      const pages = Math.floor(statSync(db).size / pageSize);
      // One page in the middle: its b-tree page type byte and the next bytes become garbage.
      const victim = Math.floor(pages / 2);
      writeSync(fd, Buffer.from([0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]), 0, 8, victim * pageSize);
    } finally {
      closeSync(fd);
    }
    // Never a different answer: the clean digest, or the corruption reported.
    const d = digest(repo);
    if ('error' in d) expect(d.error).toBe('db_corrupt');
    else expect(d).toEqual(clean);
    const health = ca(['health', '--repo', repo, '--json'], { env: ENV });
    expect(health.code).toBe(1);
    indexed(repo);
    expect(readdirSync(join(repo, '.codeagent')).filter((f) => f.startsWith('index.db.corrupt-')).length).toBe(1);
    expect(digest(repo)).toEqual(clean);
  });

  it('a -wal deleted while a reader holds it: the index stays consistent, ca index brings it up to date', async () => {
    const repo = freshRepo();
    indexed(repo);
    const db = join(repo, '.codeagent', 'index.db');
    // A reader holding a snapshot (another process with an open read transaction): the writer's
    // commits stay in the WAL, no checkpoint can pass the reader.
    const reader = await holdReadSnapshot(db);
    writeFileSync(join(repo, 'src', 'walProbe.ts'), 'export function walProbe(): number {\n  return 42;\n}\n');
    indexed(repo);
    expect(existsSync(`${db}-wal`)).toBe(true);
    rmSync(`${db}-wal`);
    await reader.release();
    // Whatever survived, the file is a consistent database and answers are either the old or the new index's, never damaged.
    const health = ca(['health', '--repo', repo, '--json'], { env: ENV });
    expect(health.code).toBe(0);
    indexed(repo);
    const probe = ca(['search', 'walProbe', '--repo', repo, '--json'], { env: ENV });
    expect((JSON.parse(probe.stdout) as { results: { qualifiedName: string }[] }).results[0]?.qualifiedName).toBe('walProbe');
    // Equal to a clean index of the same tree.
    const other = join(mkdtempSync(join(tmpdir(), 'ca-faults-db-')), 'clean.db');
    indexed(repo, other);
    expect(digest(repo)).toEqual(digest(repo, other));
  });

  it.skipIf(mountOff !== null)('a read-only index directory: read and index commands fail with io_error naming it; the index is intact after', () => {
    const repo = freshRepo();
    indexed(repo);
    const dir = join(repo, '.codeagent');
    mount(['--bind', dir, dir]);
    mount(['-o', 'remount,ro,bind', dir]);
    const db = join(dir, 'index.db');
    for (const args of [['status', '--repo', repo], ['index', repo]]) {
      const e = errorOf(ca([...args, '--json'], { env: ENV }));
      expect(e.code).toBe(1);
      expect(e.error).toBe('io_error');
      expect(e.message).toBe(`cannot open index ${db}: unable to open database file (the index file is on a read-only file system; ca needs write access beside the index for its WAL files)`);
    }
    spawnSync('umount', [dir]);
    mounted.pop();
    expect(digest(repo)).toEqual(clean);
  });

  it('a read-only index file: root writes through permission bits; others get io_error', () => {
    const repo = freshRepo();
    indexed(repo);
    const db = join(repo, '.codeagent', 'index.db');
    spawnSync('chmod', ['444', db]);
    const r = ca(['status', '--repo', repo, '--json'], { env: ENV });
    if (process.getuid?.() === 0) expect(r.code).toBe(0);
    else expect(errorOf(r)).toMatchObject({ code: 1, error: 'io_error' });
  });

  it.skipIf(mountOff !== null)('a full disk: ca index fails with io_error, nothing wrong is served, and a re-run with room completes', () => {
    const repo = freshRepo();
    const small = mkdtempSync(join(tmpdir(), 'ca-full-'));
    // Room for the schema, not for the fixture's index (~430 KB with its WAL): the disk fills mid-index.
    mount(['-t', 'tmpfs', '-o', 'size=700k', 'tmpfs', small]);
    const db = join(small, 'index.db');
    const r = ca(['index', repo, '--db', db, '--json'], { env: ENV, timeoutMs: 300_000 });
    expect(r.code).toBe(1);
    const e = errorOf(r);
    expect(e.error).toBe('io_error');
    expect(e.message).toMatch(/^the disk holding the index is full \(database or disk is full\)$/);
    // While the disk is full even a read command cannot open the index (it writes beside it): the same clear error.
    expect(errorOf(ca(['status', '--repo', repo, '--db', db, '--json'], { env: ENV }))).toEqual({
      code: 1,
      error: 'io_error',
      message: 'the disk holding the index is full (database or disk is full)',
    });
    spawnSync('mount', ['-o', 'remount,size=64m', small]);
    // With room again: the interrupted first index never completed, and read commands say so rather than answer from part of it.
    expect(errorOf(ca(['status', '--repo', repo, '--db', db, '--json'], { env: ENV }))).toMatchObject({ code: 2, error: 'not_indexed' });
    indexed(repo, db);
    expect(digest(repo, db)).toEqual(clean);
  });
});
