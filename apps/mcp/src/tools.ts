import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { searchJson, toSymbolView, type Engine, type Navigation } from '@ca/engine';
import { CaError, CONFIDENCES, LANGUAGES, NODE_KINDS, toCaError } from '@ca/schema';
import { DEFAULT_PROGRESS_TIMINGS, progressNotifier } from './progress.js';
import type { Session } from './session.js';
import { indexOutput, navigationOutput, searchOutput, statusOutput, symbolOutput } from './shapes.js';

/** Longest query the retrieval pipeline reads (its MAX_QUERY_CHARS); longer ones are refused, not cut. */
export const MAX_QUERY_CHARS = 8192;
/** Nodes a navigation answer keeps by default (nearest first): about the size of a search budget. */
export const DEFAULT_MAX_NODES = 100;

/** The tool names, in the order `tools/list` gives them. */
export const TOOL_NAMES = [
  'search',
  'symbol',
  'callers',
  'callees',
  'references',
  'implementations',
  'dependencies',
  'dependents',
  'impact',
  'status',
  'index',
] as const;

const oneOrMany = <T extends readonly [string, ...string[]]>(values: T, what: string) =>
  z.union([z.enum(values), z.array(z.enum(values)).min(1)]).optional().describe(`Only these ${what}: one of ${values.join(', ')}, or a list.`);

const searchInput = {
  query: z
    .string()
    .max(MAX_QUERY_CHARS, `query is longer than ${MAX_QUERY_CHARS} characters; ask with the words or names that matter`)
    .refine((q) => q.trim() !== '', 'query is empty')
    .describe('An exact or partial symbol name (AuthService.login, issueToken), or a question in words ("where are failed logins rate limited").'),
  limit: z.number().int().min(1).max(1000).optional().describe('Most results to return (default 10).'),
  budget: z.number().int().min(0).optional().describe('Token budget of all returned code (default 16384). Results that do not fit are left out.'),
  language: oneOrMany(LANGUAGES, 'languages'),
  kind: oneOrMany(NODE_KINDS, 'symbol kinds'),
  path: z.string().optional().describe('Glob over repository-relative paths, e.g. "src/auth/**" or "**/*.tsx".'),
  include_tests: z.boolean().optional().describe('Do not rank test code down (default false).'),
  min_score: z.number().min(0).max(1).optional().describe('Drop results scoring under this fraction of the best one (0-1, default 0).'),
  explain: z.boolean().optional().describe('Each matchedBy entry gets the channel rank, e.g. "bm25#2".'),
};

const symbolArg = z
  .string()
  .refine((s) => s.trim() !== '', 'symbol is empty')
  .describe('A symbol id (from an earlier answer), a qualified name (AuthService.login) or a bare name (login).');

const navigationInput = (target: z.ZodType<string>) => ({
  symbol: target,
  depth: z
    .number()
    .int('depth must be a whole number of hops')
    .min(1, 'depth must be at least 1')
    .optional()
    .describe('Hops to follow (default 1; capped by graph.max_depth, default 20).'),
  min_confidence: z
    .enum(CONFIDENCES, { error: `min_confidence must be one of ${CONFIDENCES.join(', ')}` })
    .optional()
    .describe('Weakest edge kept: exact (compiler-resolved), probable, or approximate (name-matched; default).'),
  max_nodes: z
    .number()
    .int()
    .min(1, 'max_nodes must be at least 1')
    .optional()
    .describe(`Most nodes kept, nearest first (default ${DEFAULT_MAX_NODES}); "truncated": true and "totalReached" say when more were found.`),
  all: z.boolean().optional().describe('When a bare name matches several symbols, use them all instead of failing with the list.'),
});

const NAVIGATION_TOOLS: readonly { name: (typeof TOOL_NAMES)[number]; navigation: Navigation; description: string; fileOrSymbol?: true }[] = [
  { name: 'callers', navigation: 'callers', description: 'Who calls this function or method. Use before changing its signature or behaviour.' },
  { name: 'callees', navigation: 'callees', description: 'What this function or method calls (unresolved names have "to": null and their name in targetName).' },
  { name: 'references', navigation: 'refs', description: 'Every use of a symbol: calls, type and value references, imports.' },
  {
    name: 'implementations',
    navigation: 'impls',
    description: 'Implementations of an interface, subclasses of a class, overrides or implementations of a member.',
  },
  {
    name: 'dependencies',
    navigation: 'deps',
    description: 'What a file or symbol imports and uses (outgoing imports, calls, references, inheritance).',
    fileOrSymbol: true,
  },
  { name: 'dependents', navigation: 'dependents', description: 'What imports or uses a file or symbol (incoming edges of every kind).', fileOrSymbol: true },
  {
    name: 'impact',
    navigation: 'impact',
    description: 'Blast radius: transitive dependents of a symbol grouped by file ("byFile"), each with the chain that reaches it. Use depth 3-5 before a risky change.',
  },
];

