import { z } from 'zod';
import { answerPaths, budgetNavigation, estimateTokens, type Engine, type Navigation, type NavigationResult } from '@ca/engine';
import { CaError, CONFIDENCES } from '@ca/schema';
import { Budgeted, jsonResult, resultTexts, type AnswerBudget } from '../answers.js';
import { insideRepo, int, labelArg, labelOf, nonEmpty, oneOf, symbolArg } from './args.js';
import { viewerLinks, viewerUrl } from '../viewer.js';
import { defineTool, READ_ONLY, type AnyTool, type SchemaKit } from './context.js';

/** Nodes a navigation walk keeps by default (nearest first); the token cap pages what is kept. */
export const DEFAULT_MAX_NODES = 100;

/** Said once, on the first navigation tool: how every navigation answer reads. */
export const NAVIGATION_NOTE =
  ' Navigation tools share: depth (default 1), max_nodes (default 100), all (every match of an ambiguous name), detail (signatures|code), offset, min_confidence (exact|probable|approximate); complete:false (see gaps): an empty answer may be unknown.';

/** What one navigation tool is: the walk it runs, what it says it does, whether it takes a file. */
export interface NavigationSpec {
  readonly name: string;
  readonly navigation: Navigation;
  readonly description: string;
  /** The target may be a file path (dependencies, dependents). */
  readonly fileOrSymbol?: true;
}

/** The arguments every navigation tool takes (get_callers also through_interfaces). */
const input = (spec: NavigationSpec, kit: SchemaKit) => ({
  symbol: spec.fileOrSymbol ? nonEmpty('symbol').describe('A file path or a symbol.') : symbolArg,
  depth: int('depth', 1, 1_000_000).optional(),
  // Values checked, not advertised as enums: the shared note on the first navigation tool
  // names them once instead of seven times in every agent's context.
  min_confidence: oneOf('min_confidence', CONFIDENCES),
  max_nodes: int('max_nodes', 1, 50_000).optional(),
  all: z.boolean().optional(),
  detail: oneOf('detail', ['signatures', 'code'] as const),
  offset: int('offset', 0, 1_000_000).optional(),
  ...(spec.navigation === 'callers' ? { through_interfaces: z.boolean().optional().describe('Also via interface/base.') } : {}),
  ...labelArg,
  ...kit.repoArg,
});

type NavigationArgs = z.output<z.ZodObject<ReturnType<typeof input>>> & { through_interfaces?: boolean | undefined };

/** Walks the graph from the call's target and answers the page from its offset (with a link into a running viewer). */
async function navigate(spec: NavigationSpec, engine: Engine, args: NavigationArgs, budget: AnswerBudget): Promise<Budgeted> {
  // A file argument is looked up inside the repository only.
  const target = spec.fileOrSymbol && /[\\/]/.test(args.symbol) ? insideRepo(engine.repoRoot, args.symbol, 'file') : args.symbol;
  const depth = args.depth;
  const maxConfig = engine.config.graph.max_depth;
  if (depth !== undefined && depth > maxConfig) {
    throw new CaError('usage', `depth ${depth} is over the configured cap graph.max_depth (${maxConfig})`);
  }
  const result = engine.navigate(spec.navigation, target, {
    ...(depth !== undefined ? { depth } : {}),
    ...(args.min_confidence !== undefined ? { minConfidence: args.min_confidence as (typeof CONFIDENCES)[number] } : {}),
    maxNodes: args.max_nodes ?? DEFAULT_MAX_NODES,
    all: args.all === true,
    throughInterfaces: args.through_interfaces === true,
    ...labelOf(args),
  });
  const origin = await viewerLinks.origin(engine.dbPath, engine.repoRoot);
  const page = `/${spec.navigation === 'impact' ? 'impact' : 'symbol'}/${encodeURIComponent(result.symbol.id)}`;
  const viewer = origin === null ? null : viewerUrl(origin, page, args.label);
  return pageNavigation(engine, result, (args.detail as 'signatures' | 'code' | undefined) ?? 'signatures', args.offset ?? 0, budget, args.label, viewer);
}

/** A navigation tool (callers, callees, references, …): one walk, the shared arguments and paging. */
export function navigationTool(spec: NavigationSpec): AnyTool {
  return defineTool({
    name: spec.name,
    description: spec.description,
    input: (kit) => input(spec, kit),
    annotations: READ_ONLY,
    handler: (args, extra, ctx) => ctx.answer(args.repo, extra, (engine, _session, budget) => navigate(spec, engine, args, budget)),
  });
}

/**
 * A navigation answer as the page from `offset` that fits the budget: whole nodes and edges
 * (see `budgetNavigation`), `byFile` narrowed to the page's nodes; `detail: code` adds each
 * node's (collapsed) code, `signatures` leaves the symbol's own code out.
 */
function pageNavigation(engine: Engine, result: NavigationResult & { symbol: { code: string } }, detail: 'signatures' | 'code', offset: number, budget: AnswerBudget, label: string | undefined, viewer: string | null): Budgeted {
  const code = detail === 'code' ? new Map(engine.reader(label).nodesByIds(result.nodes.map((n) => Number(n.id))).map((n) => [String(n.id), n.chunkText] as const)) : null;
  const nodes = result.nodes.map((n) => (code ? { ...n, code: code.get(n.id) ?? '' } : n));
  const { code: symbolCode, ...symbol } = result.symbol;
  // The symbol's own code rides on every page: past half the cap it is cut (get_source_spans reads it whole).
  const ownCode = detail === 'code' ? (estimateTokens(symbolCode) > budget.cap / 2 ? cutToTokens(symbolCode, Math.floor(budget.cap / 2)) : symbolCode) : null;
  const whole = { ...result, symbol: ownCode === null ? symbol : { ...symbol, code: ownCode }, nodes, freshness: engine.freshness(label, answerPaths([result.symbol], result.nodes, result.edges)), ...(viewer !== null ? { viewer } : {}) };
  return new Budgeted(budgetNavigation(whole, offset, budget.cap, (value) => jsonResult(value, budget.warning), resultTexts).rendered);
}

/** `text` cut to about `tokens` tokens, with a marker saying how much was cut. */
function cutToTokens(text: string, tokens: number): string {
  const keep = Math.max(0, Math.floor(tokens * 3.5) - 40);
  return `${text.slice(0, keep)}… [cut ${text.length - keep} chars]`;
}
