import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../src/index.js';
import { copyFixture, dbOf, tempDir, TS_APP } from './helpers.js';

const OFF = { embedding: { enabled: false } };
/** One file per transaction: an interrupted crawl leaves a known number of staged files. */
const ONE_PER_BATCH = { ...OFF, indexing: { batch_files: 1, workers: 0 } };

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } }).trim();
}

/** A git repository from fixtures/ts-app: `main` (the fixture) and `feature` (two blobs differ). */
function makeRepo(): { repo: string; main: string; feature: string } {
  const repo = copyFixture(TS_APP);
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'fixture');
  const main = git(repo, 'rev-parse', 'HEAD');
  git(repo, 'checkout', '-q', '-b', 'feature');
  // 1. format.ts gains a function; 2. a new file calls formatCurrency.
  writeFileSync(join(repo, 'src/utils/format.ts'), `${execFileSync('cat', [join(repo, 'src/utils/format.ts')], { encoding: 'utf8' })}\n/** A fraction as a percentage, e.g. \`12.5%\`. */\nexport function formatPercent(value: number): string {\n  return \`\${(value * 100).toFixed(1)}%\`;\n}\n`);
  writeFileSync(
    join(repo, 'src/billing/refund.ts'),
    `import { formatCurrency } from '../utils/format';\n\n/** The refund line shown to the customer. */\nexport function refundLabel(cents: number): string {\n  return 'Refund of ' + formatCurrency(cents);\n}\n`,
  );
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'refunds');
  const feature = git(repo, 'rev-parse', 'HEAD');
  git(repo, 'checkout', '-q', 'main');
  return { repo, main, feature };
}

const callerNames = (engine: Engine, label?: string) =>
  engine
    .navigate('callers', 'formatCurrency', label === undefined ? {} : { label })
    .nodes.filter((n) => n.depth > 0)
    .map((n) => n.qualifiedName)
    .sort();

