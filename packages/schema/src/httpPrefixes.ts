/**
 * URL prefixes declared in another file (issue 31, decision 038): what the per-file extractors
 * record so that a label-wide pass before HTTP linking can resolve a base URL or a route prefix
 * the syntax of one file does not give.
 *
 * - A **prefix fact** is a literal value some file declares that another file's URL may start
 *   with: an exported `const` (or one of its object literal's string properties), a base class
 *   constructor that stores a parameter in a field, a C# class's `[Route]` templates and base
 *   type, a `RouteAttribute` subclass's constant template. It is recorded as an `http_calls` edge
 *   whose target key starts with {@link PREFIX_FACT_KEY_PREFIX} (never linked: it goes with its
 *   file like every edge, so incremental indexing keeps it current).
 * - A **prefix reference** is what a client call's URL starts with when that is such a value: it
 *   rides in the call's key (`clientCallKey`); a C# endpoint's inherited prefix rides in an
 *   `http_calls` edge from the endpoint whose target key starts with
 *   {@link ENDPOINT_INHERITS_KEY_PREFIX} (`EndpointInherits`; never linked either).
 */

/** The prefix of a prefix fact's target key. */
export const PREFIX_FACT_KEY_PREFIX = 'httpfact:';

/** A literal value another file may use as a URL prefix. */
export type PrefixFact =
  /** TS: the exported const `name` (`path` '' ) or its object's string property at `path` (`apiUrl`, `api.base`). */
  | { readonly kind: 'const'; readonly name: string; readonly path: string; readonly value: string }
  /**
   * TS: class `class`'s constructor stores its parameter `param` (0-based) in the field `field`;
   * `hrefParam`: the index of a parameter the constructor may prepend to it (`this.url = href + this.url`), else null.
   */
  | { readonly kind: 'ctor'; readonly class: string; readonly field: string; readonly param: number; readonly hrefParam: number | null }
  /**
   * C#: class `class`'s own `[Route]` templates (none: it has none), its class attributes that may be
   * route attribute classes declared elsewhere (`ApiV2`), and its first base type's simple name.
   */
  | { readonly kind: 'route'; readonly class: string; readonly templates: readonly string[]; readonly attributes: readonly string[]; readonly base: string | null }
  /** C#: an attribute class deriving from `RouteAttribute` whose constructor passes `template` to the base (`class` without `Attribute`). */
  | { readonly kind: 'routeAttribute'; readonly class: string; readonly template: string };

/** The prefix of the target key of an endpoint's inherited-prefix edge. */
export const ENDPOINT_INHERITS_KEY_PREFIX = 'httpinherits:';

/** The target names of prefix facts' edges (TS and C#): navigation leaves these edges out (they are no call). */
export const PREFIX_FACT_NAMES: ReadonlySet<string> = new Set(['url prefix', 'route prefix']);

/** `httpfact:{…}`: the target key of a prefix fact's edge. */
export function prefixFactKey(fact: PrefixFact): string {
  return `${PREFIX_FACT_KEY_PREFIX}${JSON.stringify(fact)}`;
}

/** The inverse of {@link prefixFactKey}; null when `key` is not a well-formed prefix fact's key. */
export function parsePrefixFactKey(key: string): PrefixFact | null {
  if (!key.startsWith(PREFIX_FACT_KEY_PREFIX)) return null;
  const fact = parseJsonObject(key.slice(PREFIX_FACT_KEY_PREFIX.length));
  if (fact === null) return null;
  switch (fact['kind']) {
    case 'const':
      return isStrings(fact, ['name', 'path', 'value']) ? (fact as PrefixFact) : null;
    case 'ctor':
      return isStrings(fact, ['class', 'field']) && Number.isInteger(fact['param']) && (fact['hrefParam'] === null || Number.isInteger(fact['hrefParam'])) ? (fact as PrefixFact) : null;
    case 'route':
      return isStrings(fact, ['class']) && isStringArray(fact['templates']) && isStringArray(fact['attributes']) && (fact['base'] === null || typeof fact['base'] === 'string') ? (fact as PrefixFact) : null;
    case 'routeAttribute':
      return isStrings(fact, ['class', 'template']) ? (fact as PrefixFact) : null;
    default:
      return null;
  }
}

