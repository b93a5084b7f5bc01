import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Engine } from '@ca/engine';
import { foreignRequest, isLoopbackAddress, newViewerInstance, VIEWER_PROBE_PATH, type RepoSessions, type ViewerProbeAnswer } from '@ca/mcp';
import { CaError } from '@ca/schema';
import { ApiError, handleApi, UiRepoSet } from './api.js';
import { engineRepos, sessionRepos, type UiRepo } from './repos.js';

/** Name of the session cookie (HttpOnly, SameSite=Strict: scripts and other sites never see or send it). */
export const SESSION_COOKIE = 'ca_ui';

export interface UiServerOptions {
  /** The repository to serve (`engines` for several). */
  readonly engine?: Engine;
  /** Repositories to serve, in picker order (the first is the default of a URL without `?repo=`). */
  readonly engines?: readonly Engine[];
  /** Port (default 0: any free one). */
  readonly port?: number;
  /** Loopback address to bind (default 127.0.0.1); anything else is refused. */
  readonly host?: string;
  /** Server events (never a token, a login code or a request URL). */
  readonly log?: (line: string) => void;
  /** Directory of the bundled front end (default: dist/public next to this module). */
  readonly assetsDir?: string;
  /** This launch's instance id, answered at the probe path (default: a new random one). */
  readonly instance?: string;
}

export interface RunningUi {
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  readonly port: number;
  /**
   * A new one-time login URL (`/login?code=…`): opening it sets the session cookie and redirects
   * to `next` (default `/search`); the code is then spent, so the URL left in history opens nothing.
   */
  loginUrl(next?: string): string;
  /** The served repositories and their index runs (the re-index button). */
  readonly repos: UiRepoSet;
  /** The instance id the probe path answers (`ui.json` names it, so MCP answers can link here). */
  readonly instance: string;
  close(): Promise<void>;
}

export interface UiHandlerOptions {
  readonly repos: readonly UiRepo[];
  /** The secret of the session cookie and of `Authorization: Bearer` (default: random per launch). */
  readonly token?: string;
  readonly log?: (line: string) => void;
  readonly assetsDir?: string;
  /** The instance id answered at the probe path (default: a new random one). */
  readonly instance?: string;
}

/** The viewer's request handling, hosted by its own server (`ca ui`) or by the MCP server (`ca serve`). */
export interface UiHandler {
  /** Answers one request (guard, authentication, API, pages and assets). */
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** A new one-time login URL on `origin` (`http://127.0.0.1:PORT`), redirecting to `next`. */
  loginUrl(origin: string, next?: string): string;
  readonly repos: UiRepoSet;
  /** The instance id the probe path answers. */
  readonly instance: string;
}

/** Content-Security-Policy of every answer: only this server's own script and style, no inline code, no frames. */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
};

/** Paths of the single-page app: each serves the shell, which renders the page from the URL (deep links). */
const PAGE_RE = /^\/(?:|search|status|symbol\/[^/]+|impact\/[^/]+|file\/.+)$/;

interface Asset {
  readonly type: string;
  readonly body: Buffer;
}

function loadAssets(dir: string): Map<string, Asset> {
  const read = (name: string, type: string): [string, Asset] => {
    try {
      return [name, { type, body: readFileSync(`${dir}/${name}`) }];
    } catch (e) {
      throw new CaError('io_error', `the viewer's front end is missing (${dir}/${name}): run pnpm build`, { cause: e });
    }
  };
  return new Map([read('index.html', 'text/html; charset=utf-8'), read('app.js', 'text/javascript; charset=utf-8'), read('app.css', 'text/css; charset=utf-8')]);
}

