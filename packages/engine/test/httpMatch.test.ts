/**
 * The HTTP linker's matching (httpLinks.ts), pure: hand-derived cases of each confidence, and
 * generated routes and calls checking the rules that must hold for every input — a call made
 * from a route by writing each parameter as an unknown part links exactly to it when it is the
 * only route; an unknown part standing for a literal segment is never exact; an unknown prefix
 * is never exact.
 */
import { parseClientCallKey, seededRandom, type ClientCall } from '@ca/schema';
import { describe, expect, it } from 'vitest';
import { linkCall, matchRoute, parseEndpointRoute, type EndpointRoute } from '../src/index.js';

function call(key: string): ClientCall {
  const c = parseClientCallKey(`http:${key}`);
  if (c === null) throw new Error(`bad key ${key}`);
  return c;
}

function route(name: string, approximate = false): EndpointRoute {
  const r = parseEndpointRoute(name, approximate);
  if (r === null) throw new Error(`bad route ${name}`);
  return r;
}

const routes = (names: readonly string[]) => names.map((n, i) => ({ id: i + 1, route: route(n) }));

describe('matching a client call against endpoints', () => {
  it('exact: method and whole path, literals equal case-insensitively, unknown parts in parameters', () => {
    expect(matchRoute(call('GET /api/Orders/{}'), route('GET /api/orders/{id}'))).toEqual({ confidence: 'exact', score: 3 + 3 + 2, methodNamed: true });
    expect(matchRoute(call('POST /api/orders/{}'), route('GET /api/orders/{id}'))).toBeNull();
    expect(matchRoute(call('GET /api/orders'), route('GET /api/orders/{id}'))).toBeNull();
    // An optional parameter may be absent; a catch-all takes any rest.
    expect(matchRoute(call('GET /api/orders'), route('GET /api/orders/{id?}'))?.confidence).toBe('exact');
    expect(matchRoute(call('GET /files/a/b/c'), route('GET /files/{*path}'))?.confidence).toBe('probable');
    // ANY takes every method.
    expect(matchRoute(call('DELETE /api/orders/ping'), route('ANY /api/orders/ping'))).toEqual({ confidence: 'exact', score: 9, methodNamed: false });
  });

  it('probable: a literal of the call in a parameter; approximate: unknown part for a literal, unknown prefix, unknown method, approximate endpoint', () => {
    expect(matchRoute(call('GET /api/orders/5'), route('GET /api/orders/{id}'))?.confidence).toBe('probable');
    expect(matchRoute(call('GET /api/{}/items'), route('GET /api/catalog/items'))?.confidence).toBe('approximate');
    expect(matchRoute(call('GET ~/api/Orders/{}'), route('GET /api/orders/{id}'))?.confidence).toBe('approximate');
    expect(matchRoute(call('? /api/orders'), route('POST /api/orders'))?.confidence).toBe('approximate');
    // An approximate endpoint (its prefix unknown to the extractor) matches as a suffix, on a literal.
    expect(matchRoute(call('GET /api/v2/customers/{}/orders'), route('GET /customers/{id}/orders', true))?.confidence).toBe('approximate');
    // No literal in common: no link at all.
    expect(matchRoute(call('GET /api/v2/customers/{}'), route('GET /{id}', true))).toBeNull();
    expect(matchRoute(call('DELETE ~'), route('DELETE /api/orders/{id}'))).toBeNull();
  });

  it('keeps the best matches only: literals over parameters, a named method over ANY; ties are probable', () => {
    const rs = routes(['GET /api/orders/{id}', 'GET /api/orders/export', 'ANY /api/orders', 'POST /api/orders']);
    // {} fits {id} (score 2) better than the literal `export` (score 0).
    expect(linkCall(call('GET /api/orders/{}'), rs)).toEqual([{ id: 1, confidence: 'exact' }]);
    // `export` equals the literal (exact) where {id} takes a literal (probable).
    expect(linkCall(call('GET /api/orders/export'), rs)).toEqual([{ id: 2, confidence: 'exact' }]);
    // POST /api/orders names the method: it beats ANY /api/orders.
    expect(linkCall(call('POST /api/orders'), rs)).toEqual([{ id: 4, confidence: 'exact' }]);
    // The same route in two files: one of several, each probable.
    expect(linkCall(call('GET /api/orders/{}'), routes(['GET /api/orders/{id}', 'GET /api/orders/{orderId}']))).toEqual([
      { id: 1, confidence: 'probable' },
      { id: 2, confidence: 'probable' },
    ]);
  });
});

