import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fingerprint, jaccard, SIMILARITY_THRESHOLD } from '@ca/invalidation';
import { Engine } from '../src/index.js';
import { copyFixture, dbOf, tempDir, testModels, TS_APP } from './helpers.js';

// A move plus an edit keeps node ids and embeddings (decision 023).

const { dir: MODELS, missing: MODEL_MISSING } = testModels();
const OFF = { embedding: { enabled: false }, semantic: { enabled: false } };

/** Four functions of one cart module (the file the tests move). */
const CALC = `export function sumPrices(items: { price: number; count: number }[]): number {
  let total = 0;
  for (const item of items) total += item.price * item.count;
  return total;
}

export function averagePrice(items: { price: number; count: number }[]): number {
  if (items.length === 0) return 0;
  return sumPrices(items) / items.reduce((n, item) => n + item.count, 0);
}

export function cheapest(items: { price: number; count: number }[]): number | null {
  let best: number | null = null;
  for (const item of items) if (best === null || item.price < best) best = item.price;
  return best;
}

export function describeCart(items: { price: number; count: number }[]): string {
  const lines = items.map((item) => \`\${item.count} x \${item.price.toFixed(2)}\`);
  return lines.join('\\n') + '\\nTotal: ' + sumPrices(items).toFixed(2);
}
`;
const DESCRIBE_CART = CALC.slice(CALC.indexOf('export function describeCart'));
/** `describeCart` replaced by an unrelated function: a quarter of the file rewritten. */
const QUARTER = CALC.replace(
  DESCRIBE_CART,
  `export async function loadCatalog(url: string): Promise<Map<string, number>> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(\`catalog: HTTP \${response.status}\`);
  return new Map(Object.entries(await response.json()));
}
`,
);
/** `cheapest` also replaced: half of the file rewritten. */
const HALF = QUARTER.replace(
  CALC.slice(CALC.indexOf('export function cheapest'), CALC.indexOf('export function describeCart')),
  `export class PriceCache {
  private readonly entries = new Map<string, { value: number; at: Date }>();
  get(key: string): number | undefined { return this.entries.get(key)?.value; }
}

`,
);

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } }).trim();
}

/** A repository holding src/calc.ts and src/main.ts (which calls into calc.ts). */
function cartRepo(): string {
  const root = join(tempDir(), 'repo');
  mkdirSync(join(root, 'src'), { recursive: true });
  writeFileSync(join(root, 'src/calc.ts'), CALC);
  writeFileSync(join(root, 'src/main.ts'), `import { sumPrices } from './calc';\n\nexport function report(items: { price: number; count: number }[]): string {\n  return String(sumPrices(items));\n}\n`);
  return root;
}

/** qualified name → node id of a file's nodes. */
function ids(engine: Engine, path: string): Map<string, number> {
  return new Map(engine.outline(path).map((n) => [n.qualifiedName, n.id]));
}

const journaled = (engine: Engine, like: string) => dbOf(engine).prepare(`SELECT COUNT(*) FROM deletion_log WHERE path LIKE ?`).pluck().get(like);

const engines: Engine[] = [];
afterEach(() => {
  for (const e of engines.splice(0)) e.close();
});
function open(root: string, overrides: Record<string, Record<string, unknown>> = OFF): Engine {
  const e = Engine.open(root, { env: {}, configOverrides: overrides });
  engines.push(e);
  return e;
}

describe.skipIf(MODEL_MISSING !== null)('a file moved with one function edited (embeddings counted)', () => {
  it('every node keeps its id; only the edited function is embedded again', async () => {
    const root = copyFixture(TS_APP);
    const engine = open(root, { embedding: { model_dir: MODELS, allow_download: false }, semantic: { enabled: false } });
    const first = await engine.index();
    // fixtures/ts-app: 13 file nodes and 79 symbols (embedding.test.ts).
    expect(first.blobs.embedded).toBe(92);
    const before = ids(engine, 'src/utils/format.ts');
    // format.ts: its file node, 2 constants and 6 functions.
    expect(before.size).toBe(9);
    const text = readFileSync(join(root, 'src/utils/format.ts'), 'utf8');
    const edited = text.replace('return date.toISOString().slice(0, 10);', "return date.toISOString().split('T')[0]!;");
    expect(edited).not.toBe(text);
    rmSync(join(root, 'src/utils/format.ts'));
    writeFileSync(join(root, 'src/utils/formatting.ts'), edited);
    const r = await engine.index();
    // One version parsed, as a move with an edit; re-embedded: formatDate alone (its body
    // changed). The file node's chunk collapses function bodies (`{ /* 1 line collapsed */ }`),
    // so a one-line body edit leaves it as it was: it and the other 7 keep their vectors.
    expect([r.blobs.parsed, r.blobs.renamed, r.blobs.moved, r.removed, r.blobs.embedded]).toEqual([1, 1, 0, 0, 1]);
    // Every continued node has a vector again (one or more windows each).
    expect(dbOf(engine).prepare(`SELECT COUNT(DISTINCT node_id) FROM node_embeddings WHERE node_id IN (${[...before.values()].join(',')})`).pluck().get()).toBe(9);
    const after = ids(engine, 'src/utils/formatting.ts');
    expect(after).toEqual(new Map([...before].map(([q, id]) => [q === 'src/utils/format.ts' ? 'src/utils/formatting.ts' : q, id])));
    expect(journaled(engine, 'src/utils/format%')).toBe(0);
    // The continued nodes answer under their new path and keys.
    const keys = dbOf(engine).prepare(`SELECT symbol_key FROM nodes WHERE id = ?`).pluck();
    expect(keys.get(before.get('formatDate'))).toBe('ts:file:src/utils/formatting.ts#formatDate(Date)');
    expect((await engine.search('formatDuration', { limit: 1 })).results.map((x) => [x.path, x.id])).toEqual([['src/utils/formatting.ts', String(before.get('formatDuration'))]]);
  }, 180_000);
});

