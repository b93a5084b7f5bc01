import { percentile, type AggregateMetrics } from './metrics.js';
import { ARCHETYPES } from './querySet.js';
import type { ConfigReport, EvalReport, SetReport } from './runner.js';

// Self-contained by construction: inline CSS, inline SVG written here, no scripts, fonts or URLs,
// so the report opens from disk (or an air-gapped CI artifact) exactly as generated.

const PALETTE: Readonly<Record<string, string>> = {
  hybrid: '#2f6fdb',
  bm25: '#e08a1e',
  vector: '#8a5cc7',
  name: '#2a9d6f',
  'no-hub': '#7fa7ea',
  'no-defboost': '#9aa3ad',
};
const colorOf = (id: string): string => PALETTE[id] ?? '#555';

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const f3 = (x: number | null | undefined): string => (x === null || x === undefined || Number.isNaN(x) ? '–' : x.toFixed(3));
const fms = (x: number | null | undefined): string => (x === null || x === undefined ? '–' : x < 10 ? x.toFixed(2) : x.toFixed(1));

/** Grouped bars: NDCG@10 per archetype (and overall), one bar per available configuration. */
export function archetypeBarChart(s: SetReport): string {
  const configs = s.configs.filter((c) => c.overall !== null);
  const groups: { label: string; pick: (c: ConfigReport) => AggregateMetrics | undefined }[] = [
    { label: 'overall', pick: (c) => c.overall ?? undefined },
    ...ARCHETYPES.filter((a) => configs.some((c) => c.byArchetype[a])).map((a) => ({
      label: `${a} (${configs[0]?.byArchetype[a]?.n ?? 0})`,
      pick: (c: ConfigReport) => c.byArchetype[a],
    })),
  ];
  const barW = 14;
  const gap = 22;
  const groupW = Math.max(configs.length, 1) * barW + gap;
  const left = 44;
  const top = 16;
  const plotH = 220;
  const width = left + groups.length * groupW + 20;
  const height = top + plotH + 64;
  const y = (v: number) => top + plotH - v * plotH;
  const parts: string[] = [];
  for (let t = 0; t <= 5; t++) {
    const v = t / 5;
    parts.push(`<line x1="${left}" x2="${width - 10}" y1="${y(v)}" y2="${y(v)}" stroke="#e3e6ea"/>`);
    parts.push(`<text x="${left - 6}" y="${y(v) + 4}" text-anchor="end" class="tick">${v.toFixed(1)}</text>`);
  }
  groups.forEach((g, gi) => {
    const x0 = left + gi * groupW + gap / 2;
    configs.forEach((c, ci) => {
      const m = g.pick(c);
      if (!m) return;
      const v = Math.max(0, Math.min(1, m.ndcg10));
      const x = x0 + ci * barW;
      parts.push(
        `<rect x="${x}" y="${y(v)}" width="${barW - 2}" height="${Math.max(0.5, plotH - (y(v) - top))}" fill="${colorOf(c.id)}"><title>${esc(`${c.label} · ${g.label}: NDCG@10 ${f3(m.ndcg10)} (n=${m.n})`)}</title></rect>`,
      );
    });
    const cx = x0 + (configs.length * barW) / 2;
    parts.push(`<text x="${cx}" y="${top + plotH + 16}" text-anchor="middle" class="lbl">${esc(g.label.split(' ')[0]!)}</text>`);
    const n = g.label.split(' ')[1];
    if (n) parts.push(`<text x="${cx}" y="${top + plotH + 30}" text-anchor="middle" class="tick">${esc(n)}</text>`);
  });
  parts.push(`<text x="12" y="${top + plotH / 2}" transform="rotate(-90 12 ${top + plotH / 2})" text-anchor="middle" class="lbl">NDCG@10</text>`);
  return `<svg data-chart="archetypes" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="NDCG@10 per archetype and configuration">${parts.join('')}</svg>`;
}

