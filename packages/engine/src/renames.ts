import type { Store } from '@ca/store';
import { fingerprint, pairBySimilarity, pathAffinity, renameCandidates, type ExtractorOf, type FileSource, type Plan } from '@ca/invalidation';

/** Files larger than this are not fingerprinted (a create and a delete stay what they are). */
const RENAME_MAX_BYTES = 1 << 20;

/**
 * Which files a plan creates are files it deletes, moved and edited (created path → deleted
 * path), for `plan`'s `renames`: git's own renames first (`gitRenames`, deleted → created, when
 * git knew: a HEAD move), then pairs of similar content (fingerprint Jaccard ≥ the threshold,
 * same extractor, best pair first, closer paths first among equals). The deleted files' bytes come from the index, the created
 * files' from `bytes` (read already) or the source (kept in `bytes` for the parse).
 */
export async function renamePairs(
  thePlan: Plan,
  ctx: {
    readonly store: Store;
    readonly label: string;
    readonly source: FileSource;
    readonly bytes: Map<string, Buffer>;
    readonly extractorOf: ExtractorOf;
    readonly maxFileBytes: number;
    readonly gitRenames?: ReadonlyMap<string, string>;
  },
): Promise<Map<string, string>> {
  const { created, deleted } = renameCandidates(thePlan);
  const pairs = new Map<string, string>();
  if (created.length === 0 || deleted.length === 0) return pairs;
  const deletedLeft = new Set(deleted);
  const createdPaths = new Set(created.map((f) => f.path));
  for (const [from, to] of ctx.gitRenames ?? []) {
    if (!deletedLeft.has(from) || !createdPaths.has(to) || pairs.has(to)) continue;
    pairs.set(to, from);
    deletedLeft.delete(from);
  }
  const reader = ctx.store.reader(ctx.label);
  const olds: { path: string; extractor: string; text: string }[] = [];
  for (const path of deletedLeft) {
    const b = reader.fileContent(path);
    const extractor = ctx.extractorOf(path);
    if (b !== null && b.length <= RENAME_MAX_BYTES && extractor !== 'none') olds.push({ path, extractor, text: b.toString('utf8') });
  }
  if (olds.length === 0) return pairs;
  const extractors = new Set(olds.map((o) => o.extractor));
  const news: { path: string; extractor: string; text: string }[] = [];
  for (const f of created) {
    const extractor = ctx.extractorOf(f.path);
    if (pairs.has(f.path) || !extractors.has(extractor) || f.size > RENAME_MAX_BYTES) continue;
    let b = ctx.bytes.get(f.path) ?? null;
    if (b === null) {
      b = await ctx.source.read(f.path, f.blobId, ctx.maxFileBytes);
      if (b !== null) ctx.bytes.set(f.path, b);
    }
    if (b !== null && b.length <= RENAME_MAX_BYTES) news.push({ path: f.path, extractor, text: b.toString('utf8') });
  }
  const similar = pairBySimilarity(
    olds.map((o) => fingerprint(o.text)),
    news.map((n) => fingerprint(n.text)),
    { compatible: (l, r) => olds[l]!.extractor === news[r]!.extractor, preference: (l, r) => pathAffinity(olds[l]!.path, news[r]!.path) },
  );
  for (const p of similar) pairs.set(news[p.right]!.path, olds[p.left]!.path);
  return pairs;
}
