import { searchJson } from '@ca/engine';
import { int, labelArg, labelOf, MAX_LIMIT, symbolArg } from './args.js';
import { defineTool, READ_ONLY } from './context.js';

/** `find_similar`: the code nearest a symbol (its vector neighbours). */
export const findSimilar = defineTool({
  name: 'find_similar',
  description: 'Code most like a symbol (vector neighbours).',
  input: (kit) => ({ symbol: symbolArg, limit: int('limit', 1, MAX_LIMIT).optional(), ...labelArg, ...kit.repoArg }),
  annotations: READ_ONLY,
  handler: (args, extra, ctx) =>
    ctx.answer(args.repo, extra, async (engine, _session, budget) => {
      const r = searchJson(await engine.similar(args.symbol, { limit: args.limit ?? 10, ...labelOf(args) }), false);
      return budget.json(r.results, 0, (results, _page, cut) => ({ ...r, results, notices: [...r.notices, ...(cut ? [cut] : [])] }), {
        kinds: () => ['results'],
        continuation: () => 'ask with a smaller limit',
      });
    }),
});
