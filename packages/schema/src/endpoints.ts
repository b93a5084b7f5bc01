/**
 * The shape of an HTTP endpoint node, shared by the extractors that create endpoints (C#) and
 * those that link client calls to them (TypeScript): its key, its name and the signature text
 * that carries the bound parameters and the approximation reason (what users read; the prefix an
 * endpoint inherits from another file rides in an edge, `endpointInheritsKey`).
 */

/** Where an endpoint parameter is bound from (ASP.NET's `[FromX]` attributes, or the route). */
export type EndpointParamSource = 'route' | 'query' | 'body' | 'header' | 'form';

/** A bound parameter of an endpoint's handler. */
export interface EndpointParam {
  readonly source: EndpointParamSource;
  readonly type: string;
  readonly name: string;
}

/** What an endpoint's signature says beyond its name. */
export interface EndpointSignature {
  /** Upper-case HTTP method, or `ANY`. */
  readonly method: string;
  /** The normalised route template (leading `/`, no trailing `/`). */
  readonly template: string;
  readonly params: readonly EndpointParam[];
  /** Why the template is not exact (built at run time, unbalanced braces …), or null. */
  readonly approximate: string | null;
}

const SOURCES: readonly EndpointParamSource[] = ['route', 'query', 'body', 'header', 'form'];

/** `GET /api/orders/{id}`: the name and qualified name of an endpoint node. */
export function endpointName(method: string, template: string): string {
  return `${method} ${template}`;
}

/** `endpoint:GET /api/orders/{id}`: the symbol key of an endpoint node (the same across languages). */
export function endpointKey(method: string, template: string): string {
  return `endpoint:${endpointName(method, template)}`;
}

/**
 * `GET /api/orders/{id} [route int id, query string q] (approximate: reason)`: the parameters'
 * list only when there are some, the approximation only when there is one.
 */
export function formatEndpointSignature(s: EndpointSignature): string {
  let out = endpointName(s.method, s.template);
  if (s.params.length > 0) out += ` [${s.params.map((p) => `${p.source} ${p.type} ${p.name}`).join(', ')}]`;
  if (s.approximate) out += ` (approximate: ${s.approximate})`;
  return out;
}

/** The inverse of {@link formatEndpointSignature}; null when `text` is not an endpoint signature. */
export function parseEndpointSignature(text: string): EndpointSignature | null {
  const m = /^([A-Z]+) (\S*)(?: \[([^\]]*)\])?(?: \(approximate: ([\s\S]*)\))?$/.exec(text);
  if (!m) return null;
  const params: EndpointParam[] = [];
  for (const part of m[3] ? m[3].split(', ') : []) {
    const words = part.split(' ');
    const source = words[0] as EndpointParamSource;
    if (!SOURCES.includes(source) || words.length < 3) return null;
    params.push({ source, type: words.slice(1, -1).join(' '), name: words[words.length - 1]! });
  }
  return { method: m[1]!, template: m[2]!, params, approximate: m[4] ?? null };
}