describe('labels: commits indexed from git objects, per-label answers, gc', () => {
  let repo: string;
  let commits: { main: string; feature: string };
  let engine: Engine;

  beforeAll(async () => {
    const made = makeRepo();
    repo = made.repo;
    commits = made;
    engine = Engine.open(repo, { env: {}, configOverrides: OFF });
    const first = await engine.index();
    // ts-app: 13 source files + README.md, package.json, tsconfig.json (decision 039), all parsed.
    expect([first.label, first.commit, first.files, first.blobs.parsed, first.blobs.reused]).toEqual(['working', made.main, 16, 16, 0]);
  }, 120_000);
  afterAll(() => engine.close());

  it('indexing the second label parses only the blobs that differ (format.ts, refund.ts) and reuses the other 15', async () => {
    const r = await engine.indexCommit('feature', 'feature');
    // 17 files: the 14 source files of feature (13 + refund.ts) + README.md, package.json,
    // tsconfig.json (decision 039); reused: 12 unchanged source files + those 3.
    expect([r.label, r.commit, r.files, r.blobs.parsed, r.blobs.reused, r.changed]).toEqual(['feature', commits.feature, 17, 2, 15, 2]);
    // The new versions got their exact edges from the commit's own content.
    expect(r.semantic?.ts?.files).toBe(2);
    expect(engine.labels().map((l) => [l.name, l.kind, l.commit, l.files])).toEqual([
      ['feature', 'commit', commits.feature, 17],
      ['working', 'working', commits.main, 16],
    ]);
  }, 120_000);

  it('search and callers answer per label', async () => {
    const inFeature = await engine.search('formatPercent', { label: 'feature', limit: 1, channels: ['name'] });
    expect(inFeature.results.map((x) => [x.qualifiedName, x.path])).toEqual([['formatPercent', 'src/utils/format.ts']]);
    const inWorking = await engine.search('formatPercent', { limit: 1, channels: ['name'] });
    expect(inWorking.results).toEqual([]);
    // billingAccount.ts is one version shared by both labels; refund.ts exists in feature only.
    expect(callerNames(engine)).toEqual(['BillingAccount.outstanding']);
    expect(callerNames(engine, 'feature')).toEqual(['BillingAccount.outstanding', 'refundLabel']);
  });

  it('an unknown label is a clear error', async () => {
    await expect(engine.search('x', { label: 'nope' })).rejects.toMatchObject({ code: 'unknown_label', message: 'no label "nope" in this index (labels: feature, working)' });
    expect(() => engine.navigate('callers', 'formatCurrency', { label: 'nope' })).toThrowError(expect.objectContaining({ code: 'unknown_label' }));
  });

  it('label rm + gc reclaims exactly the rows only the removed label held', async () => {
    const db = dbOf(engine);
    // The feature label's own versions: those no other label holds.
    const own = db
      .prepare(
        `SELECT f.id FROM files f JOIN label_files lf ON lf.file_id = f.id JOIN labels l ON l.id = lf.label_id AND l.name = 'feature'
         WHERE NOT EXISTS (SELECT 1 FROM label_files o JOIN labels ol ON ol.id = o.label_id WHERE o.file_id = f.id AND ol.name <> 'feature')`,
      )
      .pluck()
      .all() as number[];
    expect(own.length).toBe(2);
    const count = (sql: string) => db.prepare(sql.replace('?', own.join(','))).pluck().get() as number;
    const nodes = count(`SELECT COUNT(*) FROM nodes WHERE file_id IN (?)`);
    const edges = count(`SELECT COUNT(*) FROM edges WHERE file_id IN (?)`);
    const totalFiles = count(`SELECT COUNT(*) FROM files`);
    // The label's 17 files: 14 source files + 3 documentation files (decision 039).
    expect(engine.removeLabel('feature')).toBe(17);
    const r = engine.gc();
    expect([r.versions, r.nodes, r.ftsRows, r.edges, r.contents]).toEqual([2, nodes, nodes, edges, 2]);
    expect(db.prepare(`SELECT COUNT(*) FROM files`).pluck().get()).toBe(totalFiles - 2);
    expect(engine.labels().map((l) => l.name)).toEqual(['working']);
    // The working label's answers are unchanged.
    expect(callerNames(engine)).toEqual(['BillingAccount.outstanding']);
    // Nothing left to reclaim.
    expect(engine.gc()).toMatchObject({ versions: 0, nodes: 0, edges: 0, embeddings: 0, contents: 0 });
  }, 60_000);

  it('a checkout in the working tree: freshness says HEAD moved; the next run reuses the blobs it knows and follows HEAD', async () => {
    git(repo, 'checkout', '-q', 'feature');
    expect(engine.freshness()).toMatchObject({ label: 'working', commit: commits.main, head: commits.feature, headMoved: true, branch: 'feature', uncommittedChanges: false });
    // As `ca watch` runs it after a HEAD move: no paths of its own, git names the two that differ.
    const r = await engine.index({ paths: [] });
    // 17 files: feature's 14 source files + README.md, package.json, tsconfig.json (decision 039).
    expect([r.changed, r.removed, r.blobs.parsed + r.blobs.reused, r.files]).toEqual([2, 0, 2, 17]);
    expect(engine.freshness()).toMatchObject({ commit: commits.feature, head: commits.feature, headMoved: false, uncommittedChanges: false });
    expect(callerNames(engine)).toEqual(['BillingAccount.outstanding', 'refundLabel']);
    // An uncommitted edit: the next index records it.
    writeFileSync(join(repo, 'src/billing/refund.ts'), 'export const refundNote = 1;\n');
    await engine.index();
    expect(engine.freshness()).toMatchObject({ commit: commits.feature, headMoved: false, uncommittedChanges: true });
    git(repo, 'checkout', '-q', '--', 'src/billing/refund.ts');
    git(repo, 'checkout', '-q', 'main');
    await engine.index();
  }, 120_000);

  it('git mv keeps the moved symbols’ node ids; nothing is parsed; importers of the old path lose the edges a clean index lacks', async () => {
    const before = engine.outline('src/billing/invoice.ts').map((n) => [n.qualifiedName, n.id]);
    const callers = engine.navigate('callers', 'Billing.Invoice.void').edges.map((e) => [e.from, e.to]);
    git(repo, 'mv', 'src/billing/invoice.ts', 'src/billing/invoices.ts');
    const r = await engine.index();
    expect([r.changed, r.removed, r.blobs.moved]).toEqual([0, 0, 1]);
    const after = engine.outline('src/billing/invoices.ts').map((n) => [n.qualifiedName, n.id]);
    // Same ids; the file's own node is named after its new path.
    expect(after).toEqual(before.map(([q, id]) => [q === 'src/billing/invoice.ts' ? 'src/billing/invoices.ts' : q, id]));
    expect(before[0]).toEqual(['src/billing/invoice.ts', before[0]![1]]);
    // The one caller, BillingAccount.terminatePlan, reaches it through `import … from './invoice'`: a
    // path that no longer exists, so, as in a clean index of this tree, it is no caller now (decision 022).
    expect(callers.length).toBe(1);
    expect(engine.navigate('callers', 'Billing.Invoice.void').edges).toEqual([]);
    // Journaled as nothing: no symbol was deleted.
    expect(dbOf(engine).prepare(`SELECT COUNT(*) FROM deletion_log WHERE path LIKE 'src/billing/invoice%'`).pluck().get()).toBe(0);
    git(repo, 'mv', 'src/billing/invoices.ts', 'src/billing/invoice.ts');
    await engine.index();
    expect(engine.navigate('callers', 'Billing.Invoice.void').edges.map((e) => [e.from, e.to])).toEqual(callers);
  }, 120_000);
});

