import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChangeGenerator, compare, navigationAnswers, sampleSymbols, snapshot, workspaceOf } from './differential/lib.mjs';
import { Engine, readArtifactHeader, type ArtifactHeader, type EngineOptions } from '../src/index.js';
import { REPO_ROOT, testModels, TS_APP } from './helpers.js';

// `ca export` / `ca import` (decision 045): an index travels as one file and answers the same
// questions where it lands; a damaged file is refused and the index it would replace stays.
const CS = join(REPO_ROOT, 'fixtures', 'cs-solution');
const { dir: MODELS, missing: MODEL_MISSING } = testModels();
// Deadlines far above the runs' needs (as differential.test.ts): a loaded machine must not cut a parse short.
const PATIENT = { indexing: { parse_timeout_ms: 120_000 }, semantic: { request_timeout_ms: 1_800_000 } };
const NO_EMBEDDINGS: EngineOptions = { env: {}, configOverrides: { ...PATIENT, embedding: { enabled: false } } };
const EMBEDDING: EngineOptions = { env: {}, configOverrides: { ...PATIENT, embedding: { model_dir: MODELS, allow_download: false } } };

/** A second copy of `source` named like it (`<tmp>/repo`): the checkout of a teammate. */
function teammateOf(source: string): string {
  const target = join(mkdtempSync(join(tmpdir(), 'ca-import-')), 'repo');
  cpSync(source, target, { recursive: true, filter: (p) => basename(p) !== '.codeagent' });
  return target;
}

const artifactPath = () => join(mkdtempSync(join(tmpdir(), 'ca-artifact-')), 'index.caindex');

/** Answers the round trip must keep: callers (qualified names and places) and the status counts (search: `searchTop`). */
function answers(engine: Engine, callersOf: string) {
  const name = (id: string | null) => (id === null ? null : engine.reader().nodeById(Number(id))!.qualifiedName);
  const status = engine.status();
  return {
    callers: engine.navigate('callers', callersOf).edges.map((e) => `${name(e.from)} ${e.type} ${e.path}:${e.line}`),
    counts: { files: status.files, symbols: status.symbols, edges: status.edges, lines: status.lines, parse: status.parseStatus },
  };
}

async function searchTop(engine: Engine, query: string): Promise<string[]> {
  const r = await engine.search(query, { limit: 5 });
  return r.results.map((x) => `${x.qualifiedName} ${x.path}:${x.startLine}`);
}

describe.skipIf(MODEL_MISSING !== null)('export then import on fixtures/ts-app', () => {
  let source: Engine;
  let header: ArtifactHeader;
  let file: string;
  beforeAll(async () => {
    source = Engine.open(workspaceOf(TS_APP), EMBEDDING);
    await source.index();
    file = artifactPath();
    header = await source.exportArtifact(file);
  }, 240_000);
  afterAll(() => source.close());

  it('writes a header that says what the file holds', () => {
    // 16 files: 13 source files + README.md, package.json, tsconfig.json (documentation files,
    // decision 039); one label, the working tree at the workspace's one commit; every symbol
    // embedded (vectors kept; documentation gets none), contents kept.
    expect(readArtifactHeader(file)).toEqual(header);
    expect(header.format).toBe(1);
    expect(header.repository).toBe('repo');
    expect(header.labels).toEqual([{ name: 'working', kind: 'working', commit: source.labels()[0]!.commit, files: 16 }]);
    expect(header.vectors).toEqual({ model: 'all-MiniLM-L6-v2', revision: source.store.vectors.model()!.revision, dims: 384, count: source.store.vectors.count() });
    expect(header.contents).toBe(true);
    expect(header.payloadBytes).toBe(statSync(file).size - 'ca-index-artifact\n'.length - 4 - Buffer.byteLength(JSON.stringify(header)));
  });

  it('answers callers, search and status the same in the teammate\'s checkout', async () => {
    const target = Engine.open(teammateOf(source.repoRoot), EMBEDDING);
    try {
      await target.importArtifact(file);
      // AuthService.issueToken is called by login (line 32) and refresh (line 46) of authService.ts.
      const expected = ['AuthService.login calls src/auth/authService.ts:32', 'AuthService.refresh calls src/auth/authService.ts:46'];
      expect(answers(source, 'AuthService.issueToken').callers).toEqual(expected);
      expect(answers(target, 'AuthService.issueToken')).toEqual(answers(source, 'AuthService.issueToken'));
      expect(target.status().files).toBe(16); // 13 source files + README.md, package.json, tsconfig.json (documentation files, decision 039)
      const top = await searchTop(target, 'login');
      expect(top[0]).toBe('AuthService.login src/auth/authService.ts:22');
      expect(top).toEqual(await searchTop(source, 'login'));
      expect(target.store.canonicalDump()).toEqual(source.store.canonicalDump());
      // Nothing changed in the tree: the incremental index after the import parses nothing and embeds nothing.
      const r = await target.index();
      expect([r.changed, r.removed, r.blobs.parsed, r.blobs.embedded]).toEqual([0, 0, 0, 0]);
    } finally {
      target.close();
    }
  }, 240_000);

  it('--no-vectors: status says the vectors are missing; the next index embeds the same vectors', async () => {
    const bare = artifactPath();
    const h = await source.exportArtifact(bare, { vectors: false });
    expect(h.vectors).toBeNull();
    expect(h.payloadBytes).toBeLessThan(header.payloadBytes);
    const target = Engine.open(teammateOf(source.repoRoot), EMBEDDING);
    try {
      await target.importArtifact(bare);
      expect(target.status().vectorChannel).toBe('off: imported without vectors (the next ca index embeds them)');
      expect(target.status().importedFrom).toMatchObject({ repository: 'repo', vectors: false, contents: true });
      expect(target.store.canonicalDump().vectors.size).toBe(0);
      const r = await target.index();
      // 92 nodes to embed: 13 file nodes and 79 symbols (embedding.test.ts derives the same).
      expect(r.blobs.embedded).toBe(92);
      expect(target.store.canonicalDump().vectors).toEqual(source.store.canonicalDump().vectors);
    } finally {
      target.close();
    }
  }, 240_000);
});

