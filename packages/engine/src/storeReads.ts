import { CaError, decodeSource, decodeSpan } from '@ca/schema';
import { outlineTree, type OutlineNode } from './explore.js';
import { countLines } from './fileProcessing.js';

import type { GraphReads, NodeRecord } from '@ca/store';
import { navigateReads, type GraphLimits, type Navigation, type NavigationOptions, type NavigationResult } from './navigation.js';
import { findSymbolsIn, oneSymbol } from './symbolLookup.js';
import { BUILTIN_LANGUAGES } from './languages/index.js';
import { LanguageRegistry } from './languages/registry.js';

// Reads of one label through the async read contract (`GraphReads`, decision 042): a local
// index's label or a team store's snapshot, with the answers of the Engine's synchronous
// methods of the same names. Nothing here knows which backend answers.

/** Every symbol a SYMBOL argument names (see `Engine.findSymbols`). */
export async function symbolsOf(reads: GraphReads, name: string): Promise<NodeRecord[]> {
  return findSymbolsIn(reads, name);
}

/** Exactly one symbol, or `not_found` / `ambiguous_symbol`. */
export async function symbolOf(reads: GraphReads, name: string): Promise<NodeRecord> {
  return oneSymbol(name, await findSymbolsIn(reads, name));
}

/** The symbols of a file in source order (`Engine.outline`); `not_found` when the label has no such file. */
export async function outlineOf(reads: GraphReads, path: string): Promise<NodeRecord[]> {
  const rel = path.replace(/\\/g, '/').replace(/^\.\//, '');
  const nodes = await reads.outline(rel);
  if (nodes === null) throw new CaError('not_found', `${rel} is not in the index`, { context: { path: rel } });
  return nodes;
}

/** `get_file_outline` over the contract (`fileOutline`): the tree, the file's language and its lines (from the stored copy). */
export async function fileOutlineOf(reads: GraphReads, path: string): Promise<{ path: string; language: string | null; lines: number; symbols: OutlineNode[]; count: number }> {
  const nodes = await outlineOf(reads, path);
  const rel = nodes[0]?.path ?? path.replace(/\\/g, '/').replace(/^\.\//, '');
  const file = nodes.find((n) => n.kind === 'file');
  const bytes = (await reads.fileContents([rel])).get(rel);
  const text = bytes ? decodeSource(bytes)?.text : undefined;
  return { path: rel, language: file?.language ?? nodes[0]?.language ?? null, lines: text === undefined ? 0 : countLines(text), ...outlineTree(nodes) };
}

/** A symbol's source from the label's stored copy of its file (`stale`: no copy kept, `code` is the indexed chunk text). */
export async function sourceOf(reads: GraphReads, name: string): Promise<{ node: NodeRecord; code: string; stale: boolean }> {
  const node = await symbolOf(reads, name);
  const bytes = (await reads.fileContents([node.path])).get(node.path);
  if (bytes) return { node, code: decodeSpan(bytes, node.startByte, node.endByte), stale: false };
  return { node, code: node.chunkText, stale: true };
}

let languages: LanguageRegistry | null = null;

/**
 * Graph navigation over the contract (`Engine.navigate`): SYMBOL a qualified name, a bare name or
 * an id — or, for deps/dependents, a file path; `all` makes every match a seed.
 */
export async function navigateOf(
  reads: GraphReads,
  navigation: Navigation,
  target: string,
  options: Omit<NavigationOptions, 'indexedText'> & { all?: boolean },
  limits: GraphLimits,
): Promise<NavigationResult & { symbol: { code: string } }> {
  let seeds: NodeRecord[] = [];
  if (navigation === 'deps' || navigation === 'dependents') seeds = (await reads.outline(target.replace(/\\/g, '/').replace(/^\.\//, ''))) ?? [];
  if (seeds.length === 0) seeds = options.all ? await symbolsOf(reads, target) : [await symbolOf(reads, target)];
  if (seeds.length === 0) throw new CaError('not_found', `no symbol matches "${target}"`, { context: { symbol: target } });
  languages ??= new LanguageRegistry(BUILTIN_LANGUAGES);
  const result = await navigateReads(reads, navigation, seeds, { languages, ...options }, limits);
  return { ...result, symbol: { ...result.symbol, code: seeds[0]!.chunkText } };
}
