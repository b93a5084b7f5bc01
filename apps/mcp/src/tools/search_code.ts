import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { answerPaths, searchJson, searchTeamStore, type Engine, type SearchOptions, type SearchResponse } from '@ca/engine';
import { CaError, LANGUAGES, NODE_KINDS } from '@ca/schema';
import { errorResult, searchResult, type AnswerBudget, type Budgeted, type ShapedResult } from '../answers.js';
import { searchOutput } from '../shapes.js';
import { insideRepo, int, labelArg, labelOf, listOf, MAX_LIMIT, offsetArg, queryArg } from './args.js';
import { viewerLinks, viewerUrl } from '../viewer.js';
import { defineTool, READ_ONLY, type SchemaKit } from './context.js';

const input = (kit: SchemaKit) => ({
  query: queryArg,
  limit: int('limit', 1, MAX_LIMIT).optional().describe('Default 10.'),
  budget_tokens: int('budget_tokens', 0, 1_000_000).optional().describe(`Default ${Math.min(8000, kit.cap)}.`),
  min_score: z
    .number()
    .refine((v) => v >= 0 && v <= 1, 'min_score must be from 0 to 1')
    .optional(),
  language: listOf(LANGUAGES, 'language', 'ts,js or cs'),
  kind: listOf(NODE_KINDS, 'kind', 'class,method,function'),
  path: z.string().optional().describe('Glob, e.g. src/auth/**'),
  include_tests: z.boolean().optional(),
  include_docs: z.boolean().optional().describe('Also Markdown sections, JSON/YAML keys (kinds doc, config).'),
  filter: z.string().max(4096, 'filter is longer than 4096 characters').optional().describe('e.g. lang:cs and not is:test'),
  offset: offsetArg,
  ...labelArg,
  ...kit.repoArg,
  ...kit.reposArg,
});

type SearchArgs = z.output<z.ZodObject<ReturnType<typeof input>>>;
/** Searches several repositories as one ranking (null: the call's one repository). */
type Several = ((options: SearchOptions) => Promise<SearchResponse>) | null;

/** The retrieval options of a call: each page gets the budget, the first `offset` results are asked for again and skipped. */
function searchOptions(pathGlob: string | undefined, args: SearchArgs, cap: number): SearchOptions {
  const limit = args.limit ?? 10;
  const offset = args.offset ?? 0;
  const searchBudget = args.budget_tokens ?? Math.min(8000, cap);
  const pages = Math.ceil((offset + limit) / limit);
  return {
    limit: offset + limit,
    ...(args.language ? { languages: args.language } : {}),
    ...(args.kind ? { kinds: args.kind } : {}),
    ...(pathGlob !== undefined ? { pathGlob } : {}),
    ...(args.filter !== undefined ? { filter: args.filter } : {}),
    includeTests: args.include_tests === true,
    includeDocs: args.include_docs === true,
    budget: Math.min(Number.MAX_SAFE_INTEGER, searchBudget * pages),
    ...(args.min_score !== undefined ? { minScore: args.min_score } : {}),
  };
}

/** Each result with the qualified name of its container (a class or namespace; not a file or module). */
function withContainers(engine: Engine, label: string | undefined, results: ReturnType<typeof searchJson>['results']): ShapedResult[] {
  const parents = new Map(
    engine
      .reader(label)
      .nodesByIds(results.map((r) => Number(r.id)))
      .map((n) => [String(n.id), n.parentId] as const),
  );
  const parentNodes = new Map(
    engine
      .reader(label)
      .nodesByIds([...parents.values()].filter((p): p is number => p !== null))
      .map((n) => [n.id, n] as const),
  );
  return results.map((r) => {
    const p = parents.get(r.id);
    const parent = p === null || p === undefined ? undefined : parentNodes.get(p);
    return { ...r, container: parent && parent.kind !== 'file' && parent.kind !== 'module' ? parent.qualifiedName : null };
  });
}