describe('--no-contents', () => {
  let source: Engine;
  let file: string;
  beforeAll(async () => {
    source = Engine.open(workspaceOf(TS_APP), NO_EMBEDDINGS);
    await source.index();
    // A commit label: its files are read from the stored copies only.
    await source.indexCommit('base', 'HEAD');
    file = artifactPath();
    await source.exportArtifact(file, { contents: false });
  }, 240_000);
  afterAll(() => source.close());

  it('source and view read the working tree while it holds the indexed version, and say so when it does not', async () => {
    const repo = teammateOf(source.repoRoot);
    const target = Engine.open(repo, NO_EMBEDDINGS);
    try {
      const h = await target.importArtifact(file);
      expect([h.contents, h.labels.map((l) => l.name)]).toEqual([false, ['base', 'working']]);
      const login = target.source('AuthService.login');
      expect([login.stale, login.code.split('\n')[0]]).toEqual([false, 'async login(user: string, password: string): Promise<Session> {']);
      // The commit label has no stored copy, but the working tree holds the same blob: same bytes.
      expect(target.fileBytes('src/auth/authService.ts', 'base')).toEqual(readFileSync(join(repo, 'src/auth/authService.ts')));
      // After an edit the working tree no longer holds that version: the source is the indexed
      // (collapsed) chunk text, marked stale, and view refuses with the reason.
      writeFileSync(join(repo, 'src/auth/authService.ts'), `// edited\n${readFileSync(join(repo, 'src/auth/authService.ts'), 'utf8')}`);
      expect(target.source('AuthService.login').stale).toBe(true);
      expect(target.fileBytes('src/auth/authService.ts', 'base')).toBeNull();
      expect(() => target.view('src/auth/authService.ts')).toThrow(/imported without contents/);
      expect(target.status().importedFrom).toMatchObject({ vectors: true, contents: false });
    } finally {
      target.close();
    }
  }, 240_000);

  it('--label base keeps only that label; the first index of the working tree reuses its 16 versions', async () => {
    // A crawl in progress (a staging label) is never part of an artifact: the importer's crawl
    // of the same label and commit starts anew instead of resuming it.
    const commit = source.labels().find((l) => l.name === 'base')!.commit!;
    expect(source.store.labels.beginCrawl('half', commit).resumed).toBe(false);
    expect(source.store.labels.beginCrawl('half', commit).resumed).toBe(true);
    const only = artifactPath();
    const h = await source.exportArtifact(only, { labels: ['base'] });
    // base: 13 source files + README.md, package.json, tsconfig.json (documentation files, decision 039).
    expect(h.labels.map((l) => [l.name, l.kind, l.files])).toEqual([['base', 'commit', 16]]);
    await expect(source.exportArtifact(artifactPath(), { labels: ['nope'] })).rejects.toMatchObject({ code: 'unknown_label' });
    const target = Engine.open(teammateOf(source.repoRoot), NO_EMBEDDINGS);
    try {
      await target.importArtifact(only);
      expect(target.labels().map((l) => l.name)).toEqual(['base']);
      expect(target.store.labels.beginCrawl('half', commit).resumed).toBe(false);
      // The checkout is the commit `base` was indexed at: every file is a version the index holds.
      const r = await target.index();
      expect([r.blobs.parsed, r.blobs.reused, r.files]).toEqual([0, 16, 16]);
      expect(target.labels().map((l) => l.name)).toEqual(['base', 'working']);
    } finally {
      target.close();
    }
  }, 240_000);
});

