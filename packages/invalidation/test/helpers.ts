import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExtractedNode } from '@ca/schema';

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'ca-invalidation-'));
}

/** Writes `text` at `rel` under `root`, creating directories. */
export function write(root: string, rel: string, text = 'export const x = 1;\n'): void {
  mkdirSync(join(root, rel, '..'), { recursive: true });
  writeFileSync(join(root, rel), text);
}

/** An extracted function node `name` (what a syntactic pass gives the planner); `extra` overrides. */
export function extractedNode(name: string, extra: Partial<ExtractedNode> = {}): ExtractedNode {
  return {
    localId: name,
    kind: 'function',
    name,
    qualifiedName: name,
    symbolKey: `ts:file:src/a.ts#${name}`,
    disambiguator: 0,
    parentLocalId: null,
    span: { startLine: 1, endLine: 2, startByte: 0, endByte: 10 },
    signature: `${name}()`,
    parameterCount: 0,
    returnType: null,
    modifiers: [],
    isPublicApi: false,
    doc: null,
    chunkText: `function ${name}() {}`,
    ...extra,
  };
}
