/** One channel's ranked node ids (best first). */
export interface ChannelRanking {
  readonly channel: string;
  readonly ids: readonly number[];
}

export interface FusedHit {
  readonly nodeId: number;
  score: number;
  /** Channel name → 1-based rank in that channel. */
  readonly ranks: Record<string, number>;
}

/**
 * Reciprocal rank fusion: score(d) = Σ_channels 1 / (k + rank_c(d)). Channel weights scale a
 * channel's contribution (default 1). Ties keep first-seen order.
 */
export function reciprocalRankFusion(
  rankings: readonly ChannelRanking[],
  k = 60,
  weights: Readonly<Record<string, number>> = {},
): FusedHit[] {
  const hits = new Map<number, FusedHit>();
  for (const r of rankings) {
    const w = weights[r.channel] ?? 1;
    r.ids.forEach((id, i) => {
      let hit = hits.get(id);
      if (!hit) {
        hit = { nodeId: id, score: 0, ranks: {} };
        hits.set(id, hit);
      }
      if (hit.ranks[r.channel] !== undefined) return; // first (best) rank per channel counts
      hit.ranks[r.channel] = i + 1;
      hit.score += w / (k + i + 1);
    });
  }
  return [...hits.values()].sort((a, b) => b.score - a.score);
}