describe('importing then indexing incrementally equals a fresh index', () => {
  it.each([1, 2])('seed %i: three generated edits after the export, on fixtures/ts-app', async (seed) => {
    const exporter = Engine.open(workspaceOf(TS_APP), NO_EMBEDDINGS);
    const file = artifactPath();
    try {
      await exporter.index();
      await exporter.exportArtifact(file);
    } finally {
      exporter.close();
    }
    // The teammate's checkout: the same tree, then three edits drawn by the differential
    // generator (from the index's own symbols), then an import and an incremental index.
    const repo = workspaceOf(TS_APP);
    let target = Engine.open(repo, NO_EMBEDDINGS);
    try {
      await target.importArtifact(file);
      const generator = new ChangeGenerator(repo, seed);
      for (let n = 1; n <= 3; n++) {
        generator.step(target, n);
        await target.index();
      }
      // What the clean index is compared with: a copy of the edited tree indexed from nothing.
      target.close();
      target = Engine.open(repo, NO_EMBEDDINGS);
      const cleanCopy = teammateOf(repo);
      const fresh = Engine.open(cleanCopy, NO_EMBEDDINGS);
      try {
        await fresh.index();
        const freshSnap = snapshot(fresh, []);
        const names = sampleSymbols(freshSnap.dump, seed, 6);
        expect(names.length).toBeGreaterThan(0);
        expect(compare({ dump: freshSnap.dump, answers: navigationAnswers(fresh, names) }, snapshot(target, names))).toEqual([]);
      } finally {
        fresh.close();
      }
    } finally {
      target.close();
    }
  }, 480_000);
});

describe('fixtures/cs-solution round trip (syntactic: the semantic pass is not what travels)', () => {
  it('answers callers of RateLimiter.WaitForTokenAsync and the status counts the same after an import', async () => {
    const options: EngineOptions = { env: {}, configOverrides: { ...PATIENT, embedding: { enabled: false }, semantic: { enabled: false } } };
    const source = Engine.open(workspaceOf(CS), options);
    const target = Engine.open(teammateOf(source.repoRoot), options);
    try {
      await source.index();
      const file = artifactPath();
      await source.exportArtifact(file);
      await target.importArtifact(file);
      const a = answers(source, 'Acme.Core.Billing.RateLimiter.WaitForTokenAsync');
      // Its one call: `await WaitForTokenAsync(cancellationToken);` in ExecuteAsync, line 29 of RateLimiter.cs.
      expect(a.callers).toEqual(['Acme.Core.Billing.RateLimiter.ExecuteAsync calls src/Acme.Core/Billing/RateLimiter.cs:29']);
      expect(answers(target, 'Acme.Core.Billing.RateLimiter.WaitForTokenAsync')).toEqual(a);
      const top = await searchTop(target, 'rate limiter retry');
      expect(top[0]).toMatch(/^Acme\.Core\.Billing\.RateLimiter/);
      expect(top).toEqual(await searchTop(source, 'rate limiter retry'));
      expect(target.store.canonicalDump()).toEqual(source.store.canonicalDump());
    } finally {
      source.close();
      target.close();
    }
  }, 240_000);
});