const NAVIGATION_NOTE =
  ' Returns {symbol, edges, nodes, complete, gaps, truncated, …}: "complete": false means part of the scope has only approximate edges (see "gaps"), so an empty answer may be unknown rather than none.';

type ToolAnswer = CallToolResult;
type RequestExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** The JSON a CLI `--json` error prints, as an MCP error result. */
function errorResult(e: unknown, extra: Record<string, unknown> = {}): ToolAnswer {
  const err = toCaError(e);
  return { content: [{ type: 'text', text: JSON.stringify({ error: { code: err.code, message: err.message, ...extra } }) }], isError: true };
}

function jsonResult(value: object, warning: string | null): ToolAnswer {
  return {
    content: [{ type: 'text', text: JSON.stringify(value) }, ...(warning ? [{ type: 'text' as const, text: `warning: ${warning}` }] : [])],
    structuredContent: value as Record<string, unknown>,
  };
}

/** Candidates of an ambiguous name, as symbol views (the agent retries with an id). */
function candidatesOf(engine: Engine | null, e: unknown): Record<string, unknown> {
  if (!(e instanceof CaError) || e.code !== 'ambiguous_symbol' || !engine) return {};
  const ids = (e.context['candidates'] as number[] | undefined) ?? [];
  return { candidates: engine.reader().nodesByIds(ids.slice(0, 20)).map(toSymbolView) };
}

/**
 * `path` (a file or a glob) as a repository-relative POSIX path; one that leads outside the
 * repository (absolute elsewhere, or climbing out with `..`) is an `invalid_path` error.
 */
function insideRepo(root: string, path: string, what: string): string {
  const rel = relative(root, resolve(root, path));
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    throw new CaError('invalid_path', `${what} is outside the repository ${root}: ${path}`, { context: { path } });
  }
  return rel.split(sep).join('/');
}

const list = <T>(v: T | readonly T[] | undefined): T[] | undefined => (v === undefined ? undefined : Array.isArray(v) ? [...(v as readonly T[])] : [v as T]);

