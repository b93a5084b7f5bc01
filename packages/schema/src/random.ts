/**
 * A small deterministic generator (mulberry32) for the generated cases of property and
 * differential tests and for synthetic benchmark data: the same seed gives the same sequence,
 * so a failing case is replayed from the seed it names.
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
