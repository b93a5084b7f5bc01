/**
 * `ca affected BASE..HEAD`: what a diff between two indexed labels changed and what that
 * impacts across both languages — text for a review, `--json` for CI (decision 044).
 */
import type { AffectedReport, ChangedSymbol, ImpactedSymbol } from '@ca/engine';
import { CaError, CONFIDENCES, type Confidence } from '@ca/schema';
import { printJson } from '../output.js';
import { openRepo, parseInteger, type QueryValues } from '../query.js';

/** The options `ca affected` reads. */
export type AffectedValues = QueryValues & { depth?: string; 'min-confidence'?: string; 'max-nodes'?: string };

/** Public symbols the risk line names before "and N more" (a large diff touches hundreds). */
const PUBLIC_API_SHOWN = 10;

/** `ca affected BASE..HEAD [--depth N] [--min-confidence C] [--max-nodes N] [--json]`. */
export async function cmdAffected(values: AffectedValues, args: string[]): Promise<number> {
  if (args.length !== 1) throw new CaError('usage', 'usage: ca affected BASE..HEAD [--depth N] [--json] (labels or commits indexed with ca index --label NAME --commit REV; HEAD empty: the working tree)');
  if (values.label !== undefined) throw new CaError('usage', 'affected compares the two labels of BASE..HEAD: --label does not apply');
  const depth = parseInteger(values.depth, '--depth', 1, 1_000_000);
  const maxNodes = parseInteger(values['max-nodes'], '--max-nodes', 1, 1_000_000);
  const raw = values['min-confidence'];
  if (raw !== undefined && !(CONFIDENCES as readonly string[]).includes(raw)) throw new CaError('usage', `--min-confidence must be one of ${CONFIDENCES.join(', ')} (got "${raw}")`);
  const engine = openRepo(values, 'affected');
  let report: AffectedReport;
  try {
    const maxDepth = engine.config.graph.max_depth;
    if (depth !== undefined && depth > maxDepth) throw new CaError('usage', `--depth ${depth} is over the configured cap graph.max_depth (${maxDepth})`);
    report = await engine.affected(args[0]!, {
      ...(depth !== undefined ? { depth } : {}),
      ...(maxNodes !== undefined ? { maxNodes } : {}),
      ...(raw !== undefined ? { minConfidence: raw as Confidence } : {}),
    });
  } finally {
    engine.close();
  }
  if (values.json) printJson(report);
  else process.stdout.write(renderAffected(report));
  return 0;
}

function side(s: AffectedReport['base']): string {
  return s.commit ? `${s.label} @ ${s.commit.slice(0, 12)}` : s.label;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function changedLines(c: ChangedSymbol): string {
  let line = `  ${c.change.padEnd(9)}  ${c.qualifiedName} (${c.kind}, ${c.language})  ${c.path}:${c.line}${c.isPublicApi ? '  public' : ''}\n`;
  if (c.previousSignature !== undefined) line += `             was: ${c.previousSignature}\n             now: ${c.signature}\n`;
  if (c.previousPath !== undefined) line += `             moved from ${c.previousPath}\n`;
  return line;
}

/** `getOrder → GET /api/orders/{id} (http_calls exact) → …GetById (handles exact)`. */
function chainText(s: ImpactedSymbol): string {
  return [s.qualifiedName, ...s.via.map((h) => `${h.to} (${h.type} ${h.confidence})`)].join(' → ');
}

function impactedLines(s: ImpactedSymbol): string {
  const marks = [s.confidence, s.crossesLanguage ? 'crosses language' : null, s.side === 'base' ? 'uses a removed symbol (base)' : null, s.isTest ? 'test' : null].filter((x) => x !== null);
  return `  ${String(s.depth).padStart(2)}  ${s.qualifiedName} (${s.kind}, ${s.language})  ${s.path}:${s.line}  [${marks.join(', ')}]\n       ${chainText(s)}\n`;
}

/** The review text of a report. */
export function renderAffected(r: AffectedReport): string {
  const f = r.files;
  const fileParts = [[f.modified.length, 'modified'], [f.added.length, 'added'], [f.removed.length, 'removed'], [f.renamed.length, 'renamed']]
    .filter(([n]) => (n as number) > 0)
    .map(([n, w]) => `${n} ${w}`);
  let out = `affected ${side(r.base)} .. ${side(r.head)}: ${fileParts.length > 0 ? `files ${fileParts.join(', ')}` : 'no file differs'}\n`;
  const k = r.risk;
  out += `risk: ${k.level.toUpperCase()}${k.reasons.length > 0 ? ` — ${k.reasons.join('; ')}` : ''}\n`;
  out += `  ${plural(k.changedSymbols, 'changed symbol')}, ${plural(k.dependents, 'dependent')} in ${plural(k.dependentFiles, 'file')}, ${plural(k.endpoints, 'endpoint')}, ${plural(k.tests, 'test')}; languages ${k.languages.join(', ') || '-'}\n`;
  if (k.publicApi.length > 0) {
    const more = k.publicApi.length - PUBLIC_API_SHOWN;
    out += `  public API: ${k.publicApi.slice(0, PUBLIC_API_SHOWN).join(', ')}${more > 0 ? `, and ${more} more (--json lists them all)` : ''}\n`;
  }
  for (const rename of f.renamed) out += `renamed ${rename.from} → ${rename.to}\n`;
  if (r.changed.length > 0) out += `\nChanged (${r.changed.length}):\n${r.changed.map(changedLines).join('')}`;
  if (r.impacted.length > 0) out += `\nImpacted (${r.impacted.length}, depth ≤ ${r.depth}, nearest first):\n${r.impacted.map(impactedLines).join('')}`;
  if (r.endpoints.length > 0) out += `\nEndpoints (${r.endpoints.length}):\n${r.endpoints.map((e) => `  ${e.name}  ${e.path}:${e.line}  (${e.reason}${e.reason === 'impacted' ? `, depth ${e.depth}` : ''})\n`).join('')}`;
  if (r.tests.length > 0) out += `\nTests reached (${r.tests.length}):\n${r.tests.map((t) => `  ${t.qualifiedName}  ${t.path}:${t.line}  (depth ${t.depth})\n`).join('')}`;
  if (r.truncated || r.gaps.length > 0) out += '\n';
  if (r.truncated) out += 'note: the walk was cut at the node cap (--max-nodes): more symbols may be impacted\n';
  for (const g of r.gaps) out += `note: incomplete — ${g.scope}: ${g.reason}\n`;
  return out;
}
