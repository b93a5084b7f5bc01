import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitBlobId, type FileIndex } from '@ca/schema';
import { createTsAdapter, createTsSemanticService, skeletonOf, type SyntacticSkeleton, type TsSemanticService } from '../src/index.js';
import { edgeRows, ensureWorkerBuilt, removeTempRepos, tempRepo } from './semanticHelpers.js';

const LIB = `export class Store {\n  get(key: string): number {\n    return key.length;\n  }\n}\n`;
const MAIN = `import { Store } from './lib';\nexport function run(): number {\n  return new Store().get('x');\n}\n`;

let root: string;
let svc: TsSemanticService;
let skeletons: SyntacticSkeleton[];

beforeAll(async () => {
  ensureWorkerBuilt();
  root = tempRepo({
    'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true }, include: ['src'] }),
    'src/lib.ts': LIB,
    'src/main.ts': MAIN,
  });
  const adapter = await createTsAdapter();
  skeletons = ['src/lib.ts', 'src/main.ts'].map((rel) => {
    const bytes = readFileSync(join(root, rel));
    const index = adapter.parse({ path: rel, text: bytes.toString('utf8') }) as FileIndex;
    return skeletonOf(rel, gitBlobId(bytes), index);
  });
  svc = createTsSemanticService({ maxOldSpaceSizeMb: 512, workers: 1 });
}, 180_000);
afterAll(async () => {
  await svc.dispose();
  removeTempRepos();
});

const rows = async (syntactic?: SyntacticSkeleton[]) => {
  const r = await svc.analyzeRepository(root, { deadlineMs: 60_000, ...(syntactic ? { syntactic } : {}) });
  return edgeRows(r.projects.flatMap((p) => p.edges).filter((e) => e.type === 'calls'));
};

/** `lib`'s skeleton with every symbol key marked, so edges show which nodes named them. */
const marked = (sk: SyntacticSkeleton, contentHash = sk.contentHash): SyntacticSkeleton => ({
  ...sk,
  contentHash,
  nodes: sk.nodes.map(([a, b, c, d, key, e, f]) => [a, b, c, d, `${key}~caller`, e, f] as const),
});

describe('syntactic skeletons from the caller', () => {
  it('give the same edges as the worker’s own tree-sitter parse', async () => {
    const expected = [
      'calls ts:file:src/main.ts#run() -> ts:file:src/lib.ts#Store.get(string) exact',
      'calls ts:file:src/main.ts#run() -> ts:file:src/lib.ts#Store exact',
    ];
    expect(await rows()).toEqual(expected);
    expect(await rows(skeletons)).toEqual(expected);
  }, 60_000);

  it('are used when the content hash matches, and ignored when it does not', async () => {
    const lib = skeletons[0]!;
    // Same hash: the worker names lib's symbols with the caller's (marked) keys.
    expect(await rows([marked(lib), skeletons[1]!])).toEqual([
      'calls ts:file:src/main.ts#run() -> ts:file:src/lib.ts#Store.get(string)~caller exact',
      'calls ts:file:src/main.ts#run() -> ts:file:src/lib.ts#Store~caller exact',
    ]);
    // A skeleton of another text (hash of an older version): the worker parses the file itself.
    expect(await rows([marked(lib, gitBlobId(`${LIB}\n`)), skeletons[1]!])).toEqual([
      'calls ts:file:src/main.ts#run() -> ts:file:src/lib.ts#Store.get(string) exact',
      'calls ts:file:src/main.ts#run() -> ts:file:src/lib.ts#Store exact',
    ]);
  }, 60_000);
});
