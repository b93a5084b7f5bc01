import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerTokens } from '@ca/engine';
import { ROOT, ca, cleanEnv } from './helpers.js';

/**
 * `--max-tokens` on navigation commands: the printed text (JSON or human) is measured and the
 * page from `--offset` that fits is printed. impact of TokenStore.save at depth 5 on
 * fixtures/ts-app has four nodes (AuthService.login, AuthService.refresh, MemoryTokenStore.save,
 * App), one edge each; the units are node, edge, node, edge, …
 */
describe('ca navigation under --max-tokens', () => {
  let repo: string;
  const env = cleanEnv({ CA_EMBEDDING_ENABLED: 'false' });
  beforeAll(() => {
    repo = join(mkdtempSync(join(tmpdir(), 'ca-cli-budget-')), 'repo');
    cpSync(join(ROOT, 'fixtures/ts-app'), repo, { recursive: true });
    expect(ca(['index', repo, '--json'], { env }).code).toBe(0);
  }, 120_000);
  afterAll(() => rmSync(join(repo, '..'), { recursive: true, force: true }));

  const impact = (...extra: string[]) => ca(['impact', 'TokenStore.save', '--repo', repo, '--depth', '5', ...extra], { env });

  it('--json: the default budget holds the whole answer; a small one pages it, every unit once, each page within it', () => {
    const whole = JSON.parse(impact('--json').stdout);
    expect([whole.nodes.length, whole.edges.length, whole.offset, whole.nextOffset, whole.notices]).toEqual([4, 4, 0, null, []]);
    const nodes: string[] = [];
    const edges: string[] = [];
    const notices: string[][] = [];
    for (let offset: number | null = 0; offset !== null; ) {
      const r = impact('--json', '--max-tokens', '700', '--offset', String(offset));
      expect(r.code).toBe(0);
      expect(answerTokens([r.stdout.replace(/\n$/, '')])).toBeLessThanOrEqual(700);
      const page = JSON.parse(r.stdout);
      nodes.push(...page.nodes.map((n: any) => n.qualifiedName));
      edges.push(...page.edges.map((e: any) => `${e.type} ${e.path}:${e.line}`));
      notices.push(page.notices);
      offset = page.nextOffset;
    }
    expect(nodes).toEqual(whole.nodes.map((n: any) => n.qualifiedName));
    expect(edges).toEqual(whole.edges.map((e: any) => `${e.type} ${e.path}:${e.line}`));
    // The pretty-printed head takes about 500 tokens, a node with its edge about 150: one pair per page.
    expect(notices).toEqual([
      ['answer cut at 700 tokens: kept 1 of 4 nodes and 1 of 4 edges (from offset 0); call again with offset 2 for the next page'],
      ['answer cut at 700 tokens: kept 1 of 4 nodes and 1 of 4 edges (from offset 2); call again with offset 4 for the next page'],
      ['answer cut at 700 tokens: kept 1 of 4 nodes and 1 of 4 edges (from offset 4); call again with offset 6 for the next page'],
      [],
    ]);
  }, 120_000);

  it('text: the page that fits, with the notice as the last line', () => {
    const r = impact('--max-tokens', '100');
    expect(r.stdout).toBe(
      [
        'impact of TokenStore.save (method) src/auth/tokenStore.ts:9-9',
        '  src/auth/authService.ts',
        '    AuthService.login (method) :22  depth 1  via TokenStore.save',
        '    AuthService.refresh (method) :41  depth 1  via TokenStore.save',
        'notice: answer cut at 100 tokens: kept 2 of 4 nodes and 2 of 4 edges (from offset 0); call again with offset 4 for the next page',
        '',
      ].join('\n'),
    );
    expect(impact('--max-tokens', '100', '--offset', '4').stdout).toBe(
      [
        'impact of TokenStore.save (method) src/auth/tokenStore.ts:9-9',
        '  src/auth/tokenStore.ts',
        '    MemoryTokenStore.save (method) :21  depth 1  via TokenStore.save',
        '  src/App.jsx',
        '    App (component) :8  depth 2  via AuthService.login → TokenStore.save',
        '',
      ].join('\n'),
    );
  }, 120_000);

  it('bad --max-tokens is a usage error; a cap below the head alone says so', () => {
    expect([impact('--max-tokens', '0').code, impact('--max-tokens', '0').stderr]).toEqual([2, 'ca: --max-tokens must be an integer from 100 to 100,000,000 (got "0")\n']);
    const r = impact('--json', '--max-tokens', '200');
    expect([r.code, JSON.parse(r.stdout).error.code]).toEqual([2, 'usage']);
    expect(r.stderr).toMatch(/^ca: the answer needs about \d+ tokens even for its first item, over the answer cap of 200 tokens/);
  }, 120_000);
});