const WORDS = ['api', 'orders', 'items', 'v2', 'catalog', 'lines', 'admin', 'carts'];
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'];

function randomRoute(r: () => number): string {
  const n = 1 + Math.floor(r() * 4);
  const segs: string[] = [];
  for (let i = 0; i < n; i++) segs.push(r() < 0.3 ? `{p${i}}` : WORDS[Math.floor(r() * WORDS.length)]!);
  if (!segs.some((s) => !s.startsWith('{'))) segs[0] = 'api';
  return `${METHODS[Math.floor(r() * METHODS.length)]} /${segs.join('/')}`;
}

describe('matching rules over generated routes and calls', () => {
  it('a call written from a route (parameters unknown) links exactly to it alone, and never exactly once a literal is unknown or the prefix is', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const r = seededRandom(seed);
      const name = randomRoute(r);
      const [method, template] = name.split(' ') as [string, string];
      const segments = template.split('/').filter((s) => s !== '');
      const asCall = segments.map((s) => (s.startsWith('{') ? '{}' : s.toUpperCase()));
      expect(linkCall(call(`${method} /${asCall.join('/')}`), [{ id: 1, route: route(name) }]), `seed ${seed}: ${name}`).toEqual([{ id: 1, confidence: 'exact' }]);

      // An unknown part where the route has a literal: never exact.
      const literalAt = segments.findIndex((s) => !s.startsWith('{'));
      const blurred = asCall.map((s, i) => (i === literalAt ? '{}' : s));
      const m = matchRoute(call(`${method} /${blurred.join('/')}`), route(name));
      if (m !== null) expect(m.confidence, `seed ${seed}: ${name}`).toBe('approximate');

      // The same path behind an unknown base URL: approximate (when it matches at all).
      const prefixed = matchRoute(call(`${method} ~/${asCall.join('/')}`), route(name));
      if (prefixed !== null) expect(prefixed.confidence, `seed ${seed}: ${name}`).toBe('approximate');
      // Another method never matches a named one.
      const other = METHODS.find((x) => x !== method)!;
      expect(matchRoute(call(`${other} /${asCall.join('/')}`), route(name)), `seed ${seed}: ${name}`).toBeNull();
    }
  });

  it('among several generated routes, an exact link is to a route whose literals all equal the call\'s', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const r = seededRandom(seed * 7919);
      const names = Array.from({ length: 6 }, () => randomRoute(r));
      const target = names[Math.floor(r() * names.length)]!;
      const [method, template] = target.split(' ') as [string, string];
      const asCall = template
        .split('/')
        .filter((s) => s !== '')
        .map((s) => (s.startsWith('{') ? '{}' : s));
      const links = linkCall(call(`${method} /${asCall.join('/')}`), routes(names));
      // The target itself always matches exactly, so the best links are exact or, tied, probable.
      expect(links.length, `seed ${seed}`).toBeGreaterThan(0);
      for (const l of links) {
        expect(['exact', 'probable'], `seed ${seed}`).toContain(l.confidence);
        if (l.confidence === 'exact') expect(links.length, `seed ${seed}`).toBe(1);
        const linked = route(names[l.id - 1]!);
        linked.segments.forEach((s, i) => {
          if (s.kind === 'literal') expect(asCall[i]!.toLowerCase(), `seed ${seed}`).toBe(s.text);
        });
      }
    }
  });
});
