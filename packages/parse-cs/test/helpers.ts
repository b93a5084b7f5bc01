import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FileIndex, LanguageAdapter } from '@ca/schema';

export const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), '../../../fixtures/cs-solution');

export function fixtureText(path: string): string {
  return readFileSync(join(FIXTURE, path), 'utf8');
}

export async function parseFixture(adapter: LanguageAdapter, path: string): Promise<FileIndex> {
  return adapter.parse({ path, text: fixtureText(path) });
}

/** `kind qualifiedName start-end` rows, the compact form the node-list tests compare. */
export function nodeRows(index: FileIndex): string[] {
  return index.nodes.map((n) => `${n.kind} ${n.qualifiedName} ${n.span.startLine}-${n.span.endLine}`);
}

/** `source type confidence targetName targetKey localId line` rows. */
export function edgeRows(index: FileIndex): string[] {
  const byId = new Map(index.nodes.map((n) => [n.localId, n.qualifiedName]));
  return index.edges.map(
    (e) =>
      `${byId.get(e.sourceLocalId)} ${e.type} ${e.confidence} ${e.target.name} ${e.target.key}${
        e.target.localId ? ` →${byId.get(e.target.localId)}` : ''
      } @${e.line}`,
  );
}
