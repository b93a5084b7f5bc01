/**
 * Links from MCP answers into a running viewer (`ca ui`). The viewer announces itself with a small
 * file beside the index (`ui.json`: its port, process id, a random instance id and the repository
 * root — never its token) written when it starts and removed when it stops. A file left by a
 * viewer that died is ignored: a link is given only when the port answers the probe path with the
 * same instance id, so neither a stale file nor another program now on that port gets a link.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { dirname, join } from 'node:path';

/** The viewer's file, in the index's directory (`<repo>/.codeagent/ui.json`). */
export const VIEWER_FILE = 'ui.json';

/** The one path the viewer answers without its session cookie: who it is (no data of the repository). */
export const VIEWER_PROBE_PATH = '/ca-ui/instance';

/** What `ui.json` holds. */
export interface ViewerAnnouncement {
  readonly app: 'ca-ui';
  readonly port: number;
  readonly pid: number;
  /** Random per launch; the probe must answer the same. */
  readonly instance: string;
  /** The repository the viewer shows (an index shared by linked worktrees names one of them). */
  readonly repoRoot: string;
}

/** The probe's answer. */
export interface ViewerProbeAnswer {
  readonly app: 'ca-ui';
  readonly instance: string;
}

/** Where the viewer of the index at `dbPath` announces itself. */
export function viewerFilePath(dbPath: string): string {
  return join(dirname(dbPath), VIEWER_FILE);
}

/** A new random instance id for a viewer launch. */
export function newViewerInstance(): string {
  return randomBytes(16).toString('hex');
}

/** Writes the announcement (whole or not at all: a temporary file renamed over it). */
export function writeViewerFile(dbPath: string, announcement: ViewerAnnouncement): void {
  const path = viewerFilePath(dbPath);
  const temp = `${path}.tmp-${process.pid}`;
  writeFileSync(temp, `${JSON.stringify(announcement)}\n`);
  renameSync(temp, path);
}

/** Removes the announcement if it is still this instance's (another viewer may have replaced it). */
export function removeViewerFile(dbPath: string, instance: string): void {
  const path = viewerFilePath(dbPath);
  if (readAnnouncement(path)?.instance === instance) rmSync(path, { force: true });
}

function readAnnouncement(path: string): ViewerAnnouncement | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    // why: no file is the usual case (no viewer running), not an error.
    return null;
  }
  try {
    const v = JSON.parse(text) as Partial<ViewerAnnouncement>;
    const ok = v.app === 'ca-ui' && Number.isInteger(v.port) && v.port! > 0 && v.port! < 65536 && typeof v.instance === 'string' && typeof v.repoRoot === 'string';
    return ok ? (v as ViewerAnnouncement) : null;
  } catch {
    // why: a torn or foreign file announces nothing; the viewer rewrites it whole on its next start.
    return null;
  }
}

/** Asks 127.0.0.1:`port` who it is; true when it is the announced viewer instance. */
export function probeViewer(port: number, instance: string, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: VIEWER_PROBE_PATH, method: 'GET', timeout: timeoutMs, headers: { host: `127.0.0.1:${port}` } }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > 4096) req.destroy();
        else chunks.push(c);
      });
      res.on('end', () => {
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Partial<ViewerProbeAnswer>;
          resolve(res.statusCode === 200 && body.app === 'ca-ui' && body.instance === instance);
        } catch {
          // why: an answer that is not the viewer's JSON means another program holds the port.
          resolve(false);
        }
      });
      res.on('error', () => resolve(false));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}

/** How long a probe's verdict is reused while the file is unchanged. */
const PROBE_TTL_MS = 5_000;

interface Cached {
  readonly stamp: string;
  readonly at: number;
  readonly origin: string | null;
}

/**
 * The origin (`http://127.0.0.1:PORT`) of the viewer running for a repository, or null. Reads
 * the file's stat on every call, probes when the file changed or the last verdict is older than
 * a few seconds.
 */
export class ViewerLinks {
  private readonly cache = new Map<string, Cached>();

  constructor(private readonly now: () => number = Date.now) {}

  async origin(dbPath: string, repoRoot: string): Promise<string | null> {
    const path = viewerFilePath(dbPath);
    let stamp: string;
    try {
      const st = statSync(path);
      stamp = `${st.mtimeMs}:${st.size}:${st.ino}`;
    } catch {
      // why: no file, no viewer.
      this.cache.delete(path);
      return null;
    }
    const hit = this.cache.get(path);
    if (hit && hit.stamp === stamp && this.now() - hit.at < PROBE_TTL_MS) return hit.origin;
    const v = readAnnouncement(path);
    const origin = v !== null && v.repoRoot === repoRoot && (await probeViewer(v.port, v.instance)) ? `http://127.0.0.1:${v.port}` : null;
    this.cache.set(path, { stamp, at: this.now(), origin });
    return origin;
  }
}

/** A deep link into the viewer: `origin` + path, the label kept as `?label=` (never a token). */
export function viewerUrl(origin: string, path: string, label?: string): string {
  if (label === undefined) return `${origin}${path}`;
  return `${origin}${path}${path.includes('?') ? '&' : '?'}label=${encodeURIComponent(label)}`;
}

/** The links every tool of this process shares (one cache). */
export const viewerLinks = new ViewerLinks();
