import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ShapeOutput } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import type { CallToolResult, ServerNotification, ServerRequest, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { Engine, GraphReads, Workspace } from '@ca/engine';
import type { TeamStorePool } from '@ca/store-postgres';
import type { AnswerBudget } from '../answers.js';
import type { RepoSessions } from '../pool.js';
import type { Session } from '../session.js';

/** What the SDK hands a tool handler besides its arguments (progress token, notifications). */
export type RequestExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Makes the answer value of a call from the opened engine, its session and the call's budget. */
export type Produce = (engine: Engine, session: Session, budget: AnswerBudget) => object | Promise<object>;

/** Makes the answer of a call over several repositories: the first engine (paths, limits) and their workspace. */
export type ProduceSeveral = (first: Engine, ws: Workspace, budget: AnswerBudget) => Promise<object>;

/** What a tool's input schema may depend on: the answer cap and whether the server serves several repositories. */
export interface SchemaKit {
  /** Token cap of one answer's text. */
  readonly cap: number;
  /**
   * `{ repo }` on a server with several repositories, else `{}` (each argument costs every agent
   * tokens in tools/list); typed as always present, since an absent argument reads as undefined either way.
   */
  readonly repoArg: { repo: z.ZodOptional<z.ZodString> };
  /** `{ repos }` (search across repositories) on a server with several, else `{}`. */
  readonly reposArg: { repos: z.ZodOptional<z.ZodArray<z.ZodString>> };
}

/** What a tool handler answers with: repository selection, refresh, budget and error mapping in one place. */
export interface ToolContext extends SchemaKit {
  readonly repos: RepoSessions;
  /**
   * Opens the named (or only) repository's engine, refreshes the index first when `refresh`
   * (default) and the session does, and answers `produce`'s value within the budget; every
   * failure is an error result.
   */
  answer(repo: string | undefined, extra: RequestExtra, produce: Produce, refresh?: boolean): Promise<CallToolResult>;
  /** Like `answer` over several served repositories searched as one workspace. */
  searchRepos(names: readonly string[], extra: RequestExtra, work: ProduceSeveral): Promise<CallToolResult>;
}

/** Makes the answer value of a call on the team store from one snapshot's reads and the call's budget. */
export type StoreProduce = (reads: GraphReads, budget: AnswerBudget) => object | Promise<object>;

/** Makes a search answer on the team store: the value and the snapshot it read (null: none was read). */
export type StoreSearch = (pool: TeamStorePool, repository: string, label: string | null, budget: AnswerBudget) => Promise<{ value: object; snapshotId: number | null }>;

/** What a tool handler answers through on a server over the team store (decision 050). */
export interface StoreToolContext {
  /** Token cap of one answer's text. */
  readonly cap: number;
  /** The query embedder's configuration of the server. */
  readonly options: { readonly embedding?: import('@ca/schema').Config['embedding'] };
  /** Answers `produce`'s value over the snapshot of the call's repository and label (cached by snapshot id); every failure is an error result. */
  reads(tool: string, args: { repo?: string | undefined; label?: string | undefined }, produce: StoreProduce): Promise<CallToolResult>;
  /** Answers a search (its own read-only transaction on the pool), cached by the snapshot it read. */
  search(tool: string, args: { repo?: string | undefined; label?: string | undefined }, produce: StoreSearch): Promise<CallToolResult>;
  /** The labels of the call's repository and the one a call without label reads (null: none, the rule asks for a label). */
  labels(args: { repo?: string | undefined }): Promise<CallToolResult>;
}

/**
 * One MCP tool: its name, description, input schema (built for the server it is registered
 * on), optional output schema, annotations and handler. A module per tool exports one.
 */
export interface ToolDefinition<S extends z.ZodRawShape = z.ZodRawShape> {
  readonly name: string;
  readonly description: string;
  readonly input: (kit: SchemaKit) => S;
  readonly output?: z.ZodType;
  readonly annotations: ToolAnnotations;
  readonly handler: (args: ShapeOutput<S>, extra: RequestExtra, ctx: ToolContext) => Promise<CallToolResult>;
  /** The handler on a server over the team store; absent: the tool needs a checkout (a clear error names the gap). */
  readonly store?: (args: ShapeOutput<S>, ctx: StoreToolContext) => Promise<CallToolResult>;
}

/** A tool as the table holds it (its argument types erased: the SDK checks them against its schema). */
export interface AnyTool {
  readonly name: string;
  readonly description: string;
  readonly input: (kit: SchemaKit) => z.ZodRawShape;
  readonly output?: z.ZodType;
  readonly annotations: ToolAnnotations;
  readonly handler: (args: never, extra: RequestExtra, ctx: ToolContext) => Promise<CallToolResult>;
  readonly store?: (args: never, ctx: StoreToolContext) => Promise<CallToolResult>;
}

/** A tool definition, its handler's arguments typed from its input schema. */
export function defineTool<S extends z.ZodRawShape>(tool: ToolDefinition<S>): AnyTool {
  return tool as unknown as AnyTool;
}

/** Tools that only read. */
export const READ_ONLY = { readOnlyHint: true } as const;