describe('moves with an edit, matched by content', () => {
  it('a renamed function inside a moved file keeps its id under its new name and key', async () => {
    const root = cartRepo();
    const engine = open(root);
    await engine.index();
    const before = ids(engine, 'src/calc.ts');
    rmSync(join(root, 'src/calc.ts'));
    writeFileSync(join(root, 'src/pricing.ts'), CALC.replace('function describeCart', 'function cartSummary'));
    const r = await engine.index();
    expect([r.blobs.parsed, r.blobs.renamed]).toEqual([1, 1]);
    const after = ids(engine, 'src/pricing.ts');
    expect([...after.keys()]).toEqual(['src/pricing.ts', 'sumPrices', 'averagePrice', 'cheapest', 'cartSummary']);
    expect([...after.values()]).toEqual(['src/calc.ts', 'sumPrices', 'averagePrice', 'cheapest', 'describeCart'].map((q) => before.get(q)));
    const row = dbOf(engine).prepare(`SELECT name, symbol_key FROM nodes WHERE id = ?`).get(before.get('describeCart'));
    // Keys of functions carry their parameter types.
    expect(row).toEqual({ name: 'cartSummary', symbol_key: 'ts:file:src/pricing.ts#cartSummary({price:number;count:number}[])' });
    expect(journaled(engine, 'src/%')).toBe(0);
  }, 60_000);

  it('with the TS semantic pass: the moved file is analysed again and its callers still reach the same node', async () => {
    const root = cartRepo();
    const engine = open(root, { embedding: { enabled: false } });
    await engine.index();
    const before = ids(engine, 'src/calc.ts');
    const callers = () => engine.navigate('callers', 'sumPrices').edges.map((e) => [e.from, e.to, e.path, e.line, e.confidence].join(' ')).sort();
    // report (src/main.ts line 4), averagePrice (line 9) and describeCart (line 20) call sumPrices.
    const was = callers();
    expect(was.map((e) => e.split(' ').slice(2, 4).join(':')).sort()).toEqual(['src/calc.ts:20', 'src/calc.ts:9', 'src/main.ts:4']);
    // The refactor a move is: the file moves (cheapest edited), its importer follows.
    rmSync(join(root, 'src/calc.ts'));
    writeFileSync(join(root, 'src/pricing.ts'), CALC.replace('item.price < best', 'item.price <= best'));
    writeFileSync(join(root, 'src/main.ts'), readFileSync(join(root, 'src/main.ts'), 'utf8').replace("'./calc'", "'./pricing'"));
    const r = await engine.index();
    expect([r.blobs.parsed, r.blobs.renamed, r.removed]).toEqual([2, 1, 0]);
    expect(ids(engine, 'src/pricing.ts').get('sumPrices')).toBe(before.get('sumPrices'));
    // The same edges, from the same nodes to the same node, at the moved file's path.
    expect(callers()).toEqual(was.map((e) => e.replace(' src/calc.ts ', ' src/pricing.ts ')).sort());
    expect(was.every((e) => e.endsWith(' exact'))).toBe(true);
  }, 120_000);

  it('a file moved and half rewritten (Jaccard under the threshold) is a delete and a create: new ids', async () => {
    expect(jaccard(fingerprint(CALC), fingerprint(HALF))).toBeLessThan(SIMILARITY_THRESHOLD);
    const root = cartRepo();
    const engine = open(root);
    await engine.index();
    const before = ids(engine, 'src/calc.ts');
    rmSync(join(root, 'src/calc.ts'));
    writeFileSync(join(root, 'src/pricing.ts'), HALF);
    const r = await engine.index();
    expect([r.blobs.parsed, r.blobs.renamed, r.removed]).toEqual([1, 0, 1]);
    const after = ids(engine, 'src/pricing.ts');
    expect([...after.values()].filter((id) => [...before.values()].includes(id))).toEqual([]);
    // All 5 old nodes (file, 4 functions) journaled.
    expect(journaled(engine, 'src/calc.ts')).toBe(5);
  }, 60_000);

  it('two equally similar created files: the first by path continues the deleted one; a closer one wins over an earlier path', async () => {
    const root = cartRepo();
    const engine = open(root);
    await engine.index();
    const before = ids(engine, 'src/calc.ts');
    rmSync(join(root, 'src/calc.ts'));
    const copy = CALC.replace('item.price < best', 'item.price <= best');
    writeFileSync(join(root, 'src/b.ts'), copy);
    writeFileSync(join(root, 'src/c.ts'), copy);
    const r = await engine.index();
    expect([r.blobs.parsed, r.blobs.renamed]).toEqual([2, 1]);
    expect(ids(engine, 'src/b.ts').get('sumPrices')).toBe(before.get('sumPrices'));
    expect(ids(engine, 'src/c.ts').get('sumPrices')).not.toBe(before.get('sumPrices'));

    // Back to one file; then a farther copy at an earlier path and the unchanged text at a later one.
    rmSync(join(root, 'src/b.ts'));
    rmSync(join(root, 'src/c.ts'));
    writeFileSync(join(root, 'src/calc.ts'), CALC);
    await engine.index();
    const again = ids(engine, 'src/calc.ts');
    rmSync(join(root, 'src/calc.ts'));
    const farther = CALC.replace('item.price < best', 'item.price <= best').replace("'\\nTotal: '", "'\\nSum: '");
    expect(jaccard(fingerprint(CALC), fingerprint(farther))).toBeGreaterThanOrEqual(SIMILARITY_THRESHOLD);
    writeFileSync(join(root, 'src/a.ts'), farther);
    writeFileSync(join(root, 'src/z.ts'), `${CALC}\nexport const VERSION = 2;\n`);
    await engine.index();
    expect(ids(engine, 'src/z.ts').get('sumPrices')).toBe(again.get('sumPrices'));
    expect(ids(engine, 'src/a.ts').get('sumPrices')).not.toBe(again.get('sumPrices'));
  }, 90_000);
});

