import { createRequire } from 'node:module';
import { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { toCaError } from '@ca/schema';
import { Session, type SessionOptions } from './session.js';
import { registerTools } from './tools.js';

export interface ServerOptions extends Partial<Pick<SessionOptions, 'refresh' | 'log'>>, Omit<SessionOptions, 'refresh' | 'log'> {}

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

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

const INSTRUCTIONS =
  'Code Agent indexes this repository (TypeScript/JavaScript and C#) into a symbol graph with text and vector search. ' +
  'Use `search` to find code by name or by a question in words, `symbol` for the full source of one symbol, and ' +
  '`callers`/`callees`/`references`/`implementations`/`dependencies`/`dependents`/`impact` to navigate. Symbols may be ' +
  'given by id (from an earlier answer), qualified name or bare name. Answers reflect the files as they are on disk.';

/** `stderr` logging, one line per message: stdout carries the protocol only. */
export function stderrLog(line: string): void {
  process.stderr.write(`ca-mcp: ${line}\n`);
}

/** The Code Agent MCP server over one repository (not yet connected to a transport). */
export function createServer(options: ServerOptions): CodeAgentServer {
  const session = new Session({ ...options, refresh: options.refresh ?? true, log: options.log ?? stderrLog });
  const server = new McpServer({ name: 'code-agent', version }, { instructions: INSTRUCTIONS });
  registerTools(server, session);
  return {
    server,
    session,
    warmUp() {
      if (!session.options.refresh) return;
      try {
        session.engine();
      } catch (e) {
        session.options.log(`cannot open the index: ${toCaError(e).message} (tools answer with this error until it can be opened)`);
        return;
      }
      session.refresh().catch(() => undefined);
    },
    async close() {
      await server.close();
      await session.close();
    },
  };
}

/**
 * Serves over stdio until stdin closes or a SIGINT/SIGTERM arrives. Owns the process: anything
 * else written to stdout (a stray console.log, a worker's output) goes to stderr instead, and
 * a stray error is logged, never the end of the server.
 */
export async function serveStdio(options: ServerOptions): Promise<void> {
  const protocolOut = guardStdout();
  process.on('unhandledRejection', (e) => stderrLog(`unhandled rejection: ${toCaError(e).message}`));
  process.on('uncaughtException', (e) => stderrLog(`uncaught exception: ${toCaError(e).message}`));
  const app = createServer(options);
  const stopped = new Promise<void>((res) => {
    process.stdin.once('end', res);
    process.once('SIGINT', res);
    process.once('SIGTERM', res);
  });
  await app.server.connect(new StdioServerTransport(process.stdin, protocolOut));
  stderrLog(`serving ${app.session.options.repo}${app.session.options.refresh ? '' : ' (refresh on request only)'}`);
  app.warmUp();
  await stopped;
  await app.close();
}

/** Sends `process.stdout.write` to stderr and returns a stream that still writes to the real stdout. */
function guardStdout(): Writable {
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

const USAGE = `usage: ca-mcp [PATH] [--db FILE] [--no-refresh]

Serves Code Agent's search and navigation tools to an MCP client over stdio.
  PATH          repository root (default: --repo, then the current directory)
  --repo DIR    the same as PATH
  --db FILE     index file (default: <repo>/.codeagent/index.db)
  --no-refresh  serve the index as it is; only the index tool (or ca watch) updates it
                (default: an incremental index before each answer, so edits show at once)`;

/** `ca-mcp …` and `ca mcp …`: parses `argv` (without node and script) and serves; returns the exit code. */
export async function runMcpCli(argv: string[]): Promise<number> {
  let values: { repo?: string; db?: string; 'no-refresh'?: boolean; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      options: { repo: { type: 'string' }, db: { type: 'string' }, 'no-refresh': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    }));
  } catch (e) {
    process.stderr.write(`ca-mcp: ${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (positionals.length > 1) {
    process.stderr.write(`ca-mcp: at most one PATH\n${USAGE}\n`);
    return 2;
  }
  await serveStdio({
    repo: positionals[0] ?? values.repo ?? process.cwd(),
    ...(values.db ? { dbPath: values.db } : {}),
    refresh: values['no-refresh'] !== true,
  });
  return 0;
}
