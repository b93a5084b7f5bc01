import type { SearchOptions } from '@ca/engine';

export type ChannelName = 'name' | 'bm25' | 'vector';

/** One retrieval configuration compared side by side in a run. */
export interface Configuration {
  readonly id: string;
  readonly label: string;
  /** Options passed to `engine.search` (besides `limit`). */
  readonly options: SearchOptions;
  /** Channels this configuration asks for: a notice "<channel> channel off" for each means unavailable. */
  readonly channels: readonly ChannelName[];
  /** Single-channel configurations take part in the gate's "hybrid must not lose" check. */
  readonly singleChannel: boolean;
  /** The gate holds this configuration to its baseline (the default ranking, and the learned one). */
  readonly guarded?: boolean;
}

const ALL: readonly ChannelName[] = ['name', 'bm25', 'vector'];

/**
 * The configurations of a run. Hybrid leaves `channels` unset so the engine uses every channel
 * it has; the ablations pass the same switches whether or not the engine implements them yet —
 * an unavailable channel is detected from `response.notices`, never scored as zero.
 */
export const CONFIGURATIONS: readonly Configuration[] = [
  { id: 'hybrid', label: 'hybrid', options: {}, channels: ALL, singleChannel: false, guarded: true },
  { id: 'bm25', label: 'bm25 only', options: { channels: ['bm25'] }, channels: ['bm25'], singleChannel: true },
  { id: 'vector', label: 'vector only', options: { channels: ['vector'] }, channels: ['vector'], singleChannel: true },
  { id: 'name', label: 'name only', options: { channels: ['name'] }, channels: ['name'], singleChannel: true },
  { id: 'no-hub', label: 'hybrid − hub', options: { hub: false }, channels: ALL, singleChannel: false },
  { id: 'no-defboost', label: 'hybrid − def. boost', options: { definitionBoost: false }, channels: ALL, singleChannel: false },
  { id: 'hand', label: 'hybrid, hand ranking', options: { ranker: 'hand' }, channels: ALL, singleChannel: false },
  { id: 'learned', label: 'hybrid, learned ranker', options: { ranker: 'learned' }, channels: ALL, singleChannel: false, guarded: true },
];

/** Selects configurations by id (comma lists allowed); unknown ids are reported by the caller. */
export function selectConfigurations(ids: readonly string[] | undefined): { selected: Configuration[]; unknown: string[] } {
  if (!ids || ids.length === 0) return { selected: [...CONFIGURATIONS], unknown: [] };
  const wanted = ids.flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
  const unknown = wanted.filter((id) => !CONFIGURATIONS.some((c) => c.id === id));
  // Hybrid is always evaluated: every comparison (gate, ablations) is relative to it.
  const selected = CONFIGURATIONS.filter((c) => c.id === 'hybrid' || wanted.includes(c.id));
  return { selected, unknown };
}

/** Channels a notice says are off ("vector channel off: …" → vector). */
export function channelsOff(notices: readonly string[]): Set<string> {
  const off = new Set<string>();
  for (const n of notices) {
    const m = /\b(name|bm25|vector)\s+channel\s+(?:is\s+)?(?:off|unavailable|disabled)/i.exec(n);
    if (m) off.add(m[1]!.toLowerCase());
  }
  return off;
}
