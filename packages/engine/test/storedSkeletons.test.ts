import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitBlobId } from '@ca/schema';
import { createTsAdapter, skeletonOf, type SyntacticSkeleton } from '@ca/parse-ts';
import { Engine } from '../src/index.js';
import { skeletonOfStored } from '../src/indexer.js';
import { copyFixture, REPO_ROOT } from './helpers.js';

const MONO = join(REPO_ROOT, 'fixtures', 'ts-monorepo');

/** A skeleton with its local ids replaced by what they name (the parent's key and start), nodes sorted: what `fromSkeleton` uses. */
function comparable(sk: SyntacticSkeleton): unknown {
  const byId = new Map(sk.nodes.map((n) => [n[0], n]));
  return {
    path: sk.path,
    contentHash: sk.contentHash,
    first: sk.nodes[0]![2],
    nodes: sk.nodes
      .map(([, parent, kind, name, key, start, end]) => {
        const p = parent === null ? null : byId.get(parent)!;
        return `${kind} ${name} ${key} ${start}-${end} in ${p === null ? '-' : `${p[4]}@${p[5]}`}`;
      })
      .sort(),
  };
}

describe('stored skeletons of a partial TS pass (fixtures/ts-monorepo)', () => {
  let engine: Engine;
  let repo: string;
  beforeAll(async () => {
    repo = copyFixture(MONO);
    engine = Engine.open(repo, { env: {}, configOverrides: { embedding: { enabled: false } } });
    await engine.index();
  }, 120_000);
  afterAll(() => engine.close());

  it("are what a parse of each unchanged file gives, package-refined keys back in their file's form", async () => {
    const adapter = await createTsAdapter();
    const stored = engine.store.semantic.storedSkeletons('working', ['ts', 'js'], 100_000);
    // Every TS file of the fixture (none holds fragments of another file's node).
    expect(stored.map((s) => s.path)).toEqual([
      'packages/core/src/checkout.ts',
      'packages/core/src/index.ts',
      'packages/core/src/money.ts',
      'packages/core/src/payments/gateway.ts',
      'packages/core/src/payments/index.ts',
      'packages/core/src/payments/paypalGateway.ts',
      'packages/core/src/payments/stripeGateway.ts',
      'packages/core/src/shapes.ts',
      'packages/web/src/App.tsx',
      'packages/web/src/Button.tsx',
      'packages/web/src/PriceTag.tsx',
      'packages/web/src/components/index.ts',
      'packages/web/src/index.ts',
      'packages/web/src/react.d.ts',
    ]);
    // The pass refined money.ts's exported function to its package; the skeleton names it as a parse does.
    const money = stored.find((s) => s.path === 'packages/core/src/money.ts')!;
    expect(money.nodes.find((n) => n.name === 'formatMoney')!.symbolKey).toBe('ts:pkg:@mono/core#formatMoney(Money)');
    expect(skeletonOfStored(money).nodes.find((n) => n[3] === 'formatMoney')![4]).toBe('ts:file:packages/core/src/money.ts#formatMoney(Money)');
    for (const s of stored) {
      const bytes = readFileSync(join(repo, s.path));
      const parsed = skeletonOf(s.path, gitBlobId(bytes), await adapter.parse({ path: s.path, text: bytes.toString('utf8') }));
      expect(comparable(skeletonOfStored(s))).toEqual(comparable(parsed));
    }
  });
});
