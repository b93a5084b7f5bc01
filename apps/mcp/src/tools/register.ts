import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { CaError } from '@ca/schema';
import { errorResult } from '../answers.js';
import type { RepoSessions } from '../pool.js';
import { toolContext } from './answer.js';
import type { AnyTool, RequestExtra, SchemaKit, StoreToolContext } from './context.js';

/** A tool as registered on one server: its schemas built for it. */
interface ListedTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: z.ZodRawShape;
  readonly outputSchema?: z.ZodType;
  readonly annotations: AnyTool['annotations'];
}

/**
 * Registers `tools` on `server`, in order, answering from the sessions of `repos` under the
 * answer cap `cap`; `tools/list` answers with their compact schemas (see `compactToolList`).
 */
export function registerToolTable(server: McpServer, repos: RepoSessions, cap: number, tools: readonly AnyTool[]): void {
  const ctx = toolContext(repos, cap);
  registerEach(server, ctx, tools, (tool) => (args, extra) => tool.handler(args as never, extra, ctx));
}

/**
 * Registers `tools` on a server over the team store (decision 050): the same schemas with an
 * undescribed `repo` (a repository of the store), each tool's store handler; a tool without one
 * needs a checkout and answers with an error naming that gap (never a local fallback).
 */
export function registerStoreTable(server: McpServer, ctx: StoreToolContext, tools: readonly AnyTool[]): void {
  const kit: SchemaKit = { cap: ctx.cap, repoArg: { repo: z.string().optional() }, reposArg: {} as SchemaKit['reposArg'] };
  registerEach(server, kit, tools, (tool) => {
    const store = tool.store;
    if (store) return (args) => store(args as never, ctx);
    const gap = new CaError('usage', `${tool.name} is not available on the team store: it needs a checkout of the repository (run a local server, ca mcp, in one)`);
    return () => Promise.resolve(errorResult(gap, {}));
  });
}

type Handler = (args: unknown, extra: RequestExtra) => Promise<CallToolResult>;

function registerEach(server: McpServer, kit: SchemaKit, tools: readonly AnyTool[], handlerOf: (tool: AnyTool) => Handler): void {
  const listing = tools.map((tool): ListedTool => {
    const config = {
      description: tool.description,
      inputSchema: tool.input(kit),
      ...(tool.output ? { outputSchema: tool.output } : {}),
      annotations: tool.annotations,
    };
    // The SDK validates the arguments against inputSchema before the handler sees them.
    server.registerTool(tool.name, config, handlerOf(tool) as never);
    return { name: tool.name, ...config };
  });
  compactToolList(server, listing);
}

/**
 * Answers `tools/list` with the registered tools' schemas as plain JSON Schema, without the
 * `$schema` and `execution` fields the SDK adds to each tool (about 25 tokens per tool, paid by
 * every agent in its context): the tools themselves are registered and validated by the SDK.
 */
function compactToolList(server: McpServer, listing: readonly ListedTool[]): void {
  const schema = (s: z.ZodType, io: 'input' | 'output') => {
    const { $schema: _drop, ...rest } = z.toJSONSchema(s, { io, unrepresentable: 'any' });
    return rest as Tool['inputSchema'];
  };
  const tools: Tool[] = listing.map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: schema(z.object(t.inputSchema), 'input'),
    ...(t.outputSchema ? { outputSchema: schema(t.outputSchema, 'output') } : {}),
    annotations: t.annotations,
  }));
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
}
