import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { defaultConfig, CaError, type Config } from '@ca/schema';
import { toSymbolView, type GraphReads } from '@ca/engine';
import { chooseLabel, redactUrl, TeamStorePool } from '@ca/store-postgres';
import { AnswerBudget, errorResult } from './answers.js';
import { withinBudget } from './tools/answer.js';
import type { StoreProduce, StoreSearch, StoreToolContext } from './tools/context.js';
import { INSTRUCTIONS, TOOLS } from './tools/index.js';
import { registerStoreTable } from './tools/register.js';
import { CLOSE_DEADLINE_MS, whenToStop, within } from './lifecycle.js';
import { guardProcess, guardStdout, SERVER_VERSION, stderrLog } from './server.js';
import { LineTransport } from './stdio.js';

// The MCP server over the team store (decision 050): every tool answers from a repository's
// label on PostgreSQL, each request from one snapshot; the server keeps only a connection pool
// and a bounded cache of answers keyed by snapshot id (a snapshot never changes, so an entry
// never goes stale; a label that moves is seen on the next request, which resolves it anew).

/** Options of a server over the team store. */
export interface TeamStoreServerOptions {
  /** The store's URL (a read-only role suffices). */
  readonly url: string;
  /** The repository a call without `repo` reads (default: the store's only repository). */
  readonly repository?: string;
  /** The label a call without `label` reads (default: decision 050's rule). */
  readonly label?: string;
  /** Token cap of one answer's text. */
  readonly answerTokens: number;
  /** The query embedder's configuration (default: the default configuration's). */
  readonly embedding?: Config['embedding'];
  /** Connections of the pool (default 10). */
  readonly poolSize?: number;
  /** Most characters of cached answers (default 64 Mi). */
  readonly cacheChars?: number;
  readonly log?: (line: string) => void;
}

/** Default size of the answer cache, in characters of answer text. */
export const STORE_CACHE_CHARS = 64 * 1024 * 1024;

/** A bounded least-recently-used map of answers, sized by their text. */
export class AnswerCache {
  private readonly entries = new Map<string, { result: CallToolResult; chars: number }>();
  private chars = 0;
  hits = 0;
  misses = 0;

  constructor(private readonly maxChars: number) {}

  get(key: string): CallToolResult | undefined {
    const e = this.entries.get(key);
    if (!e) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    // Most recently used last.
    this.entries.delete(key);
    this.entries.set(key, e);
    return e.result;
  }

  set(key: string, result: CallToolResult): void {
    const chars = JSON.stringify(result).length + key.length;
    if (chars > this.maxChars) return;
    const old = this.entries.get(key);
    if (old) {
      this.chars -= old.chars;
      this.entries.delete(key);
    }
    this.entries.set(key, { result, chars });
    this.chars += chars;
    for (const [k, e] of this.entries) {
      if (this.chars <= this.maxChars) break;
      this.entries.delete(k);
      this.chars -= e.chars;
    }
  }

  get size(): number {
    return this.entries.size;
  }
}

/** The state a server over the team store keeps between requests: the pool, the cache, its defaults. */
export class TeamStoreSource implements StoreToolContext {
  readonly pool: TeamStorePool;
  readonly cache: AnswerCache;
  readonly cap: number;

  constructor(readonly options: TeamStoreServerOptions) {
    this.pool = new TeamStorePool(options.url, options.poolSize !== undefined ? { max: options.poolSize } : {});
    this.cache = new AnswerCache(options.cacheChars ?? STORE_CACHE_CHARS);
    this.cap = options.answerTokens;
  }

  /** The repository a call reads: its `repo`, else the server's, else the store's only one. */
  async repository(asked: string | undefined): Promise<string> {
    const named = asked ?? this.options.repository;
    if (named !== undefined) return named;
    const all = await this.pool.repositories();
    if (all.length === 1) return all[0]!;
    if (all.length === 0) throw new CaError('unknown_label', 'the team store holds no repository yet (publish one: ca index --store URL)');
    throw new CaError('usage', `the team store holds several repositories (${all.join(', ')}): name one with repo (or start the server with --store-repo)`);
  }

  /** The label a call reads: its `label`, else the server's, else null (decision 050's rule). */
  label(asked: string | undefined): string | null {
    return asked ?? this.options.label ?? null;
  }

  async reads(tool: string, args: { repo?: string | undefined; label?: string | undefined }, produce: StoreProduce): Promise<CallToolResult> {
    let reads: GraphReads | null = null;
    try {
      reads = await this.pool.graphReads(await this.repository(args.repo), this.label(args.label));
      const key = cacheKey(tool, reads, args);
      const cached = this.cache.get(key);
      if (cached) return cached;
      const budget = new AnswerBudget(this.cap, null);
      const result = withinBudget(await produce(reads, budget), budget);
      if (result.isError !== true) this.cache.set(key, result);
      return result;
    } catch (e) {
      return errorResult(e, await candidates(reads, e));
    } finally {
      await reads?.close();
    }
  }

