import { symbolDetails } from '@ca/engine';
import { labelArg, symbolArg } from './args.js';
import { defineTool, READ_ONLY } from './context.js';

/** `get_symbol`: a symbol's metadata and the counts of its edges. */
export const getSymbol = defineTool({
  name: 'get_symbol',
  description: 'A symbol\'s metadata and counts of callers, callees, references, implementations.',
  input: (kit) => ({ symbol: symbolArg, ...labelArg, ...kit.repoArg }),
  annotations: READ_ONLY,
  handler: (args, extra, ctx) => ctx.answer(args.repo, extra, (engine) => symbolDetails(engine, args.symbol, args.label)),
});