describe('a bad artifact is refused and the index it would replace stays', () => {
  let source: Engine;
  let target: Engine;
  let file: string;
  let before: ReturnType<Engine['store']['canonicalDump']>;
  beforeAll(async () => {
    source = Engine.open(workspaceOf(TS_APP), NO_EMBEDDINGS);
    await source.index();
    file = artifactPath();
    await source.exportArtifact(file);
    // The teammate already has an index, of an older tree (one file less): what must survive
    // (15 files: 12 source files + README.md, package.json, tsconfig.json, decision 039).
    const repo = teammateOf(source.repoRoot);
    rmSync(join(repo, 'src/legacy/helpers.js'));
    target = Engine.open(repo, NO_EMBEDDINGS);
    await target.index();
    before = target.store.canonicalDump();
    expect(target.status().files).toBe(15);
  }, 240_000);
  afterAll(() => {
    source.close();
    target.close();
  });

  /** Imports `bytes` (written to a file) and returns the error's code and message. */
  async function refused(bytes: Buffer): Promise<{ code: string; message: string }> {
    const bad = join(dirname(file), `bad-${Math.random().toString(36).slice(2)}.caindex`);
    writeFileSync(bad, bytes);
    try {
      await target.importArtifact(bad);
    } catch (e) {
      return { code: (e as { code: string }).code, message: (e as Error).message };
    } finally {
      rmSync(bad, { force: true });
    }
    throw new Error('the import succeeded');
  }

  const stays = () => {
    expect(target.store.canonicalDump()).toEqual(before);
    expect(target.status().files).toBe(15);
  };

  it('not an artifact: artifact_invalid', async () => {
    expect((await refused(Buffer.from('{"hello": "world"}\n'))).code).toBe('artifact_invalid');
    stays();
  });

  it('cut anywhere: artifact_corrupt, or artifact_invalid inside the magic', async () => {
    const whole = readFileSync(file);
    const payloadStart = whole.length - readArtifactHeader(file).payloadBytes;
    for (const [at, code] of [[5, 'artifact_invalid'], [20, 'artifact_corrupt'], [payloadStart - 3, 'artifact_corrupt'], [payloadStart + 100, 'artifact_corrupt'], [whole.length - 1, 'artifact_corrupt']] as const) {
      const r = await refused(whole.subarray(0, at));
      expect([at, r.code]).toEqual([at, code]);
      if (at > payloadStart) expect(r.message).toMatch(/truncated/);
    }
    stays();
  });

  it('a flipped byte anywhere (generated positions): refused, never installed', async () => {
    const whole = readFileSync(file);
    let state = 7;
    const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0);
    // Positions: a few in the magic and the header's length, the rest over the header and payload.
    const positions = [0, 17, 18, 21, ...Array.from({ length: 20 }, () => 22 + (next() % (whole.length - 22)))];
    for (const at of positions) {
      const bytes = Buffer.from(whole);
      bytes[at] = bytes[at]! ^ 0x20;
      const r = await refused(bytes);
      // A flipped digit of the schema version can make it newer than this tool: refused too.
      expect([at, ['artifact_invalid', 'artifact_corrupt', 'schema_too_new'].includes(r.code)]).toEqual([at, true]);
    }
    stays();
  }, 240_000);

  it('a schema newer than this tool: schema_too_new, named', async () => {
    const whole = readFileSync(file);
    const h = readArtifactHeader(file);
    const json = Buffer.from(JSON.stringify({ ...h, schemaVersion: 999 }));
    const length = Buffer.alloc(4);
    length.writeUInt32BE(json.length);
    const payload = whole.subarray(whole.length - h.payloadBytes);
    const r = await refused(Buffer.concat([Buffer.from('ca-index-artifact\n'), length, json, payload]));
    expect(r.code).toBe('schema_too_new');
    expect(r.message).toMatch(/schema version 999 .* newer than this ca supports/);
    stays();
  });

  it('another repository: artifact_mismatch unless forced', async () => {
    const other = join(mkdtempSync(join(tmpdir(), 'ca-import-')), 'elsewhere');
    cpSync(target.repoRoot, other, { recursive: true, filter: (p) => basename(p) !== '.codeagent' });
    const engine = Engine.open(other, NO_EMBEDDINGS);
    try {
      await expect(engine.importArtifact(file)).rejects.toMatchObject({ code: 'artifact_mismatch' });
      await engine.importArtifact(file, { force: true });
      expect(engine.status().files).toBe(16); // 13 source files + README.md, package.json, tsconfig.json (documentation files, decision 039)
    } finally {
      engine.close();
    }
  });

  it('an index run in another process holds the lock: db_locked, nothing replaced', async () => {
    // The lock file as a live indexer on this host leaves it (the parent process is alive).
    writeFileSync(`${target.dbPath}.lock`, JSON.stringify({ pid: process.ppid, host: hostname(), label: 'working', since: new Date().toISOString() }));
    try {
      await expect(target.importArtifact(file)).rejects.toMatchObject({ code: 'db_locked' });
    } finally {
      rmSync(`${target.dbPath}.lock`, { force: true });
    }
    stays();
  });

  it('an intact artifact then replaces the index (16 files)', async () => {
    await target.importArtifact(file);
    expect(target.store.canonicalDump()).toEqual(source.store.canonicalDump());
    // The temporary database beside the index is gone.
    expect(execFileSync('ls', [dirname(target.dbPath)], { encoding: 'utf8' })).not.toMatch(/import-/);
  });
});