/** The session cookie's value in a Cookie header, or null. */
function cookieValue(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

function sameSecret(given: string | null, expected: Buffer): boolean {
  if (given === null) return false;
  const b = Buffer.from(given);
  return b.length === expected.length && timingSafeEqual(b, expected);
}

/** A redirect target that stays on this server: a path, not `//host` or `/\host` (which browsers read as another site). */
function safeNext(next: string | null): string {
  if (next === null || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/search';
  return next;
}

function send(res: ServerResponse, status: number, type: string, body: string | Buffer, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': type, ...headers });
  res.end(body);
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(value));
}

const STATUS_OF: Partial<Record<string, number>> = {
  not_found: 404,
  invalid_path: 400,
  usage: 400,
  invalid_query: 400,
  ambiguous_symbol: 409,
  unknown_label: 404,
  not_indexed: 409,
  db_locked: 409,
};

function sendApiError(res: ServerResponse, e: unknown): void {
  if (e instanceof ApiError) return sendJson(res, e.status, { error: { code: e.code, message: e.message } });
  if (e instanceof CaError) return sendJson(res, STATUS_OF[e.code] ?? 500, { error: e.toJSON() });
  throw e;
}

/** Whether the request carries the secret: the session cookie, or `Authorization: Bearer` (scripts holding `ca serve`'s token). */
function authorizedRequest(req: IncomingMessage, token: Buffer): boolean {
  const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  return sameSecret(cookieValue(req.headers.cookie, SESSION_COOKIE), token) || (bearer !== null && sameSecret(bearer[1]!, token));
}

/**
 * The viewer's pages, their JSON API and the assets, each answer behind the same checks —
 * `Host` and `Origin` must name this machine (403, the MCP server's guard), and the session
 * cookie (or a bearer header) must carry the token (401). The token reaches a browser only
 * through a one-time login code exchanged for the HttpOnly cookie.
 */
export function createUiHandler(options: UiHandlerOptions): UiHandler {
  const log = options.log ?? (() => {});
  const assets = loadAssets(options.assetsDir ?? fileURLToPath(new URL('./public', import.meta.url)));
  const token = Buffer.from(options.token ?? randomBytes(32).toString('base64url'));
  const codes = new Set<string>();
  const repos = new UiRepoSet(options.repos, log);
  const instance = options.instance ?? newViewerInstance();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const foreign = foreignRequest(req);
    if (foreign !== null) return sendJson(res, 403, { error: { code: 'forbidden', message: foreign } });
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    // Who this is, for an MCP server deciding whether to link here: no cookie needed, nothing of the repository said.
    if (url.pathname === VIEWER_PROBE_PATH && req.method === 'GET') return sendJson(res, 200, { app: 'ca-ui', instance } satisfies ViewerProbeAnswer);
    if (url.pathname === '/login') {
      const code = url.searchParams.get('code') ?? '';
      if (!codes.delete(code)) return send(res, 401, 'text/plain; charset=utf-8', 'This login link was used already or is not valid: open the URL the server printed last, or restart it.\n');
      return send(res, 303, 'text/plain; charset=utf-8', 'Signed in.\n', {
        'set-cookie': `${SESSION_COOKIE}=${token.toString()}; HttpOnly; SameSite=Strict; Path=/`,
        location: safeNext(url.searchParams.get('next')),
      });
    }
    const authorized = authorizedRequest(req, token);
    if (url.pathname.startsWith('/api/')) {
      if (!authorized) return sendJson(res, 401, { error: { code: 'unauthorized', message: 'Unauthorized: open the login URL the server printed' } });
      // A state-changing request must come from the viewer's own script (a form on another page cannot set this header).
      if (req.method !== 'GET' && req.headers['x-ca-ui'] !== '1') return sendJson(res, 403, { error: { code: 'forbidden', message: 'Forbidden: missing X-CA-UI header' } });
      try {
        return sendJson(res, 200, await handleApi(repos, req.method ?? 'GET', url));
      } catch (e) {
        return sendApiError(res, e);
      }
    }
    if (!authorized) return send(res, 401, 'text/plain; charset=utf-8', 'Unauthorized: open the login URL the server printed (a one-time link), or restart it for a new one.\n');
    if (req.method !== 'GET') return send(res, 405, 'text/plain; charset=utf-8', 'Method not allowed\n');
    const asset = url.pathname === '/assets/app.js' ? assets.get('app.js') : url.pathname === '/assets/app.css' ? assets.get('app.css') : PAGE_RE.test(url.pathname) ? assets.get('index.html') : undefined;
    if (!asset) return send(res, 404, 'text/plain; charset=utf-8', 'Not found\n');
    // A page naming a repository this server does not serve is a 404 too (not a blank page).
    if (asset.type.startsWith('text/html')) {
      try {
        repos.pick(url);
      } catch (e) {
        return sendApiError(res, e);
      }
    }
    return send(res, 200, asset.type, asset.body);
  };

  return {
    handle,
    repos,
    instance,
    loginUrl(origin: string, next?: string) {
      const code = randomBytes(24).toString('base64url');
      codes.add(code);
      return `${origin}/login?code=${code}${next ? `&next=${encodeURIComponent(next)}` : ''}`;
    },
  };
}

/** The repositories of `ca ui`'s options (`engine` and/or `engines`). */
function optionRepos(options: UiServerOptions): UiRepo[] {
  const engines = [...(options.engine ? [options.engine] : []), ...(options.engines ?? [])];
  if (engines.length === 0) throw new CaError('usage', 'ca ui needs a repository to serve');
  return engineRepos(engines);
}

/**
 * Starts the viewer (`ca ui`) on 127.0.0.1 over one or several repositories: `createUiHandler`
 * behind its own HTTP server, with a random token per launch that is never printed.
 */
export async function startUi(options: UiServerOptions): Promise<RunningUi> {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopbackAddress(host)) throw new CaError('usage', `ca ui binds this machine only (127.0.0.1); ${host} is not a loopback address`);
  const log = options.log ?? (() => {});
  const ui = createUiHandler({ repos: optionRepos(options), log, ...(options.instance ? { instance: options.instance } : {}), ...(options.assetsDir ? { assetsDir: options.assetsDir } : {}) });

  const http: Server = createServer((req, res) => {
    ui.handle(req, res).catch((e: unknown) => {
      log(`request failed: ${e instanceof Error ? e.message : String(e)}`);
      if (!res.headersSent) sendJson(res, 500, { error: { code: 'internal', message: 'Internal error' } });
      else res.end();
    });
  });
  http.headersTimeout = 30_000;
  http.requestTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const port = (http.address() as AddressInfo).port;
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    origin,
    port,
    repos: ui.repos,
    instance: ui.instance,
    loginUrl: (next?: string) => ui.loginUrl(origin, next),
    async close() {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await ui.repos.settled();
    },
  };
}

/**
 * `ca serve`'s pages: the viewer over the MCP server's repositories (engines borrowed from its
 * pool), behind the server's own token — in the cookie a login link sets, or a bearer header.
 */
export function servePages(sessions: RepoSessions, token: string, log: (line: string) => void, assetsDir?: string): UiHandler {
  return createUiHandler({ repos: sessionRepos(sessions), token, log, ...(assetsDir ? { assetsDir } : {}) });
}

export { ApiError };