describe('an interrupted crawl leaves the label at its previous commit and resumes', () => {
  it('stops after 2 staged files; the label still answers for main; the next call parses only the rest', async () => {
    const { repo, main, feature } = makeRepo();
    const engine = Engine.open(repo, { env: {}, configOverrides: ONE_PER_BATCH });
    try {
      await engine.indexCommit('release', main);
      // Moving `release` to feature: 2 versions to write; the crawl dies after the first one.
      let writes = 0;
      await expect(
        engine.indexCommit('release', feature, {
          onProgress: (p) => {
            if (p.phase === 'write' && ++writes === 1) throw new Error('killed');
          },
        }),
      ).rejects.toThrow('killed');
      expect(engine.labels().find((l) => l.name === 'release')).toMatchObject({ commit: main, files: 16 });
      expect((await engine.search('formatPercent', { label: 'release', channels: ['name'] })).results).toEqual([]);
      const resumed = await engine.indexCommit('release', feature);
      // One of the two new versions was staged before the interruption: only the other is parsed.
      // 17 files: feature's 14 source files + the 3 documentation files (decision 039).
    expect([resumed.commit, resumed.files, resumed.blobs.parsed]).toEqual([feature, 17, 1]);
      expect((await engine.search('formatPercent', { label: 'release', channels: ['name'], limit: 1 })).results.map((x) => x.path)).toEqual(['src/utils/format.ts']);
    } finally {
      engine.close();
    }
  }, 120_000);
});