/** Registers the Code Agent tools on `server`, answering from `session`'s engine. */
export function registerTools(server: McpServer, session: Session): void {
  /** Opens the engine, refreshes the index when the session does, answers; every failure is an error result. */
  const answer = async (produce: (engine: Engine) => object | Promise<object>, extra: RequestExtra, refresh = true): Promise<ToolAnswer> => {
    let engine: Engine | null = null;
    const progress = reportProgress(extra);
    try {
      const opened = (engine = session.engine());
      return await session.answer(async () => {
        const warning = refresh ? await session.beforeAnswer() : null;
        return jsonResult(await produce(opened), warning);
      });
    } catch (e) {
      return errorResult(e, candidatesOf(engine, e));
    } finally {
      progress?.();
    }
  };
  /** Index progress as MCP progress notifications, when the request asked for them; returns the stop function. */
  const reportProgress = (extra: RequestExtra): (() => void) | null => {
    const token = extra._meta?.progressToken;
    if (token === undefined) return null;
    const timings = { ...DEFAULT_PROGRESS_TIMINGS, ...session.options.progress };
    const notifier = progressNotifier((progress, message) => {
      extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, message } }).catch(() => undefined);
    }, timings);
    const unsubscribe = session.onProgress(notifier.listener);
    return () => {
      unsubscribe();
      notifier.stop();
    };
  };
  const readOnly = { readOnlyHint: true, openWorldHint: false } as const;

  server.registerTool(
    'search',
    {
      title: 'Search code',
      description:
        'Find symbols (functions, classes, methods, components…) by name or by a question in words: hybrid name, BM25 and vector search returning whole symbols with their code, best first, within a token budget. Start here when you do not know where something lives.',
      inputSchema: searchInput,
      outputSchema: searchOutput,
      annotations: readOnly,
    },
    (args, extra) =>
      answer(async (engine) => {
        const pathGlob = args.path === undefined ? undefined : insideRepo(engine.repoRoot, args.path, 'path');
        const languages = list(args.language);
        const kinds = list(args.kind);
        const response = await engine.search(args.query, {
          ...(args.limit !== undefined ? { limit: args.limit } : {}),
          ...(languages ? { languages } : {}),
          ...(kinds ? { kinds } : {}),
          ...(pathGlob !== undefined ? { pathGlob } : {}),
          includeTests: args.include_tests === true,
          ...(args.budget !== undefined ? { budget: args.budget } : {}),
          ...(args.min_score !== undefined ? { minScore: args.min_score } : {}),
        });
        return { ...searchJson(response, args.explain === true), freshness: engine.freshness() };
      }, extra),
  );

  server.registerTool(
    'symbol',
    {
      title: 'Symbol source',
      description:
        'The full source and metadata (kind, file, lines, signature, doc, modifiers) of one symbol. A bare name that matches several symbols is an error listing the candidates with their ids.',
      inputSchema: { symbol: symbolArg },
      outputSchema: symbolOutput,
      annotations: readOnly,
    },
    (args, extra) =>
      answer((engine) => {
        const { node, code, stale } = engine.source(args.symbol);
        return { symbol: toSymbolView(node), code, stale };
      }, extra),
  );

  for (const tool of NAVIGATION_TOOLS) {
    const target = tool.fileOrSymbol
      ? z
          .string()
          .refine((s) => s.trim() !== '', 'symbol is empty')
          .describe('A repository-relative file path (src/auth/authService.ts), or a symbol id, qualified name or bare name.')
      : symbolArg;
    server.registerTool(
      tool.name,
      {
        title: tool.name,
        description: tool.description + NAVIGATION_NOTE,
        inputSchema: {
          ...navigationInput(target),
          ...(tool.navigation === 'callers'
            ? { through_interfaces: z.boolean().optional().describe('Also callers of the interface or base member this implements.') }
            : {}),
        },
        outputSchema: navigationOutput,
        annotations: readOnly,
      },
      (args: z.infer<z.ZodObject<ReturnType<typeof navigationInput>>> & { through_interfaces?: boolean }, extra: RequestExtra) =>
        answer((engine) => {
          // A file argument is looked up inside the repository only.
          const target = tool.fileOrSymbol && /[\\/]/.test(args.symbol) ? insideRepo(engine.repoRoot, args.symbol, 'file') : args.symbol;
          const result = engine.navigate(tool.navigation, target, {
            ...(args.depth !== undefined ? { depth: args.depth } : {}),
            ...(args.min_confidence !== undefined ? { minConfidence: args.min_confidence } : {}),
            maxNodes: args.max_nodes ?? DEFAULT_MAX_NODES,
            all: args.all === true,
            throughInterfaces: args.through_interfaces === true,
          });
          return { ...result, freshness: engine.freshness() };
        }, extra),
    );
  }

  server.registerTool(
    'status',
    {
      title: 'Index status',
      description:
        'Index contents and health: file/symbol counts, files not fully parsed with the reason, semantic (exact edge) state per language, whether the vector channel is on (or "off: <reason>"), and when the index was last brought up to date.',
      inputSchema: {},
      outputSchema: statusOutput,
      annotations: readOnly,
    },
    (_args, extra) =>
      answer(async (engine) => {
        const status = engine.status();
        // The query side's own view: the model may be missing now although the index has vectors.
        const off = await engine.vectorOffReason();
        return { ...status, vectorChannel: off === null ? status.vectorChannel : `off: ${off}`, freshness: session.state() };
      }, extra),
  );

  server.registerTool(
    'index',
    {
      title: 'Update the index',
      description: session.options.refresh
        ? 'Bring the index up to date now (incremental: only changed files are parsed) and retry semantic passes that failed. Rarely needed: every other tool already brings the index up to date before answering.'
        : 'Bring the index up to date now (incremental: only changed files are parsed) and retry semantic passes that failed. This server does not refresh by itself: call it after editing files.',
      inputSchema: {},
      outputSchema: indexOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    (_args, extra) => answer(() => session.refresh({ retryFailed: true }), extra, false),
  );
}
