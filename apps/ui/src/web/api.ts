/** The viewer's calls to its server: same-origin, the session cookie sent by the browser. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

async function parse<T>(res: Response): Promise<T> {
  const body = (await res.json()) as T | { error: { code: string; message: string } };
  if (!res.ok) {
    const err = (body as { error?: { code: string; message: string } }).error;
    throw new ApiFailure(res.status, err?.code ?? 'internal', err?.message ?? `HTTP ${res.status}`);
  }
  return body as T;
}

/** The repository the page's URL names (`?repo=`): every API call is about it. */
function pageRepo(): string | null {
  return new URLSearchParams(location.search).get('repo');
}

/** GET /api/PATH with query parameters (empty ones dropped), for the page's repository. */
export async function get<T>(path: string, params: Record<string, string | null | undefined> = {}): Promise<T> {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries({ repo: pageRepo(), ...params })) if (v) q.set(k, v);
  const qs = q.toString();
  return parse<T>(await fetch(`/api/${path}${qs ? `?${qs}` : ''}`, { credentials: 'same-origin' }));
}

/** POST /api/PATH for the page's repository (the header tells the server the viewer's own script sent it). */
export async function post<T>(path: string): Promise<T> {
  const repo = pageRepo();
  return parse<T>(await fetch(`/api/${path}${repo ? `?repo=${encodeURIComponent(repo)}` : ''}`, { method: 'POST', credentials: 'same-origin', headers: { 'x-ca-ui': '1' } }));
}