describe('label bad input', () => {
  let repo: string;
  let engine: Engine;
  beforeAll(() => {
    repo = makeRepo().repo;
    engine = Engine.open(repo, { env: {}, configOverrides: OFF });
  });
  afterAll(() => engine.close());

  it.each([
    ['a/b', 'contains "/"'],
    ['a b', 'contains whitespace'],
    ['-x', 'starts with "-"'],
    ['working', '"working" names the working tree; index it without --label'],
    ['', 'empty'],
  ])('label name %j → usage error (%s)', async (name, why) => {
    await expect(engine.indexCommit(name, 'main')).rejects.toMatchObject({ code: 'usage', message: expect.stringContaining(why) });
  });

  it.each([
    ['no-such-branch', '"no-such-branch" is not a commit of'],
    ['--output=/tmp/x', 'a revision cannot start with "-"'],
    ['main..feature', 'ranges are not revisions'],
    ['HEAD:src', 'characters : ? * [ \\ are not allowed'],
    ['main^{tree}', '"main^{tree}" is not a commit of'],
  ])('--commit %j → usage error (%s)', async (rev, why) => {
    await expect(engine.indexCommit('x', rev)).rejects.toMatchObject({ code: 'usage', message: expect.stringContaining(why) });
    expect(engine.labels().map((l) => l.name)).toEqual([]);
  });

  it('a directory that is not a git repository has only the working label', async () => {
    const plain = tempDir();
    mkdirSync(join(plain, 'src'));
    writeFileSync(join(plain, 'src/a.ts'), 'export const a = 1;\n');
    const e = Engine.open(plain, { env: {}, configOverrides: OFF });
    try {
      await expect(e.indexCommit('main', 'HEAD')).rejects.toMatchObject({ code: 'usage', message: `${plain} is not a git repository: indexing a commit (--commit HEAD) needs one` });
      const r = await e.index();
      expect([r.label, r.commit, r.files]).toEqual(['working', null, 1]);
      expect(e.freshness()).toMatchObject({ commit: null, head: null, headMoved: false, uncommittedChanges: null });
    } finally {
      e.close();
    }
  });

  it('a blob missing from the object store (a partial copy) is skipped with the reason; the rest is indexed', async () => {
    const copy = join(tempDir(), 'partial');
    execFileSync('git', ['clone', '-q', '--no-hardlinks', repo, copy]);
    git(copy, 'checkout', '-q', 'feature');
    const blob = git(copy, 'rev-parse', 'feature:src/billing/refund.ts');
    rmSync(join(copy, '.git', 'objects', blob.slice(0, 2), blob.slice(2)));
    const e = Engine.open(copy, { env: {}, configOverrides: OFF });
    try {
      const r = await e.indexCommit('partial', 'feature');
      expect([r.files, r.skipped]).toEqual([17, 1]); // + README.md, package.json, tsconfig.json (decision 039)
      expect(e.status({ label: 'partial' }).problems).toEqual([
        { path: 'src/billing/refund.ts', status: 'skipped', reason: 'git object missing from the repository (a partial or shallow clone)' },
      ]);
    } finally {
      e.close();
    }
  }, 120_000);

  it('a shallow clone without the older commit says so', async () => {
    const shallow = join(tempDir(), 'shallow');
    execFileSync('git', ['clone', '-q', '--depth', '1', '--branch', 'feature', `file://${repo}`, shallow]);
    const e = Engine.open(shallow, { env: {}, configOverrides: OFF });
    try {
      await expect(e.indexCommit('old', 'HEAD~1')).rejects.toMatchObject({ code: 'usage', message: expect.stringContaining('(this is a shallow clone: older commits are missing)') });
    } finally {
      e.close();
    }
  });
});

describe('git worktrees of one repository share one index', () => {
  it('a second worktree is its own label in the main worktree’s index and parses only what differs', async () => {
    const { repo } = makeRepo();
    const main = Engine.open(repo, { env: {}, configOverrides: OFF });
    await main.index();
    main.close();
    const second = join(tempDir(), 'wt2');
    git(repo, 'worktree', 'add', '-q', second, 'feature');
    const e = Engine.open(second, { env: {}, configOverrides: OFF });
    try {
      expect([e.dbPath, e.workingLabel]).toEqual([join(repo, '.codeagent', 'index.db'), 'working@wt2']);
      const r = await e.index();
      expect([r.label, r.files, r.blobs.parsed, r.blobs.reused]).toEqual(['working@wt2', 17, 2, 15]); // + 3 documentation files, reused (decision 039)
      expect(e.labels().map((l) => [l.name, l.worktree])).toEqual([
        ['working', repo],
        ['working@wt2', second],
      ]);
      // `working` in the second worktree names its own label.
      expect((await e.search('refundLabel', { label: 'working', channels: ['name'], limit: 1 })).results.map((x) => x.path)).toEqual(['src/billing/refund.ts']);
    } finally {
      e.close();
    }
  }, 120_000);
});
