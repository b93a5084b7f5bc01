import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CaError } from '@ca/schema';
import type { RepoSessions } from './pool.js';
import { createMcpServer } from './server.js';
import type { ToolOptions } from './tools/index.js';

/** Host names a loopback server answers to: anything else in `Host` or `Origin` is DNS rebinding or a foreign page. */
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** Whether a bind address is this machine only (127.0.0.0/8, ::1, localhost). */
export function isLoopbackAddress(host: string): boolean {
  return LOOPBACK_HOSTS.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** The host name in a `Host` or `Origin` value (`example.com:80`, `http://[::1]:7311`), or null when it does not parse. */
function hostnameOf(value: string): string | null {
  try {
    return new URL(value.includes('://') ? value : `http://${value}`).hostname;
  } catch (e) {
    // Not a URL or host (WHATWG URL throws a TypeError): it names no host this server answers to,
    // so the caller refuses it. Anything else is a fault of ours, not of the header.
    if (e instanceof TypeError) return null;
    throw e;
  }
}

/**
 * The guard of every loopback HTTP server of Code Agent (the MCP server, the `ca ui` viewer):
 * why the request must be refused with 403 — its `Host` does not name this server (DNS
 * rebinding), or it carries an `Origin` of another site — or null when both are acceptable.
 * `allowedHosts` are host names (default: the loopback names).
 */
export function foreignRequest(req: Pick<IncomingMessage, 'headers'>, allowedHosts: ReadonlySet<string> = LOOPBACK_HOSTS): string | null {
  const hostHeader = req.headers.host;
  const hostname = hostHeader ? hostnameOf(hostHeader) : null;
  if (hostname === null || !allowedHosts.has(hostname)) return `Forbidden: Host ${JSON.stringify(hostHeader ?? '')} is not this server`;
  const origin = req.headers.origin;
  if (origin !== undefined) {
    const o = hostnameOf(origin);
    if (o === null || !allowedHosts.has(o)) return `Forbidden: Origin ${JSON.stringify(origin)} may not call this server`;
  }
  return null;
}

export interface HttpServerOptions extends ToolOptions {
  /** The repositories served (the local tools); or `store` (a server over the team store). */
  readonly repos?: RepoSessions;
  /** A server over the team store (decision 050): each agent session gets `newServer()`, and closing the HTTP server closes `close`. */
  readonly store?: { readonly newServer: () => McpServer; close(): Promise<void> };
  /** Address to bind (default 127.0.0.1). Anything else needs `allowRemote` and a token. */
  readonly host?: string;
  /** Port (default 0: any free one; the CLI's default is 7311). */
  readonly port?: number;
  /** Bearer token every request must carry. */
  readonly token: string;
  /** Bind a non-loopback address (`--allow-remote`): the token is then the only protection. */
  readonly allowRemote?: boolean;
  /** Extra host names accepted in Host/Origin (a non-loopback bind adds its own address). */
  readonly allowedHosts?: readonly string[];
  /** Largest request body (default the SDK's 4 MB): larger ones get 413. */
  readonly maxBodyBytes?: number;
  /** An agent session idle this long is closed (default 30 minutes). */
  readonly sessionIdleMs?: number;
  readonly log: (line: string) => void;
  /**
   * Every path but `/mcp` goes here after the Host/Origin guard (the viewer's pages under
   * `ca serve`, which authenticate on their own); without it they are 404.
   */
  readonly pages?: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
}

/**
 * What `ca serve` hosts beside `/mcp` (the viewer, injected by the CLI: this package does not
 * depend on it): a handler over the server's repositories and token, and its login links.
 */
export type PagesFactory = (
  repos: RepoSessions,
  token: string,
  log: (line: string) => void,
) => { handle(req: IncomingMessage, res: ServerResponse): Promise<void>; loginUrl(origin: string, next?: string): string };

export interface RunningHttpServer {
  /** `http://host:port/mcp` */
  readonly url: string;
  readonly port: number;
  /** Agent sessions open now. */
  sessions(): number;
  close(): Promise<void>;
}

/** A token for one launch: 32 random bytes, base64url. */
export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

interface AgentSession {
  readonly transport: StreamableHTTPServerTransport;
  readonly server: McpServer;
  lastSeen: number;
}

/**
 * Streamable HTTP on `/mcp`: each agent session gets its own MCP server object (cheap) over the
 * shared repository sessions (the warm engines). Every request is checked before the SDK sees
 * it: `Host` (and `Origin`, when sent) must name this server (403), and `Authorization: Bearer
 * <token>` must match (401, compared in constant time).
 */
export async function serveHttp(options: HttpServerOptions): Promise<RunningHttpServer> {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopbackAddress(host) && !options.allowRemote) {
    throw new CaError('usage', `binding ${host} exposes the server beyond this machine: pass --allow-remote (and keep the token secret) to do it`);
  }
  if (options.token.length < 16) throw new CaError('usage', 'the bearer token must be at least 16 characters');
  const allowedHosts = new Set([...LOOPBACK_HOSTS, ...(options.allowedHosts ?? []), ...(isLoopbackAddress(host) || host === '0.0.0.0' || host === '::' ? [] : [host])]);
  const expected = Buffer.from(options.token);
  const sessions = new Map<string, AgentSession>();
  const idleMs = options.sessionIdleMs ?? 30 * 60_000;

  const deny = (res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
  };
  const authorized = (req: IncomingMessage): boolean => {
    const header = req.headers.authorization ?? '';
    const m = /^Bearer\s+(\S+)$/i.exec(header);
    if (!m) return false;
    const given = Buffer.from(m[1]!);
    return given.length === expected.length && timingSafeEqual(given, expected);
  };

  const newSession = async (): Promise<AgentSession> => {
    const server = options.store ? options.store.newServer() : createMcpServer(options.repos!, options.answerTokens !== undefined ? { answerTokens: options.answerTokens } : {});
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      ...(options.maxBodyBytes !== undefined ? { maxRequestBodySize: options.maxBodyBytes } : {}),
      onsessioninitialized: (id) => {
        sessions.set(id, entry);
        options.log(`session ${id} opened (${sessions.size} open)`);
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
        options.log(`session ${id} closed (${sessions.size} open)`);
      },
    });
    transport.onerror = (e) => options.log(`refused a request: ${e.message}`);
    const entry: AgentSession = { transport, server, lastSeen: Date.now() };
    await server.connect(transport);
    return entry;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const foreign = foreignRequest(req, allowedHosts);
    if (foreign !== null) return deny(res, 403, foreign);
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== '/mcp') {
      if (options.pages) return options.pages(req, res);
      return deny(res, 404, 'Not found: the MCP endpoint is /mcp');
    }
    if (!authorized(req)) return deny(res, 401, 'Unauthorized: send Authorization: Bearer <token> (printed by the server at launch, or CA_MCP_TOKEN)', { 'www-authenticate': 'Bearer' });
    const id = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(id) ? id[0] : id;
    let session: AgentSession | undefined;
    if (sessionId !== undefined) {
      session = sessions.get(sessionId);
      if (!session) return deny(res, 404, 'Session not found: initialize a new session');
    } else if (req.method === 'POST') {
      // A request without a session must be initialize: the transport answers anything else with 400.
      session = await newSession();
    } else {
      return deny(res, 400, 'Bad Request: no Mcp-Session-Id header');
    }
    session.lastSeen = Date.now();
    await session.transport.handleRequest(req, res);
    // A transport that did not initialize (the request was not initialize) is dropped.
    if (sessionId === undefined && session.transport.sessionId === undefined) await session.server.close();
  };

  const http: Server = createHttpServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      options.log(`request failed: ${e instanceof Error ? e.message : String(e)}`);
      if (!res.headersSent) deny(res, 500, 'Internal error');
      else res.end();
    });
  });
  // A client that trickles its headers or body cannot hold a socket forever (this bounds receiving
  // the request only: a long answer, streamed back, is not cut).
  http.headersTimeout = 30_000;
  http.requestTimeout = 60_000;

  const sweeper = setInterval(() => {
    const now = Date.now();
    for (const [id, s] of sessions) {
      if (now - s.lastSeen < idleMs) continue;
      sessions.delete(id);
      options.log(`session ${id} idle, closed`);
      void s.server.close();
    }
  }, Math.min(60_000, Math.max(1_000, idleMs / 4)));
  sweeper.unref();

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const port = (http.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}/mcp`,
    port,
    sessions: () => sessions.size,
    async close() {
      clearInterval(sweeper);
      await Promise.all([...sessions.values()].map((s) => s.server.close()));
      sessions.clear();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await options.repos?.close();
      await options.store?.close();
    },
  };
}