/** One argument of a `super(...)` call as a prefix reference keeps it: a string literal, the app's base href, or unknown (null). */
export type SuperArgument = string | { readonly baseHref: true } | null;

/** What a client call's URL starts with, named but not known in its file. */
export type PrefixRef =
  /** `environment.apiUrl` where `import { environment } from 'src/environments/environment'`: `from` as written, `path` the property path ('' for the const itself). */
  | { readonly kind: 'import'; readonly from: string; readonly name: string; readonly path: string }
  /** `this.url` where the class does not declare `url` and calls `super(…args)` of base class `base`. */
  | { readonly kind: 'super'; readonly base: string; readonly field: string; readonly args: readonly SuperArgument[] };

/**
 * A client call's reference and the path after it: its segments (`{}` for an unknown one, which
 * the call's own pattern cannot keep right after an unknown prefix), and whether that text starts
 * with `/` (or is empty) — else its first segment continues the value's last.
 */
export interface ClientCallPrefix {
  readonly ref: PrefixRef;
  readonly slash: boolean;
  readonly rest: readonly string[];
}

/**
 * What a C# endpoint whose controller has no `[Route]` of its own may take its prefix from: its
 * base class (`base`, its simple name) or class attributes that may be `RouteAttribute`
 * subclasses declared elsewhere (`attributes`, without `Attribute`); its action's own template
 * and the tokens to replace once the prefix is known.
 */
export interface EndpointInherits {
  readonly base: string | null;
  readonly attributes: readonly string[];
  /** The action's template before it is combined with a prefix. */
  readonly template: string;
  readonly controller: string;
  readonly action: string;
  readonly area: string | null;
}

/** Parses `text` as a JSON object; null when it is not one. */
export function parseJsonObject(text: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    // Not JSON: the caller treats the text as no fact (a key from another extractor version).
    return null;
  }
}

function isStrings(o: Record<string, unknown>, names: readonly string[]): boolean {
  return names.every((n) => typeof o[n] === 'string');
}

function isStringArray(v: unknown): boolean {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}

/** Validates a parsed prefix reference. */
export function asPrefixRef(v: unknown): PrefixRef | null {
  if (typeof v !== 'object' || v === null) return null;
  const o = v as Record<string, unknown>;
  if (o['kind'] === 'import') return isStrings(o, ['from', 'name', 'path']) ? (o as PrefixRef) : null;
  if (o['kind'] === 'super') {
    const args = o['args'];
    const ok = Array.isArray(args) && args.every((a) => a === null || typeof a === 'string' || (typeof a === 'object' && (a as Record<string, unknown>)['baseHref'] === true));
    return isStrings(o, ['base', 'field']) && ok ? (o as PrefixRef) : null;
  }
  return null;
}

/** `httpinherits:{…}`: the target key of the edge saying where an endpoint's route prefix may come from. */
export function endpointInheritsKey(inherits: EndpointInherits): string {
  return `${ENDPOINT_INHERITS_KEY_PREFIX}${JSON.stringify(inherits)}`;
}

/** The inverse of {@link endpointInheritsKey}; null when `key` is not a well-formed one. */
export function parseEndpointInheritsKey(key: string): EndpointInherits | null {
  if (!key.startsWith(ENDPOINT_INHERITS_KEY_PREFIX)) return null;
  return asEndpointInherits(parseJsonObject(key.slice(ENDPOINT_INHERITS_KEY_PREFIX.length)));
}

/** Validates a parsed endpoint inheritance. */
export function asEndpointInherits(v: unknown): EndpointInherits | null {
  if (typeof v !== 'object' || v === null) return null;
  const o = v as Record<string, unknown>;
  const ok = (o['base'] === null || typeof o['base'] === 'string') && isStringArray(o['attributes']) && isStrings(o, ['template', 'controller', 'action']) && (o['area'] === null || typeof o['area'] === 'string');
  return ok ? (o as unknown as EndpointInherits) : null;
}