/** Box plots of warm latency per configuration (whiskers p5–p95), with the cold p50 as a diamond. */
export function latencyChart(s: SetReport): string {
  const configs = s.configs.filter((c) => c.latency.warmSamples.length > 0);
  const left = 150;
  const right = 30;
  const rowH = 30;
  const top = 14;
  const plotW = 520;
  const width = left + plotW + right;
  const height = top + configs.length * rowH + 40;
  const maxV = Math.max(
    1,
    ...configs.map((c) => percentile(c.latency.warmSamples, 95)),
    ...configs.map((c) => c.latency.cold.p95 ?? 0),
  ) * 1.1;
  const x = (v: number) => left + Math.min(v / maxV, 1) * plotW;
  const parts: string[] = [];
  for (let t = 0; t <= 5; t++) {
    const v = (maxV * t) / 5;
    parts.push(`<line x1="${x(v)}" x2="${x(v)}" y1="${top}" y2="${top + configs.length * rowH}" stroke="#e3e6ea"/>`);
    parts.push(`<text x="${x(v)}" y="${top + configs.length * rowH + 14}" text-anchor="middle" class="tick">${fms(v)}</text>`);
  }
  configs.forEach((c, i) => {
    const w = c.latency.warmSamples;
    const cy = top + i * rowH + rowH / 2;
    const [p5, p25, p50, p75, p95] = [5, 25, 50, 75, 95].map((p) => percentile(w, p)) as [number, number, number, number, number];
    const col = colorOf(c.id);
    parts.push(`<text x="${left - 8}" y="${cy + 4}" text-anchor="end" class="lbl">${esc(c.label)}</text>`);
    parts.push(`<line x1="${x(p5)}" x2="${x(p95)}" y1="${cy}" y2="${cy}" stroke="${col}"/>`);
    parts.push(`<line x1="${x(p5)}" x2="${x(p5)}" y1="${cy - 5}" y2="${cy + 5}" stroke="${col}"/>`);
    parts.push(`<line x1="${x(p95)}" x2="${x(p95)}" y1="${cy - 5}" y2="${cy + 5}" stroke="${col}"/>`);
    parts.push(
      `<rect x="${x(p25)}" y="${cy - 8}" width="${Math.max(1, x(p75) - x(p25))}" height="16" fill="${col}" fill-opacity="0.35" stroke="${col}"><title>${esc(`${c.label} warm: p25 ${fms(p25)} · p50 ${fms(p50)} · p75 ${fms(p75)} · p95 ${fms(p95)} ms (n=${w.length})`)}</title></rect>`,
    );
    parts.push(`<line x1="${x(p50)}" x2="${x(p50)}" y1="${cy - 8}" y2="${cy + 8}" stroke="#111" stroke-width="2"/>`);
    if (c.latency.cold.p50 !== null) {
      const cx = x(c.latency.cold.p50);
      parts.push(
        `<path d="M${cx} ${cy - 6} L${cx + 6} ${cy} L${cx} ${cy + 6} L${cx - 6} ${cy} Z" fill="#d33"><title>${esc(`${c.label} cold p50 ${fms(c.latency.cold.p50)} ms (n=${c.latency.cold.n})`)}</title></path>`,
      );
    }
  });
  parts.push(`<text x="${left + plotW / 2}" y="${height - 6}" text-anchor="middle" class="lbl">ms per query (box: warm p25–p75, line: p50, whiskers: p5–p95, ◆ cold p50)</text>`);
  return `<svg data-chart="latency" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="Latency distribution per configuration">${parts.join('')}</svg>`;
}

