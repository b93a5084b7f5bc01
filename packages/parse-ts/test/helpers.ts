import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ExtractedEdge, FileIndex, LanguageAdapter } from '@ca/schema';
import { createTsAdapter } from '../src/index.js';

export const FIXTURE_ROOT = fileURLToPath(new URL('../../../fixtures/ts-app/', import.meta.url));

let adapterPromise: Promise<LanguageAdapter> | null = null;

/** One adapter per test file (grammars load once). */
export function adapter(): Promise<LanguageAdapter> {
  adapterPromise ??= createTsAdapter();
  return adapterPromise;
}

/** Parses a fixture file by its repo-relative path. */
export async function parseFixture(path: string): Promise<FileIndex> {
  const a = await adapter();
  return a.parse({ path, text: readFileSync(FIXTURE_ROOT + path, 'utf8') });
}

export async function parseText(path: string, text: string, deadlineMs?: number): Promise<FileIndex> {
  const a = await adapter();
  return a.parse({ path, text }, deadlineMs === undefined ? undefined : { deadlineMs });
}

/** `kind qualifiedName start-end` rows for compact exact comparisons. */
export function nodeRows(index: FileIndex): string[] {
  return index.nodes.map((n) => `${n.kind} ${n.qualifiedName} ${n.span.startLine}-${n.span.endLine}`);
}

export function byQName(index: FileIndex, qualifiedName: string, nth = 0) {
  const hits = index.nodes.filter((n) => n.qualifiedName === qualifiedName);
  const hit = hits[nth];
  if (!hit) throw new Error(`no node ${qualifiedName}#${nth} in ${index.path}`);
  return hit;
}

/**
 * `type source -> name [local:qname | mod:path#importedName] confidence` rows; contains edges
 * excluded unless asked for.
 */
export function edgeRows(index: FileIndex, withContains = false): string[] {
  const q = new Map(index.nodes.map((n) => [n.localId, n.qualifiedName]));
  const row = (e: ExtractedEdge): string => {
    let where = '';
    if (e.target.localId) where = ` local:${q.get(e.target.localId)}`;
    else if (e.target.modulePath) where = ` mod:${e.target.modulePath}#${e.target.importedName}`;
    else if (e.target.specifier) where = ` spec:${e.target.specifier}#${e.target.importedName}`;
    return `${e.type} ${q.get(e.sourceLocalId)} -> ${e.target.name}${where} ${e.confidence} L${e.line}`;
  };
  return index.edges.filter((e) => withContains || e.type !== 'contains').map(row);
}