/** One search answer: the page of results from `offset` that fits, measured as the items the client receives (summary included). */
async function search(engine: Engine, args: SearchArgs, cap: number, budget: AnswerBudget, several: Several): Promise<Budgeted> {
  const options = searchOptions(args.path === undefined ? undefined : insideRepo(engine.repoRoot, args.path, 'path'), args, cap);
  const response = several ? await several(options) : await engine.search(args.query, { ...options, ...labelOf(args) });
  const json = searchJson(response, true);
  // A running viewer (`ca ui`) of this repository: each result links to its symbol page. Not
  // across several repositories, whose results come from different indexes.
  const origin = several ? null : await viewerLinks.origin(engine.dbPath, engine.repoRoot);
  const shaped = withContainers(engine, args.label, json.results).map((r) => (origin === null ? r : { ...r, viewer: viewerUrl(origin, `/symbol/${encodeURIComponent(r.id)}`, args.label) }));
  const where = { freshness: engine.freshness(args.label, answerPaths(response.results)), ...(origin !== null ? { viewer: viewerUrl(origin, `/search?q=${encodeURIComponent(args.query)}`, args.label) } : {}) };
  return pageResults(args, response, json, shaped, budget, where);
}

/** The page of `shaped` results from the call's offset that fits, measured as the items the client receives; `where` says where it was read (freshness, or the team store's snapshot). */
function pageResults(args: SearchArgs, response: SearchResponse, json: ReturnType<typeof searchJson>, shaped: ShapedResult[], budget: AnswerBudget, where: { viewer?: string }): Budgeted {
  const limit = args.limit ?? 10;
  const offset = args.offset ?? 0;
  return budget.page(shaped.slice(0, Math.max(0, offset + limit)), offset, (items, page, cut) => {
    const notices = [...json.notices, ...(cut ? [cut] : [])];
    // A full page may have a next one (it may be empty): asking retrieval for one result more
    // would change the page itself (selection under the budget depends on the limit).
    const more = response.results.length >= offset + limit || page.nextOffset !== null ? offset + items.length : null;
    const structured = { query: json.query, intent: json.intent, results: items, tookMs: json.tookMs, notices, tokens: json.tokens, offset, nextOffset: more, ...where };
    const summary = `search_code ${JSON.stringify(json.query)}: ${items.length} result${items.length === 1 ? '' : 's'} (intent ${json.intent}${more !== null ? `; more from offset ${more}` : ''})${notices.map((n) => `\nnotice: ${n}`).join('')}${where.viewer !== undefined ? `\nviewer: ${where.viewer}` : ''}`;
    return searchResult(summary, items, structured, budget.warning);
  }, { kinds: () => ['results'] });
}

/** `search_code`: whole symbols by name or by a question in words, in one repository or several. */
export const searchCode = defineTool({
  name: 'search_code',
  description:
    'Find code by name or by a question in words: whole symbols, best first, unrelated bodies collapsed. Start here. label: an indexed commit (list_labels).',
  input,
  output: searchOutput,
  annotations: READ_ONLY,
  handler: (args, extra, ctx): Promise<CallToolResult> => {
    if (args.repos === undefined) return ctx.answer(args.repo, extra, (engine, _session, budget) => search(engine, args, ctx.cap, budget, null));
    // Several repositories: one ranking over their indexes (fusion across them), each result naming its repository.
    if (args.label !== undefined || args.repo !== undefined) return Promise.resolve(errorResult(new CaError('usage', 'repos searches the working trees of several repositories: it goes without repo and label')));
    return ctx.searchRepos(args.repos, extra, (engine, ws, budget) => search(engine, args, ctx.cap, budget, (options) => ws.search(args.query, options)));
  },
  // The team store: one repository's label (decision 046's channels), `store` (the snapshot read) in place of freshness.
  store: (args, ctx) =>
    ctx.search('search_code', args, async (pool, repository, label, budget) => {
      const path = args.path === undefined ? undefined : args.path.replace(/\\/g, '/').replace(/^\.\//, '');
      const response = await searchTeamStore(pool, repository, args.query, {
        ...searchOptions(path, args, ctx.cap),
        ...(label !== null ? { label } : {}),
        ...(ctx.options.embedding ? { embedding: ctx.options.embedding } : {}),
      });
      const json = searchJson(response, true);
      const shaped = json.results.map((r) => ({ ...r, container: response.containers[r.id] ?? null }));
      return { value: pageResults(args, response, json, shaped, budget, { store: { backend: 'postgres', ...response.store } } as { viewer?: string }), snapshotId: response.store.snapshotId };
    }),
});
