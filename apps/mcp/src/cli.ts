import { delimiter } from 'node:path';
import { parseArgs } from 'node:util';
import { CaError, toCaError } from '@ca/schema';
import { DEFAULT_ANSWER_TOKENS } from './answers.js';
import { generateToken, isLoopbackAddress, serveHttp, type PagesFactory } from './http.js';
import { AGENT_INSTRUCTIONS, CLIENTS, install, type Client } from './install.js';
import { SessionPool } from './pool.js';
import { guardProcess, guardStdout, serveStdio, stderrLog } from './server.js';
import { redactUrl } from '@ca/store-postgres';
import { serveStoreStdio, TeamStoreSource, teamStoreMcpServer, type TeamStoreServerOptions } from './teamStore.js';

/** The default HTTP port (`ca mcp --http`, `ca serve`). */
export const DEFAULT_HTTP_PORT = 7311;

const USAGE = `usage: ca-mcp [PATH] [--db FILE] [--no-refresh | --no-watch] [--max-answer-tokens N]
       ca-mcp [--http [--port N]] --store URL [--store-repo NAME] [--label NAME]
       ca-mcp --http [--repo DIR]... [--port N] [--host ADDR --allow-remote] [--no-refresh | --no-watch] [--max-answer-tokens N]
              [--max-open N] [--idle-minutes N] [--memory-budget-mb N]
       ca-mcp install --client ${CLIENTS.join('|')} [--repo DIR] [--write]
       ca-mcp instructions

Serves Code Agent's search, navigation and file tools to MCP clients.
  PATH             repository root (default: --repo, then the current directory)
  --db FILE        index file (stdio; default: <repo>/.codeagent/index.db)
  --no-refresh     serve the index as it is; only index_files (or ca watch) updates it
                   (default: an incremental index before each answer, so edits show at once)
  --no-watch       find edits by walking the tree before each answer instead of a file watcher
                   (for network shares and mounts whose changes raise no file events)
  --max-answer-tokens N  cap of one answer's text (default ${DEFAULT_ANSWER_TOKENS}); longer answers page with offset
  --http           Streamable HTTP on http://127.0.0.1:PORT/mcp for many agents and repositories
                   (ca serve). Requests need Authorization: Bearer <token>: CA_MCP_TOKEN, or a
                   token generated at launch and printed on stderr. Host and Origin must be local.
                   On a loopback bind the same port serves the viewer's pages (ca ui's, with a
                   repository picker): open the one-time login link printed on stderr.
  --repo DIR       a repository the HTTP server may serve (repeatable; also CA_MCP_REPOS,
                   separated by '${delimiter}'); tools name it with their repo argument
  --port N         HTTP port (default ${DEFAULT_HTTP_PORT}; 0 picks a free one)
  --host ADDR      bind address (default 127.0.0.1); a non-loopback one needs --allow-remote
  --max-open N     engines kept open at once (default 4), least recently used closed first
  --idle-minutes N an engine unused this long is closed (default 15)
  --memory-budget-mb N  idle engines close while the process is over this (default 2048)
  --store URL      answer from the team store (PostgreSQL; a read-only role suffices) instead of a
                   checkout: every repository of the database (tools: repo, default --store-repo,
                   else the only one), label: the tool's, else --label, else the only label, else
                   "working" (docs/decisions/050); tools that need a checkout say so
  install          print (or --write, keeping other entries, with a .bak) the client's config entry
  instructions     print a snippet for AGENTS.md / CLAUDE.md`;

function usageError(message: string): number {
  process.stderr.write(`ca-mcp: ${message}\n${USAGE}\n`);
  return 2;
}

function positiveInt(name: string, v: string | undefined, min = 1): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new CaError('usage', `--${name} must be a whole number of at least ${min}`);
  return n;
}

/** What the caller adds to the HTTP server: `pages` (the CLI passes the viewer's, `@ca/ui` `servePages`). */
export interface McpCliHooks {
  readonly pages?: PagesFactory;
}

