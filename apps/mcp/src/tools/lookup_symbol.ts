import { lookupSymbols } from '@ca/engine';
import { int, labelArg, MAX_LIMIT, symbolArg } from './args.js';
import { defineTool, READ_ONLY } from './context.js';

/** `lookup_symbol`: the definitions of a name. */
export const lookupSymbol = defineTool({
  name: 'lookup_symbol',
  description: 'Definitions of a name (qualified or bare): kind, file, lines.',
  input: (kit) => ({ symbol: symbolArg, limit: int('limit', 1, MAX_LIMIT).optional(), ...labelArg, ...kit.repoArg }),
  annotations: READ_ONLY,
  handler: (args, extra, ctx) =>
    ctx.answer(args.repo, extra, (engine, _session, budget) => {
      const r = lookupSymbols(engine, args.symbol, args.limit ?? 20, args.label);
      return budget.json(r.matches, 0, (matches, _page, cut) => ({ matches, total: r.total, ...(cut ? { notices: [cut] } : {}) }), {
        kinds: () => ['matches'],
        continuation: () => 'ask with a more qualified name',
      });
    }),
});
