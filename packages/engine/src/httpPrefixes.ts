/**
 * The label-wide resolution of URL prefixes declared in another file (issue 31, decision 038),
 * run by the HTTP linker before it matches: a client call whose URL starts with an imported
 * const or a field a base class constructor sets (a `PrefixRef` in its key) gets the literal
 * value the label's prefix facts give it; an endpoint whose controller inherits its route prefix
 * (a base controller's `[Route]`, an `[ApiV1]`-style attribute class) gets its full template.
 *
 * Only one literal value resolves: a name with no fact, or with several distinct values (two
 * files declare it), stays unknown, so the link stays approximate rather than guessed.
 */
import { posix } from 'node:path';
import { clientPath, parsePrefixFactKey, type ClientCall, type EndpointInherits, type PrefixFact, type PrefixRef } from '@ca/schema';
import { RoutePrefixFacts } from '@ca/parse-cs';
import type { PrefixFactRow } from '@ca/store';

type ConstFact = Extract<PrefixFact, { kind: 'const' }>;
type CtorFact = Extract<PrefixFact, { kind: 'ctor' }>;

/** Extensions a TypeScript import specifier may omit. */
const MODULE_EXTENSION = /\.(?:d\.)?(?:tsx?|mts|cts|jsx?|mjs|cjs)$/;

/** The prefix facts of one label, ready to resolve calls and endpoints. */
export class LabelPrefixes {
  /** Const facts by the declaring file's path without its extension (`src/environments/environment`). */
  private readonly consts = new Map<string, ConstFact[]>();
  private readonly ctors = new Map<string, CtorFact[]>();
  private readonly routes: RoutePrefixFacts;

  constructor(rows: readonly PrefixFactRow[]) {
    const cs: PrefixFact[] = [];
    for (const row of rows) {
      const fact = parsePrefixFactKey(row.targetKey);
      if (fact === null) continue;
      if (fact.kind === 'const') push(this.consts, row.path.replace(MODULE_EXTENSION, ''), fact);
      else if (fact.kind === 'ctor') push(this.ctors, fact.class, fact);
      else cs.push(fact);
    }
    this.routes = new RoutePrefixFacts(cs);
  }

  /** The call with its referenced prefix resolved (a whole path: `prefixKnown`), or the call itself when it stays unknown. */
  resolveCall(call: ClientCall, path: string): ClientCall {
    if (call.prefix === undefined) return call;
    const value = this.valueOf(call.prefix.ref, path);
    if (value === null || /[?#]/.test(value)) return call;
    const prefix = clientPath(value).split('/').filter((s) => s !== '');
    const rest = call.prefix.rest;
    const segments = [...prefix, ...rest];
    // `'/api' + 'x'` is one segment `/apix`: the value's last segment continues into the rest's first.
    if (!call.prefix.slash && !value.endsWith('/') && prefix.length > 0 && rest.length > 0) {
      const first = rest[0]!;
      segments.splice(prefix.length - 1, 2, first === '{}' ? '{}' : `${prefix[prefix.length - 1]!}${first}`);
    }
    return { method: call.method, segments, prefixKnown: true };
  }

  /** The endpoint's full normalised template with its inherited prefix, or null when it stays unknown. */
  resolveEndpoint(inherits: EndpointInherits): string | null {
    return this.routes.resolve(inherits);
  }

  /** The one literal value `ref` names from `path`, or null. */
  private valueOf(ref: PrefixRef, path: string): string | null {
    if (ref.kind === 'import') {
      const values = new Set(this.moduleFacts(ref.from, path).filter((f) => f.name === ref.name && f.path === ref.path).map((f) => f.value));
      return values.size === 1 ? [...values][0]! : null;
    }
    const facts = this.ctors.get(ref.base) ?? [];
    const ways = new Set(facts.filter((f) => f.field === ref.field).map((f) => `${f.param}:${f.hrefParam}`));
    if (ways.size !== 1) return null;
    const fact = facts.find((f) => f.field === ref.field)!;
    const value = ref.args[fact.param];
    if (typeof value !== 'string') return null;
    // A prefix from the app's base href is where the app is deployed: dropped like an origin. Any other prefix is unknown.
    if (fact.hrefParam !== null && !isBaseHref(ref.args[fact.hrefParam])) return null;
    return value;
  }

  /**
   * The const facts of the module `from` imported by `path`: a relative specifier names one
   * file; a bare one (`src/environments/environment`, a `baseUrl`-relative path) every file of
   * the label whose path ends with it — several files give several values, which stay unknown.
   */
  private moduleFacts(from: string, path: string): ConstFact[] {
    const spec = from.replace(MODULE_EXTENSION, '').replace(/\/$/, '');
    if (spec.startsWith('./') || spec.startsWith('../')) {
      const target = posix.normalize(posix.join(posix.dirname(path), spec));
      return [...(this.consts.get(target) ?? []), ...(this.consts.get(`${target}/index`) ?? [])];
    }
    const out: ConstFact[] = [];
    for (const [file, facts] of this.consts) {
      if (file === spec || file.endsWith(`/${spec}`) || file === `${spec}/index` || file.endsWith(`/${spec}/index`)) out.push(...facts);
    }
    return out;
  }
}

function isBaseHref(arg: unknown): boolean {
  return typeof arg === 'object' && arg !== null && (arg as { baseHref?: unknown }).baseHref === true;
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
