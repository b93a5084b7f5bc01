import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../../..');
const BIN = join(ROOT, 'apps/cli/dist/main.js');
const ENV = { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CA_'))), CA_EMBEDDING_ENABLED: 'false' };

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((res) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: ENV });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => res({ code, stdout, stderr }));
  });
}

describe('concurrent index runs and readers on one repository', () => {
  let repo: string;
  beforeAll(() => {
    repo = join(mkdtempSync(join(tmpdir(), 'ca-concurrency-')), 'repo');
    cpSync(join(ROOT, 'fixtures/ts-monorepo'), repo, { recursive: true });
  });

  it('two ca index at once: one runs, the other waits for it and says so; both succeed, the index is intact', async () => {
    const [a, b] = await Promise.all([run(['index', repo, '--json']), run(['index', repo, '--json'])]);
    expect([a.code, b.code]).toEqual([0, 0]);
    const waited = [a, b].filter((r) => /^waiting for another indexer \(pid \d+, working\) to finish…$/m.test(r.stderr));
    expect(waited.length).toBe(1);
    // The second run found the first one's work done: nothing parsed again.
    const reports = [a, b].map((r) => JSON.parse(r.stdout) as { changed: number; files: number });
    expect(reports.map((r) => r.changed).sort()).toEqual([0, reports.find((r) => r.changed > 0)!.changed]);
    const db = new BetterSqlite3(join(repo, '.codeagent/index.db'), { readonly: true });
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    db.close();
  }, 300_000);

  it('searches and navigation in a loop while the index is rewritten: no errors, every answer whole', async () => {
    let stop = false;
    const errors: string[] = [];
    let answers = 0;
    const reader = (async () => {
      while (!stop) {
        for (const args of [
          ['search', 'formatMoney', '--repo', repo, '--json'],
          ['callers', 'formatMoney', '--repo', repo, '--json', '--all'],
        ]) {
          const r = spawnSync(process.execPath, [BIN, ...args], { env: ENV, encoding: 'utf8' });
          if (r.status !== 0) errors.push(`${args[0]}: exit ${r.status}: ${r.stderr.trim()}`);
          else answers++;
        }
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    // Three rounds of edits, each indexed while the readers read.
    for (let round = 0; round < 3; round++) {
      writeFileSync(join(repo, 'packages/core/src/extra.ts'), `import { formatMoney } from './money';\nexport function extra${round}(): string {\n  return formatMoney({ amount: ${round}, currency: 'EUR' });\n}\n`);
      const r = await run(['index', repo, '--json']);
      expect(r.code).toBe(0);
    }
    stop = true;
    await reader;
    expect(errors).toEqual([]);
    expect(answers).toBeGreaterThan(0);
  }, 300_000);
});