  async search(tool: string, args: { repo?: string | undefined; label?: string | undefined }, produce: StoreSearch): Promise<CallToolResult> {
    try {
      const repository = await this.repository(args.repo);
      const label = this.label(args.label);
      // The snapshot the label points at now: a cached answer of it is the answer.
      const reads = await this.pool.graphReads(repository, label);
      const key = cacheKey(tool, reads, args);
      await reads.close();
      const cached = this.cache.get(key);
      if (cached) return cached;
      const budget = new AnswerBudget(this.cap, null);
      const { value, snapshotId } = await produce(this.pool, repository, label, budget);
      const result = withinBudget(value, budget);
      // Keyed by the snapshot the search read (the label may have moved since the lookup above).
      if (result.isError !== true && snapshotId !== null) this.cache.set(cacheKey(tool, { origin: { repository, snapshotId } }, args), result);
      return result;
    } catch (e) {
      return errorResult(e, {});
    }
  }

  async labels(args: { repo?: string | undefined }): Promise<CallToolResult> {
    try {
      const repository = await this.repository(args.repo);
      const labels = await this.pool.labels(repository);
      if (labels.length === 0) chooseLabel(labels, null, repository);
      let chosen: string | null = null;
      try {
        chosen = chooseLabel(labels, this.options.label ?? null, repository);
      } catch (e) {
        // No default: the rule asks every call for a label (said as a null default, not an error).
        if (!(e instanceof CaError) || e.code !== 'unknown_label') throw e;
      }
      const budget = new AnswerBudget(this.cap, null);
      return withinBudget({ repository, labels, default: chosen }, budget);
    } catch (e) {
      return errorResult(e, {});
    }
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}

/** A cached answer's key: the repository, the snapshot, the tool and its arguments (the label aside: the snapshot says it). */
function cacheKey(tool: string, reads: { origin: { repository: string | null; snapshotId: number | null } }, args: object): string {
  const { label: _label, ...rest } = args as Record<string, unknown>;
  return JSON.stringify([reads.origin.repository, reads.origin.snapshotId, tool, rest]);
}

/** The candidates of an ambiguous name, as symbol views (the agent retries with an id). */
async function candidates(reads: GraphReads | null, e: unknown): Promise<Record<string, unknown>> {
  if (!(e instanceof CaError) || e.code !== 'ambiguous_symbol' || !reads) return {};
  const ids = (e.context['candidates'] as number[] | undefined) ?? [];
  return { candidates: (await reads.nodes(ids.slice(0, 20))).map(toSymbolView) };
}

/** What the server's `initialize` answer adds on a team store. */
const STORE_INSTRUCTIONS = ' This server answers from a shared team index (PostgreSQL), not from files on disk: answers reflect the label\'s last published snapshot; tools that need a checkout say so.';

/** A Code Agent MCP server over the team store (not yet connected to a transport). */
export interface TeamStoreServer {
  readonly server: McpServer;
  readonly source: TeamStoreSource;
  close(): Promise<void>;
}

/** Creates an MCP server whose tools answer from the team store at `options.url`. */
export function createTeamStoreServer(options: TeamStoreServerOptions): TeamStoreServer {
  const source = new TeamStoreSource({ ...options, embedding: options.embedding ?? defaultConfig().embedding });
  return { server: teamStoreMcpServer(source), source, close: () => source.close() };
}

/** One MCP server (one per HTTP session) over a shared `TeamStoreSource`. */
export function teamStoreMcpServer(source: TeamStoreSource): McpServer {
  const server = new McpServer({ name: 'code-agent', version: SERVER_VERSION }, { instructions: INSTRUCTIONS + STORE_INSTRUCTIONS });
  registerStoreTable(server, source, TOOLS);
  return server;
}

/** `ca mcp --store URL`: the tools over the team store on stdio, until stdin closes or a signal arrives. */
export async function serveStoreStdio(options: TeamStoreServerOptions): Promise<void> {
  const protocolOut = guardStdout();
  guardProcess();
  const stopped = whenToStop(process.stdin);
  const app = createTeamStoreServer(options);
  const transport = new LineTransport(process.stdin, protocolOut);
  transport.onerror = (e) => stderrLog(`refused a message: ${e.message}`);
  await app.server.connect(transport);
  stderrLog(`serving the team store ${redactUrl(options.url)}${options.repository ? ` (repository ${options.repository})` : ''}`);
  stderrLog(`stopping: ${await stopped}`);
  if (!(await within(Promise.all([app.server.close(), app.close()]), CLOSE_DEADLINE_MS))) stderrLog(`closing took over ${CLOSE_DEADLINE_MS} ms: exiting anyway`);
  process.exit(0);
}
