import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerTokens, Engine } from '@ca/engine';
import { defaultConfig, seededRandom } from '@ca/schema';
import { connect, generateHubRepo, type Connected, type HubRepo } from './helpers.js';

/**
 * The `affected` tool on its largest arguments (every hop the configuration allows, 50,000 nodes,
 * every confidence) over a large diff — every method of the hub that 150 feature modules use
 * rewritten — answers within the cap for generated caps, and its pages put together are the
 * uncut answer's lists, each unit once.
 */
const MAX_DEPTH = defaultConfig().graph.max_depth;
const LARGEST = { base: 'base', depth: MAX_DEPTH, max_nodes: 50_000, min_confidence: 'approximate' };

/** Caps to try: fixed edges of the range and a few drawn from a seeded generator (mulberry32; the seed replays a failure). */
function caps(seed: number, count: number): number[] {
  const next = seededRandom(seed);
  return [1_500, 10_000, ...Array.from({ length: count }, () => 1_500 + Math.floor(next() * 9_000))];
}

const SECTIONS = ['files', 'changed', 'impacted', 'endpoints', 'tests'] as const;

describe('affected stays within the answer cap on a large diff (generated hub repository)', () => {
  let repo: HubRepo;
  const servers = new Map<number, Connected>();
  const CAPS = caps(44, 3);
  beforeAll(async () => {
    repo = generateHubRepo({ modules: 150, hugeLines: 300, flatFiles: 5 });
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: repo.root });
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-q', '-m', 'base');
    const engine = Engine.open(repo.root, { env: {}, configOverrides: { embedding: { enabled: false } } });
    try {
      await engine.indexCommit('base', 'HEAD');
    } finally {
      engine.close();
    }
    // Every hub method's body changes: each is a changed symbol whose users are most of the repository.
    const hub = join(repo.root, 'src/hub/hub.ts');
    writeFileSync(hub, readFileSync(hub, 'utf8').replaceAll('// step', '// changed step'));
    for (const cap of [...CAPS, Infinity]) servers.set(cap, await connect({ repo: repo.root, answerTokens: cap === Infinity ? 100_000_000 : cap }));
  }, 600_000);
  afterAll(async () => {
    for (const s of servers.values()) await s.close();
    rmSync(join(repo.root, '..'), { recursive: true, force: true });
  });

  it('the uncut answer is large: ten changed methods and hundreds of dependents, far over the caps', async () => {
    const r = await servers.get(Infinity)!.call('affected', LARGEST);
    expect(r.isError).toBe(false);
    expect(r.json.changed.map((c: any) => `${c.change} ${c.qualifiedName}`)).toEqual(Array.from({ length: 10 }, (_, k) => `body Hub.m${k}`));
    // f{i}a, f{i}b and Feature{i}.run call hub methods in each of the 150 modules.
    expect(r.json.impacted.length).toBeGreaterThanOrEqual(450);
    expect(answerTokens(r.texts)).toBeGreaterThan(10_000);
    expect(r.json.nextOffset).toBe(null);
  }, 300_000);

  it.each(CAPS.map((c) => [c]))('cap %i: every page within the cap, the pages together the uncut lists', async (cap) => {
    const uncut = (await servers.get(Infinity)!.call('affected', LARGEST)).json;
    const got = Object.fromEntries(SECTIONS.map((s) => [s, [] as string[]]));
    let pages = 0;
    for (let offset: number | null = 0; offset !== null; pages++) {
      const r = await servers.get(cap)!.call('affected', { ...LARGEST, offset });
      expect(r.isError).toBe(false);
      expect(answerTokens(r.texts)).toBeLessThanOrEqual(cap);
      // The head rides on every page.
      expect(r.json.risk).toEqual(uncut.risk);
      for (const s of SECTIONS) got[s]!.push(...r.json[s].map((u: unknown) => JSON.stringify(u)));
      offset = r.json.nextOffset;
    }
    expect(pages).toBeGreaterThan(1);
    for (const s of SECTIONS) expect(got[s]).toEqual(uncut[s].map((u: unknown) => JSON.stringify(u)));
  }, 300_000);
});
