import { toSymbolView, type Engine } from '@ca/engine';
import { CaError } from '@ca/schema';

/**
 * What an error answer adds to the error: the candidates of an ambiguous name, as symbol views
 * (the agent retries with an id); nothing for any other error.
 */
export function errorExtras(engine: Engine | null, e: unknown): Record<string, unknown> {
  if (!(e instanceof CaError) || e.code !== 'ambiguous_symbol' || !engine) return {};
  const ids = (e.context['candidates'] as number[] | undefined) ?? [];
  return { candidates: engine.reader().nodesByIds(ids.slice(0, 20)).map(toSymbolView) };
}
