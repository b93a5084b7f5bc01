/**
 * The shape of an HTTP client call as the TypeScript extractor records it: an `http_calls` edge
 * whose target key names the request (`http:GET /api/orders/{}`) until the linker points it at
 * an endpoint node. The key keeps everything the linker needs, so linking can be redone from the
 * stored edges alone.
 *
 * A pattern is a path with `{}` for each segment whose value is unknown at the call site. A
 * pattern that starts with `~` has an unknown prefix (a base URL whose value is not known): only
 * the segments after it are known. The method is upper case, or `?` when the call's method is
 * not known.
 */

import { asPrefixRef, parseJsonObject, type ClientCallPrefix } from './httpPrefixes.js';

/** The prefix of a client call's target key. */
export const CLIENT_CALL_KEY_PREFIX = 'http:';

/** A client call's request, parsed from its key. */
export interface ClientCall {
  /** Upper-case HTTP method, or `?` when unknown. */
  readonly method: string;
  /** The known path segments (`{}` for an unknown one), after the unknown prefix if any. */
  readonly segments: readonly string[];
  /** Whether the segments are the whole path (false: an unknown prefix precedes them). */
  readonly prefixKnown: boolean;
  /** The unknown prefix is a value another file declares (resolved label-wide before linking), when the extractor could name it. */
  readonly prefix?: ClientCallPrefix;
}

/** `GET /api/orders/{}` (`GET ~/api/orders` with an unknown prefix): the edge's target name. */
export function clientCallName(method: string, pattern: string): string {
  return `${method} ${pattern}`;
}

/**
 * `http:GET /api/orders/{}`: the target key of a client call's `http_calls` edge. With `prefix`
 * (the pattern starts with `~`), the reference follows: `http:GET ~/series/v2 @{"ref":…,"slash":false}`.
 */
export function clientCallKey(method: string, pattern: string, prefix?: ClientCallPrefix): string {
  const ref = prefix === undefined ? '' : ` @${JSON.stringify({ ref: prefix.ref, slash: prefix.slash, rest: prefix.rest })}`;
  return `${CLIENT_CALL_KEY_PREFIX}${clientCallName(method, pattern)}${ref}`;
}

/** The inverse of {@link clientCallKey}; null when `key` is not a client call's key. */
export function parseClientCallKey(key: string): ClientCall | null {
  if (!key.startsWith(CLIENT_CALL_KEY_PREFIX)) return null;
  const m = /^([A-Z]+|\?) (~?)(\/\S*)?(?: @(\{.*\}))?$/.exec(key.slice(CLIENT_CALL_KEY_PREFIX.length));
  if (!m) return null;
  const path = m[3] ?? '';
  const call = { method: m[1]!, segments: path.split('/').filter((s) => s !== ''), prefixKnown: m[2] === '' && path !== '' };
  if (m[4] === undefined || m[2] === '') return call;
  const o = parseJsonObject(m[4]);
  const ref = o === null ? null : asPrefixRef(o['ref']);
  // A reference that does not parse leaves the prefix unknown, as a call without one.
  const rest = o?.['rest'];
  if (ref === null || !Array.isArray(rest) || !rest.every((x) => typeof x === 'string')) return call;
  return { ...call, prefix: { ref, slash: o!['slash'] === true, rest: rest as string[] } };
}

/**
 * A URL as a client call's path: origin (`https://host:port`), query string and fragment dropped,
 * repeated slashes collapsed, a leading `/` and no trailing one. `relative` paths (`api/x`) get
 * their leading slash too: a browser client resolves them against the page, which an ASP.NET
 * host serves from its root.
 */
export function clientPath(url: string): string {
  let s = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '');
  const cut = s.search(/[?#]/);
  if (cut >= 0) s = s.slice(0, cut);
  s = s.replace(/\/{2,}/g, '/').replace(/\/$/, '');
  return s.startsWith('/') ? s : `/${s}`;
}