/** `ca-mcp …` and `ca mcp …`: parses `argv` (without node and script) and runs; returns the exit code. */
export async function runMcpCli(argv: string[], hooks: McpCliHooks = {}): Promise<number> {
  if (argv[0] === 'instructions') {
    if (argv.length > 1) return usageError('instructions takes no arguments');
    process.stdout.write(AGENT_INSTRUCTIONS);
    return 0;
  }
  if (argv[0] === 'install') return runInstall(argv.slice(1));
  const http = argv[0] === 'serve';
  let values: {
    repo?: string[];
    db?: string;
    'no-refresh'?: boolean;
    'no-watch'?: boolean;
    help?: boolean;
    http?: boolean;
    port?: string;
    host?: string;
    'allow-remote'?: boolean;
    'max-answer-tokens'?: string;
    'max-open'?: string;
    'idle-minutes'?: string;
    'memory-budget-mb'?: string;
    store?: string;
    'store-repo'?: string;
    label?: string;
  };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: http ? argv.slice(1) : argv,
      options: {
        repo: { type: 'string', multiple: true },
        db: { type: 'string' },
        'no-refresh': { type: 'boolean' },
        'no-watch': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        http: { type: 'boolean' },
        port: { type: 'string' },
        host: { type: 'string' },
        'allow-remote': { type: 'boolean' },
        'max-answer-tokens': { type: 'string' },
        'max-open': { type: 'string' },
        'idle-minutes': { type: 'string' },
        'memory-budget-mb': { type: 'string' },
        store: { type: 'string' },
        'store-repo': { type: 'string' },
        label: { type: 'string' },
      },
      allowPositionals: true,
      strict: true,
    }));
  } catch (e) {
    return usageError((e as Error).message);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (values['no-refresh'] && values['no-watch']) return usageError('--no-watch changes how the refresh finds edits: it does not go with --no-refresh');
  try {
    const answerTokens = positiveInt('max-answer-tokens', values['max-answer-tokens'], 500);
    if (values.store === undefined && (values['store-repo'] !== undefined || values.label !== undefined)) return usageError('--store-repo and --label name what a team store server reads: give --store URL');
    if (values.store !== undefined) {
      for (const flag of ['db', 'no-refresh', 'no-watch', 'repo'] as const) {
        if (values[flag] !== undefined) return usageError(`--${flag} applies to a server over checkouts, not --store`);
      }
      if (positionals.length > 0) return usageError('--store serves the team store: no PATH');
      const store = { url: values.store, answerTokens: answerTokens ?? DEFAULT_ANSWER_TOKENS, log: stderrLog, ...(values['store-repo'] !== undefined ? { repository: values['store-repo'] } : {}), ...(values.label !== undefined ? { label: values.label } : {}) };
      if (!(http || values.http)) {
        await serveStoreStdio(store);
        return 0;
      }
      return await runHttp(values, positionals, answerTokens, hooks, store);
    }
    if (http || values.http) {
      return await runHttp(values, positionals, answerTokens, hooks);
    }
    for (const flag of ['port', 'host', 'allow-remote', 'max-open', 'idle-minutes', 'memory-budget-mb'] as const) {
      if (values[flag] !== undefined) return usageError(`--${flag} applies to the HTTP server (--http) only`);
    }
    if (positionals.length + (values.repo?.length ?? 0) > 1) return usageError('stdio serves one repository: give one PATH (or --http for several)');
    await serveStdio({
      repo: positionals[0] ?? values.repo?.[0] ?? process.cwd(),
      ...(values.db ? { dbPath: values.db } : {}),
      refresh: values['no-refresh'] !== true,
      ...(values['no-watch'] ? { changes: 'walk' as const } : {}),
      ...(answerTokens !== undefined ? { answerTokens } : {}),
    });
    return 0;
  } catch (e) {
    const err = toCaError(e);
    if (err.isUsage) return usageError(err.message);
    throw err;
  }
}