function metricsTable(s: SetReport): string {
  const head = ['configuration', 'status', 'NDCG@10', 'P@5', 'R@20', 'MRR', 'S@1', 'S@5', 'All@10', 'non-leaky NDCG', 'warm p50', 'warm p95', 'cold p50', 'cold p95', 'neg. violations'];
  const rows = s.configs.map((c) => {
    const m = c.overall;
    const status = c.status === 'ok' ? (c.identicalToHybrid ? 'ok (= hybrid)' : 'ok') : c.status;
    return [
      `<span class="sw" style="background:${colorOf(c.id)}"></span>${esc(c.label)}`,
      `<span title="${esc(c.notices.join('; '))}">${esc(status)}</span>`,
      f3(m?.ndcg10),
      f3(m?.p5),
      f3(m?.r20),
      f3(m?.mrr),
      f3(m?.s1),
      f3(m?.s5),
      m?.allInTop10 === null || m === null ? '–' : `${f3(m.allInTop10)} (${m.setQueries})`,
      f3(c.overallNonLeaky?.ndcg10 ?? m?.ndcg10),
      fms(c.latency.warm.p50),
      fms(c.latency.warm.p95),
      fms(c.latency.cold.p50),
      fms(c.latency.cold.p95),
      c.negative.rate === null ? '–' : `${c.negative.violations}/${c.negative.queries}`,
    ];
  });
  return `<table><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`)
    .join('')}</tbody></table>`;
}

function queryDetails(s: SetReport): string {
  const rows = s.queries
    .filter((q) => q.configs['hybrid']?.metrics)
    .map((q) => {
      const h = q.configs['hybrid']!;
      const top = h.top
        .slice(0, 5)
        .map((t, i) => `<li class="${(h.grades[i] ?? 0) > 0 ? 'hit' : ''}">${esc(t)}${(h.grades[i] ?? 0) > 0 ? ` <b>g${h.grades[i]}</b>` : ''}</li>`)
        .join('');
      const gold = q.relevant.map((j) => `${esc(j.symbol)} (${j.grade}${j.resolved ? '' : ', not in index'})`).join('<br>');
      return `<tr><td>${esc(q.id)}${q.leaky ? ' <i>leaky</i>' : ''}</td><td>${esc(q.archetype)}</td><td>${esc(q.query.length > 160 ? `${q.query.slice(0, 160)}…` : q.query)}</td><td>${f3(h.metrics?.ndcg10)}</td><td class="small">${gold}</td><td class="small"><ol>${top}</ol></td></tr>`;
    })
    .join('');
  return `<details><summary>Per-query results (hybrid)</summary><table class="q"><thead><tr><th>id</th><th>archetype</th><th>query</th><th>NDCG@10</th><th>judgements</th><th>top 5</th></tr></thead><tbody>${rows}</tbody></table></details>`;
}

function legend(s: SetReport): string {
  return `<p class="legend">${s.configs
    .map((c) => `<span><span class="sw" style="background:${colorOf(c.id)}"></span>${esc(c.label)}${c.status === 'unavailable' ? ' (unavailable: not charted)' : ''}</span>`)
    .join(' ')}</p>`;
}

function setSection(s: SetReport): string {
  const notes = [
    ...s.configs.filter((c) => c.status !== 'ok').map((c) => `${c.label}: ${c.status} — ${c.notices.join('; ')}`),
    ...s.notes,
    ...(s.excluded.length > 0 ? [`${s.excluded.length} queries excluded (no relevant symbol in the index)`] : []),
    ...s.warnings.slice(0, 10),
  ];
  return `<section>
<h2>${esc(s.name)}</h2>
<p class="meta">${esc(s.repo)}${s.commit ? ` @ ${esc(s.commit)}` : ''} · ${s.evaluated} of ${s.totalQueries} queries scored${s.index ? ` · index ${s.index.files} files, ${s.index.symbols} symbols, ${s.index.lines} lines` : ''}</p>
${metricsTable(s)}
${notes.length > 0 ? `<ul class="notes">${notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>` : ''}
<h3>NDCG@10 per archetype</h3>
${legend(s)}
<figure>${archetypeBarChart(s)}</figure>
<h3>Latency distribution</h3>
<figure>${latencyChart(s)}</figure>
${queryDetails(s)}
</section>`;
}

const CSS = `body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1c2430;margin:24px;max-width:1150px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 2px;border-top:1px solid #dde2e8;padding-top:16px}h3{font-size:15px;margin:18px 0 4px}
table{border-collapse:collapse;margin:8px 0;font-variant-numeric:tabular-nums}th,td{border-bottom:1px solid #e6e9ee;padding:3px 8px;text-align:right;vertical-align:top}
th:first-child,td:first-child{text-align:left}table.q td{text-align:left}.small{font-size:12px}.hit{color:#1a7f37}
.meta,.legend{color:#5b6573;margin:2px 0}.sw{display:inline-block;width:10px;height:10px;margin:0 4px 0 10px;border-radius:2px}
.tick{font-size:10px;fill:#5b6573}.lbl{font-size:11px;fill:#1c2430}.notes{color:#7a4d00;font-size:13px}figure{margin:6px 0}ol{margin:0;padding-left:18px}`;

/** The self-contained HTML report (inline CSS and SVG; no scripts, fonts or network). */
export function renderHtmlReport(report: EvalReport): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>ca eval report</title><style>${CSS}</style></head>
<body>
<h1>Code Agent retrieval evaluation</h1>
<p class="meta">${esc(report.startedAt)} · split: <b>${esc(report.split)}</b> · configurations: ${report.configurations.map((c) => esc(c.label)).join(', ')}</p>
${report.sets.map(setSection).join('\n')}
<p class="meta">NDCG@10: graded gain 2^grade−1, log2 discount, ideal from all judgements. All@10: every relevant symbol in the top 10 (symbol-set queries). Cold: first query after opening the engine; warm: same engine.</p>
</body></html>
`;
}
