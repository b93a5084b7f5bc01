import { createRequire } from 'node:module';
import { Writable } from 'node:stream';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { toCaError } from '@ca/schema';
import { SingleRepo, type RepoSessions } from './pool.js';
import { Session, type SessionOptions } from './session.js';
import { CLOSE_DEADLINE_MS, guardPipes, isPipeGone, markBroken, whenToStop, within, writable } from './lifecycle.js';
import { LineTransport } from './stdio.js';
import { INSTRUCTIONS, registerTools, type ToolOptions } from './tools/index.js';

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

/**
 * `stderr` logging, one line per message: stdout carries the protocol only. Silent once stderr's
 * reader is gone (guardPipes): a log line must never be the start of a loop of failed writes.
 */
export function stderrLog(line: string): void {
  if (!writable(process.stderr)) return;
  try {
    process.stderr.write(`ca-mcp: ${line}\n`);
  } catch (e) {
    // A synchronous write to a closed pipe: the reader is gone, and there is nobody left to tell.
    markBroken(process.stderr);
    if (!isPipeGone(e)) throw e;
  }
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
 * Serves over stdio until stdin closes, stdout's reader goes away, the parent process exits or a
 * SIGTERM/SIGINT/SIGHUP arrives (lifecycle.ts), then closes the engine, its watchers and workers
 * (at most CLOSE_DEADLINE_MS) and exits the process: a server whose client is gone must not
 * outlive it. Owns the process: anything else written to stdout (a stray console.log, a worker's
 * output) goes to stderr instead, a stray error is logged, never the end of the server, and a
 * malformed or oversized message gets a JSON-RPC error (LineTransport).
 */
export async function serveStdio(options: ServerOptions & { maxMessageBytes?: number }): Promise<void> {
  const protocolOut = guardStdout();
  guardProcess();
  const stopped = whenToStop(process.stdin);
  const app = createServer(options);
  const transport = new LineTransport(process.stdin, protocolOut, options.maxMessageBytes !== undefined ? { maxMessageBytes: options.maxMessageBytes } : {});
  // Refused messages are logged, one line each (connect chains the SDK's handler after this one).
  transport.onerror = (e) => stderrLog(`refused a message: ${e.message}`);
  await app.server.connect(transport);
  stderrLog(`serving ${app.session.options.repo}${app.session.options.refresh ? '' : ' (refresh on request only)'}`);
  app.warmUp();
  const reason = await stopped;
  stderrLog(`stopping: ${reason}`);
  if (!(await within(app.close(), CLOSE_DEADLINE_MS))) stderrLog(`closing took over ${CLOSE_DEADLINE_MS} ms: exiting anyway`);
  // Child processes (the TypeScript worker, roslyn-host, git) end when their pipes to this process
  // close, which exiting does; worker threads end with the process.
  process.exit(0);
}

/**
 * A stray rejection or exception is logged, never the end of a server that other agents rely on.
 * A write to a pipe whose reader is gone is not logged (there is nobody to read it, and the log
 * line would fail the same way): the stream is marked broken and the process stops writing to it.
 */
export function guardProcess(): void {
  guardPipes();
  const stray = (what: string) => (e: unknown) => {
    if (isPipeGone(e)) return;
    stderrLog(`${what}: ${toCaError(e).message}`);
  };
  process.on('unhandledRejection', stray('unhandled rejection'));
  process.on('uncaughtException', stray('uncaught exception'));
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
  // A failed protocol write also reaches process.stdout's own 'error' listener (guardPipes), which
  // stops the server; this stream's copy of the error has nothing more to say.
  out.on('error', () => {});
  stdout.write = ((chunk: unknown, ...rest: unknown[]) => (writable(process.stderr) ? (process.stderr.write as (...a: unknown[]) => boolean)(chunk, ...rest) : true)) as typeof stdout.write;
  return out;
}