async function runHttp(
  values: { repo?: string[]; db?: string; 'no-refresh'?: boolean; 'no-watch'?: boolean; port?: string; host?: string; 'allow-remote'?: boolean; 'max-open'?: string; 'idle-minutes'?: string; 'memory-budget-mb'?: string },
  positionals: string[],
  answerTokens: number | undefined,
  hooks: McpCliHooks,
  store?: TeamStoreServerOptions,
): Promise<number> {
  if (values.db) return usageError('--db applies to stdio only: the HTTP server keeps each index in <repo>/.codeagent/');
  const configured = (process.env['CA_MCP_REPOS'] ?? '').split(delimiter).filter((r) => r !== '');
  const repos = [...positionals, ...(values.repo ?? []), ...configured];
  if (repos.length === 0) repos.push(process.cwd());
  const host = values.host ?? '127.0.0.1';
  const envToken = process.env['CA_MCP_TOKEN'];
  if (!isLoopbackAddress(host) && !values['allow-remote']) return usageError(`--host ${host} is not a loopback address: add --allow-remote to expose the server`);
  if (!isLoopbackAddress(host) && !envToken) return usageError('a non-loopback bind needs a token you chose: set CA_MCP_TOKEN');
  const token = envToken ?? generateToken();
  const idleMinutes = positiveInt('idle-minutes', values['idle-minutes']);
  const memoryMb = positiveInt('memory-budget-mb', values['memory-budget-mb']);
  const maxOpen = positiveInt('max-open', values['max-open']);
  const port = positiveInt('port', values.port, 0) ?? DEFAULT_HTTP_PORT;
  if (port > 65535) return usageError('--port must be at most 65535');
  guardStdout();
  guardProcess();
  if (store) {
    const source = new TeamStoreSource(store);
    const served = await serveHttp({ store: { newServer: () => teamStoreMcpServer(source), close: () => source.close() }, host, port, token, allowRemote: values['allow-remote'] === true, log: stderrLog });
    stderrLog(`serving the team store ${redactUrl(store.url)} on ${served.url}`);
    stderrLog(envToken ? 'token: from CA_MCP_TOKEN' : `token: ${token}`);
    await untilSignal();
    await served.close();
    return 0;
  }
  const pool = new SessionPool({
    repos,
    session: { refresh: values['no-refresh'] !== true, ...(values['no-watch'] ? { changes: 'walk' as const } : {}), log: stderrLog },
    ...(maxOpen !== undefined ? { maxOpen } : {}),
    ...(idleMinutes !== undefined ? { idleMs: idleMinutes * 60_000 } : {}),
    ...(memoryMb !== undefined ? { memoryBudgetBytes: memoryMb * 1024 * 1024 } : {}),
  });
  // The pages only on a loopback bind: a browser session cookie over plain HTTP to another machine is not offered.
  const pages = hooks.pages && isLoopbackAddress(host) ? hooks.pages(pool, token, stderrLog) : undefined;
  const server = await serveHttp({
    repos: pool,
    host,
    port,
    token,
    allowRemote: values['allow-remote'] === true,
    log: stderrLog,
    ...(answerTokens !== undefined ? { answerTokens } : {}),
    ...(pages ? { pages: pages.handle } : {}),
  });
  stderrLog(`serving ${pool.repos.join(', ')} on ${server.url}`);
  stderrLog(envToken ? 'token: from CA_MCP_TOKEN' : `token: ${token}`);
  if (pages) stderrLog(`viewer: open ${pages.loginUrl(server.url.replace(/\/mcp$/, ''))} (a one-time link)`);
  await untilSignal();
  await server.close();
  return 0;
}

function untilSignal(): Promise<void> {
  return new Promise<void>((res) => {
    process.once('SIGINT', res);
    process.once('SIGTERM', res);
  });
}

function runInstall(argv: string[]): number {
  let values: { client?: string; repo?: string; write?: boolean };
  try {
    ({ values } = parseArgs({ args: argv, options: { client: { type: 'string' }, repo: { type: 'string' }, write: { type: 'boolean' } }, strict: true }));
  } catch (e) {
    return usageError((e as Error).message);
  }
  if (!values.client || !(CLIENTS as readonly string[]).includes(values.client)) {
    return usageError(`install needs --client ${CLIENTS.join('|')}`);
  }
  try {
    process.stdout.write(install(values.client as Client, values.repo ?? process.cwd(), values.write === true));
    return 0;
  } catch (e) {
    const err = toCaError(e);
    stderrLog(err.message);
    return err.isUsage ? 2 : 1;
  }
}

export { stderrLog };
