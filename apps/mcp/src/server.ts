import { createRequire } from 'node:module';
import { Writable } from 'node:stream';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { toCaError } from '@ca/schema';
import { SingleRepo, type RepoSessions } from './pool.js';
import { Session, type SessionOptions } from './session.js';
import { LineTransport } from './stdio.js';
import { INSTRUCTIONS, registerTools, type ToolOptions } from './tools.js';

export interface ServerOptions extends Partial<Pick<SessionOptions, 'refresh' | 'log'>>, Omit<SessionOptions, 'refresh' | 'log'>, ToolOptions {}

export interface CodeAgentServer {
  /** The MCP server: connect it to a transport (stdio, an in-memory pair in tests). */
  readonly server: McpServer;
  /** The engine session behind the tools. */
  readonly session: Session;
  /** Starts the first index in the background (tool calls wait for it), unless refresh is off. */
  warmUp(): void;
  /** Closes the transport, waits for a running index and releases the engine. */
  close(): Promise<void>;
}

export const { version: SERVER_VERSION } = createRequire(import.meta.url)('../package.json') as { version: string };

/** `stderr` logging, one line per message: stdout carries the protocol only. */
export function stderrLog(line: string): void {
  process.stderr.write(`ca-mcp: ${line}\n`);
}

/** An MCP server with the Code Agent tools over `repos` (one repository, or the HTTP pool). */
export function createMcpServer(repos: RepoSessions, options: ToolOptions = {}): McpServer {
  const served = repos.multiRepo ? ` This server serves several repositories: name one with the repo argument of any tool (${repos.repos.join(', ')}).` : '';
  const server = new McpServer({ name: 'code-agent', version: SERVER_VERSION }, { instructions: INSTRUCTIONS + served });
  registerTools(server, repos, options);
  return server;
}

/** Starts the first index of `session` in the background, unless it does not refresh by itself. */
export function warmUp(session: Session): void {
  if (!session.options.refresh) return;
  try {
    session.engine();
  } catch (e) {
    session.options.log(`cannot open the index: ${toCaError(e).message} (tools answer with this error until it can be opened)`);
    return;
  }
  session.refresh().catch((e: unknown) => session.options.log(`first index failed: ${toCaError(e).message}`));
}

/** The Code Agent MCP server over one repository (not yet connected to a transport). */
export function createServer(options: ServerOptions): CodeAgentServer {
  const session = new Session({ ...options, refresh: options.refresh ?? true, log: options.log ?? stderrLog });
  const server = createMcpServer(new SingleRepo(session), options.answerTokens !== undefined ? { answerTokens: options.answerTokens } : {});
  return {
    server,
    session,
    warmUp: () => warmUp(session),
    async close() {
      await server.close();
      await session.close();
    },
  };
}

/**
 * Serves over stdio until stdin closes or a SIGINT/SIGTERM arrives. Owns the process: anything
 * else written to stdout (a stray console.log, a worker's output) goes to stderr instead, a
 * stray error is logged, never the end of the server, and a malformed or oversized message gets
 * a JSON-RPC error (LineTransport).
 */
export async function serveStdio(options: ServerOptions & { maxMessageBytes?: number }): Promise<void> {
  const protocolOut = guardStdout();
  guardProcess();
  const app = createServer(options);
  const stopped = new Promise<void>((res) => {
    process.stdin.once('end', res);
    process.once('SIGINT', res);
    process.once('SIGTERM', res);
  });
  const transport = new LineTransport(process.stdin, protocolOut, options.maxMessageBytes !== undefined ? { maxMessageBytes: options.maxMessageBytes } : {});
  // Refused messages are logged, one line each (connect chains the SDK's handler after this one).
  transport.onerror = (e) => stderrLog(`refused a message: ${e.message}`);
  await app.server.connect(transport);
  stderrLog(`serving ${app.session.options.repo}${app.session.options.refresh ? '' : ' (refresh on request only)'}`);
  app.warmUp();
  await stopped;
  await app.close();
}

/** A stray rejection or exception is logged, never the end of a server that other agents rely on. */
export function guardProcess(): void {
  process.on('unhandledRejection', (e) => stderrLog(`unhandled rejection: ${toCaError(e).message}`));
  process.on('uncaughtException', (e) => stderrLog(`uncaught exception: ${toCaError(e).message}`));
}

/** Sends `process.stdout.write` to stderr and returns a stream that still writes to the real stdout. */
export function guardStdout(): Writable {
  const stdout = process.stdout;
  const write = stdout.write.bind(stdout);
  const out = new Writable({
    write(chunk: Buffer | string, encoding: BufferEncoding, callback: (error?: Error | null) => void) {
      write(chunk, encoding, callback);
    },
  });
  stdout.write = process.stderr.write.bind(process.stderr) as typeof stdout.write;
  return out;
}
