import { readFileSync, writeFileSync } from 'node:fs';
import { CaError } from '@ca/schema';
import { CONFIGURATIONS } from './configurations.js';
import type { EvalReport, SplitChoice } from './runner.js';

/** Committed reference figures: overall NDCG@10 per set and configuration (null = unavailable). */
export interface Baseline {
  readonly version: 1;
  readonly generatedAt: string;
  readonly split: SplitChoice;
  readonly tolerance: number;
  readonly sets: Readonly<Record<string, Readonly<Record<string, number | null>>>>;
}

export const DEFAULT_TOLERANCE = 0.02;
/** Rounding noise must never fail the gate. */
const EPS = 1e-9;

export function baselineFromReport(report: EvalReport, tolerance = DEFAULT_TOLERANCE): Baseline {
  const sets: Record<string, Record<string, number | null>> = {};
  for (const s of report.sets) {
    sets[s.name] = Object.fromEntries(s.configs.map((c) => [c.id, c.overall ? Math.round(c.overall.ndcg10 * 10000) / 10000 : null]));
  }
  return { version: 1, generatedAt: report.startedAt, split: report.split, tolerance, sets };
}

export function readBaseline(path: string): Baseline {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new CaError('invalid_path', `cannot read baseline ${path}: ${(e as Error).message}`, { cause: e, context: { path } });
  }
  const b = raw as Partial<Baseline>;
  if (b?.version !== 1 || typeof b.sets !== 'object' || b.sets === null) {
    throw new CaError('config_invalid', `${path}: not a ca eval baseline (expected {"version":1,"sets":{…}})`, { context: { path } });
  }
  return raw as Baseline;
}

export function writeBaseline(path: string, baseline: Baseline): void {
  writeFileSync(path, `${JSON.stringify(baseline, null, 2)}\n`);
}

export interface GateResult {
  readonly ok: boolean;
  /** Human-readable lines: every check, passed or failed, and every exclusion. */
  readonly lines: readonly string[];
  readonly failures: readonly string[];
}

/**
 * The CI gate: per set, hybrid NDCG@10 must not fall more than `tolerance` below the baseline,
 * and must not be below any available single-channel configuration; every other guarded
 * configuration in the run (the learned ranker) must not fall more than `tolerance` below its
 * own baseline either, and a guarded configuration run without a baseline fails. Unavailable
 * channels (vector without a model) are excluded from the comparison and reported.
 */
export function checkGate(report: EvalReport, baseline: Baseline, tolerance = baseline.tolerance ?? DEFAULT_TOLERANCE): GateResult {
  const lines: string[] = [];
  const failures: string[] = [];
  const fail = (msg: string) => {
    failures.push(msg);
    lines.push(`FAIL ${msg}`);
  };
  if (baseline.split !== report.split) lines.push(`note: baseline was recorded on split "${baseline.split}", this run used "${report.split}"`);
  for (const s of report.sets) {
    const hybrid = s.configs.find((c) => c.id === 'hybrid');
    if (!hybrid?.overall) {
      fail(`${s.name}: hybrid produced no metrics`);
      continue;
    }
    const h = hybrid.overall.ndcg10;
    for (const c of s.configs) {
      if (!CONFIGURATIONS.find((k) => k.id === c.id)?.guarded) continue;
      const base = baseline.sets[s.name]?.[c.id];
      if (!c.overall) fail(`${s.name}: ${c.label} produced no metrics`);
      else if (base === undefined || base === null) {
        // The default ranking without a baseline is a new set; another guarded one must have one.
        if (c.id === 'hybrid') lines.push(`skip ${s.name}: no baseline for hybrid (write one with --write-baseline)`);
        else fail(`${s.name}: no baseline for ${c.label} (write one with --write-baseline)`);
      } else if (c.overall.ndcg10 < base - tolerance - EPS) {
        fail(`${s.name}: ${c.label} NDCG@10 ${c.overall.ndcg10.toFixed(4)} is more than ${tolerance} below the baseline ${base.toFixed(4)}`);
      } else {
        lines.push(`ok   ${s.name}: ${c.label} NDCG@10 ${c.overall.ndcg10.toFixed(4)} vs baseline ${base.toFixed(4)} (tolerance ${tolerance})`);
      }
    }
    for (const c of s.configs) {
      if (!CONFIGURATIONS.find((k) => k.id === c.id)?.singleChannel) continue;
      if (!c.overall) {
        lines.push(`excl ${s.name}: ${c.label} unavailable — ${c.notices.join('; ') || 'no results'}`);
        continue;
      }
      if (h < c.overall.ndcg10 - EPS) fail(`${s.name}: hybrid NDCG@10 ${h.toFixed(4)} is below ${c.label} ${c.overall.ndcg10.toFixed(4)}`);
      else lines.push(`ok   ${s.name}: hybrid ${h.toFixed(4)} ≥ ${c.label} ${c.overall.ndcg10.toFixed(4)}`);
    }
  }
  return { ok: failures.length === 0, lines, failures };
}
