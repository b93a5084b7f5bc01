/**
 * The label-wide half of a controller's route prefix declared in another file (decision 038):
 * given the C# prefix facts of every file of a label (`[Route]` templates of base classes,
 * templates `RouteAttribute` subclasses pass to their base), the full template of an endpoint
 * whose extractor recorded where its prefix may come from ({@link EndpointInherits}).
 */
import type { EndpointInherits, PrefixFact } from '@ca/schema';
import { combineTemplates, normalizeTemplate, replaceTokens } from './template.js';

const MAX_BASE_DEPTH = 16;

type RouteFact = Extract<PrefixFact, { kind: 'route' }>;
type AttributeFact = Extract<PrefixFact, { kind: 'routeAttribute' }>;

/** The label's C# prefix facts by class name (several when several files declare the name). */
export class RoutePrefixFacts {
  private readonly routes = new Map<string, RouteFact[]>();
  private readonly attributes = new Map<string, AttributeFact[]>();

  constructor(facts: Iterable<PrefixFact>) {
    for (const f of facts) {
      if (f.kind === 'route') push(this.routes, f.class, f);
      else if (f.kind === 'routeAttribute') push(this.attributes, f.class, f);
    }
  }

  /**
   * The prefix templates the endpoint's class takes from elsewhere: those of its class attributes
   * that are route attribute classes, else its nearest base class's `[Route]` templates. Null
   * when unknown: no fact, or a name declared by several classes with different values (never a
   * guess between them).
   */
  prefixesOf(inherits: EndpointInherits): readonly string[] | null {
    let fromAttributes = this.fromAttributes(inherits.attributes);
    if (fromAttributes !== undefined) return fromAttributes;
    let base = inherits.base;
    for (let depth = 0; base !== null && depth < MAX_BASE_DEPTH; depth++) {
      const facts = this.routes.get(base) ?? [];
      const distinct = new Set(facts.map((f) => JSON.stringify([f.templates, f.attributes, f.base])));
      if (distinct.size !== 1) return null;
      const fact = facts[0]!;
      if (fact.templates.length > 0) return fact.templates;
      fromAttributes = this.fromAttributes(fact.attributes);
      if (fromAttributes !== undefined) return fromAttributes;
      base = fact.base;
    }
    return null;
  }

  /** The templates of those `names` that are route attribute classes; undefined when none is; null when one name has several values. */
  private fromAttributes(names: readonly string[]): string[] | null | undefined {
    const out: string[] = [];
    for (const a of names) {
      const values = new Set((this.attributes.get(a.replace(/Attribute$/, '')) ?? []).map((f) => f.template));
      if (values.size > 1) return null;
      out.push(...values);
    }
    return out.length > 0 ? out : undefined;
  }

  /**
   * The endpoint's normalised template with its inherited prefix (`/api/series/v2`), or null when
   * the prefix stays unknown, is not one template (a class with several `[Route]`s serves each:
   * which one a call means is not one answer), or leaves a route token without a value.
   */
  resolve(inherits: EndpointInherits): string | null {
    const prefixes = this.prefixesOf(inherits);
    if (prefixes === null || prefixes.length !== 1) return null;
    const tokens = { controller: inherits.controller, action: inherits.action, area: inherits.area };
    const replaced = replaceTokens(combineTemplates(prefixes[0]!, inherits.template), tokens);
    if (replaced.missing.length > 0) return null;
    const normalized = normalizeTemplate(replaced.text);
    return normalized.problem === null ? normalized.template : null;
  }
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
