import type { AggregateMetrics } from './metrics.js';
import { ARCHETYPES } from './querySet.js';
import type { ConfigReport, EvalReport, SetReport } from './runner.js';

const f3 = (x: number | null | undefined): string => (x === null || x === undefined || Number.isNaN(x) ? '–' : x.toFixed(3));
const fms = (x: number | null | undefined): string => (x === null || x === undefined ? '–' : x < 10 ? x.toFixed(2) : x.toFixed(1));

function renderTable(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(head), widths.map((w) => '─'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

function metricCells(m: AggregateMetrics | null): string[] {
  if (!m) return ['unavailable', '', '', '', '', '', ''];
  return [f3(m.ndcg10), f3(m.p5), f3(m.r20), f3(m.mrr), f3(m.s1), f3(m.s5), m.allInTop10 === null ? '–' : `${f3(m.allInTop10)} (${m.setQueries})`];
}

function statusMark(c: ConfigReport): string {
  if (c.status === 'unavailable') return `${c.label} [unavailable]`;
  const same = c.identicalToHybrid ? ' (=hybrid)' : '';
  return `${c.label}${c.status === 'degraded' ? ' *' : ''}${same}`;
}

/**
 * The context-efficiency table: test share of the top 10 over queries not about tests, tokens to
 * the first relevant result (mean, median; queries without one), line recall@10 of changed lines.
 */
function contextTable(s: SetReport): string | null {
  const rows = s.configs.filter((c) => c.context);
  if (rows.length === 0) return null;
  return renderTable(
    ['configuration', 'test share (n)', 'tokens mean', 'tokens median', 'no relevant', 'line recall@10 (n)'],
    rows.map((c) => {
      const x = c.context!;
      return [
        c.id,
        `${f3(x.testShareTop10)} (${x.testShareQueries})`,
        x.tokensToFirstRelevant.mean === null ? '–' : String(Math.round(x.tokensToFirstRelevant.mean)),
        x.tokensToFirstRelevant.median === null ? '–' : String(Math.round(x.tokensToFirstRelevant.median)),
        String(x.withoutRelevant),
        x.changedLineQueries === 0 ? '–' : `${f3(x.changedLineRecall10)} (${x.changedLineQueries})`,
      ];
    }),
  );
}

/** The terminal rendering of one set. */
export function renderSetTable(s: SetReport): string {
  const out: string[] = [];
  out.push(`${s.name}  ${s.repo}${s.commit ? `@${s.commit.slice(0, 12)}` : ''}  (${s.evaluated} of ${s.totalQueries} queries scored${s.excluded.length > 0 ? `, ${s.excluded.length} excluded` : ''})`);
  if (s.index) out.push(`index: ${s.index.files} files, ${s.index.symbols} symbols, ${s.index.lines} lines (${s.index.ms} ms)`);
  out.push('');
  out.push(
    renderTable(
      ['configuration', 'NDCG@10', 'P@5', 'R@20', 'MRR', 'S@1', 'S@5', 'All@10 (n)', 'warm p50', 'warm p95', 'cold p50', 'cold p95', 'neg. viol.'],
      s.configs.map((c) => [
        statusMark(c),
        ...metricCells(c.overall),
        fms(c.latency.warm.p50),
        fms(c.latency.warm.p95),
        fms(c.latency.cold.p50),
        fms(c.latency.cold.p95),
        c.negative.rate === null ? '–' : `${c.negative.violations}/${c.negative.queries}`,
      ]),
    ),
  );
  const context = contextTable(s);
  if (context !== null) out.push('', 'Context efficiency (top 10; tokens: estimated tokens read up to the first relevant result)', context);
  const archetypes = ARCHETYPES.filter((a) => s.configs.some((c) => c.byArchetype[a]));
  if (archetypes.length > 0) {
    out.push('');
    out.push('NDCG@10 by archetype');
    out.push(
      renderTable(
        ['archetype (n)', ...s.configs.map((c) => c.id)],
        archetypes.map((a) => [`${a} (${s.configs[0]?.byArchetype[a]?.n ?? 0})`, ...s.configs.map((c) => f3(c.byArchetype[a]?.ndcg10))]),
      ),
    );
  }
  const hybrid = s.configs.find((c) => c.id === 'hybrid');
  if (hybrid?.overallNonLeaky || hybrid?.byOrigin.mined) {
    out.push('');
    const rows: string[][] = [];
    for (const c of s.configs) {
      if (!c.overall) continue;
      rows.push([
        c.id,
        f3(c.byOrigin.hand?.ndcg10),
        f3(c.byOrigin.mined?.ndcg10),
        f3(c.overallNonLeaky?.ndcg10 ?? c.overall.ndcg10),
      ]);
    }
    const hand = hybrid.byOrigin.hand?.n ?? 0;
    const mined = hybrid.byOrigin.mined?.n ?? 0;
    const nonLeaky = hybrid.overallNonLeaky?.n ?? hybrid.overall?.n ?? 0;
    out.push(renderTable(['NDCG@10', `hand (${hand})`, `mined (${mined})`, `non-leaky (${nonLeaky})`], rows));
  }
  const degraded = s.configs.filter((c) => c.status !== 'ok');
  for (const c of degraded) out.push(`${c.status === 'unavailable' ? '' : '* '}${c.label}: ${c.notices.join('; ')}`);
  const same = s.configs.filter((c) => c.identicalToHybrid);
  if (same.length > 0) out.push(`(=hybrid): ranking identical to hybrid on every query — the switch had no effect: ${same.map((c) => c.id).join(', ')}`);
  for (const n of s.notes) out.push(`note: ${n}`);
  for (const w of s.warnings.slice(0, 20)) out.push(`warning: ${w}`);
  if (s.warnings.length > 20) out.push(`warning: … ${s.warnings.length - 20} more (see --json)`);
  return out.join('\n');
}

/** The terminal rendering of a whole run. */
export function renderReportTable(report: EvalReport): string {
  const parts = [`ca eval — split: ${report.split}${report.split === 'train' ? ' (default; --split holdout|all to include held-out queries)' : ''}`];
  for (const s of report.sets) parts.push(renderSetTable(s));
  parts.push('Latency in ms per query (warm: same engine; cold: first query after Engine.open). All@10: all relevant in top 10, symbol-set queries only.');
  return `${parts.join('\n\n')}\n`;
}