describe('git-known renames (a HEAD move: `ca index` or `ca watch` after a checkout)', () => {
  it('a rename git finds (70% alike to git) keeps the surviving symbols even under the content threshold; without git the same change does not', async () => {
    // Content similarity alone would not pair these (the fingerprints share less than 0.8).
    expect(jaccard(fingerprint(CALC), fingerprint(QUARTER))).toBeLessThan(SIMILARITY_THRESHOLD);
    const root = cartRepo();
    git(root, 'init', '-q', '-b', 'main');
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '-m', 'calc');
    git(root, 'checkout', '-q', '-b', 'pricing');
    git(root, 'mv', 'src/calc.ts', 'src/pricing.ts');
    writeFileSync(join(root, 'src/pricing.ts'), QUARTER);
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '-m', 'pricing');
    expect(git(root, 'diff-tree', '-r', '-M', '--name-status', 'main', 'pricing')).toBe('R070\tsrc/calc.ts\tsrc/pricing.ts');
    git(root, 'checkout', '-q', 'main');

    const engine = open(root);
    await engine.index();
    const before = ids(engine, 'src/calc.ts');
    git(root, 'checkout', '-q', 'pricing');
    // As \`ca watch\` runs after a HEAD move: no paths of its own, git names what changed.
    const r = await engine.index({ paths: [] });
    expect([r.blobs.parsed, r.blobs.renamed, r.removed]).toEqual([1, 1, 0]);
    const after = ids(engine, 'src/pricing.ts');
    // The file node and the three functions that stayed keep their ids; describeCart went
    // (journaled), loadCatalog is new.
    for (const q of ['sumPrices', 'averagePrice', 'cheapest']) expect(after.get(q)).toBe(before.get(q));
    expect(after.get('src/pricing.ts')).toBe(before.get('src/calc.ts'));
    expect([...before.values()]).not.toContain(after.get('loadCatalog'));
    expect(journaled(engine, 'src/pricing.ts')).toBe(1);

    // The same change made in the working tree only (no commit, so git knows no rename).
    git(root, 'checkout', '-q', 'main');
    await engine.index();
    const base = ids(engine, 'src/calc.ts');
    rmSync(join(root, 'src/calc.ts'));
    writeFileSync(join(root, 'src/pricing.ts'), QUARTER);
    const plain = await engine.index();
    expect([plain.blobs.renamed, plain.removed]).toEqual([0, 1]);
    expect(ids(engine, 'src/pricing.ts').get('sumPrices')).not.toBe(base.get('sumPrices'));
  }, 90_000);
});
