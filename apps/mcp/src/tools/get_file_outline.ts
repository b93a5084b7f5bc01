import { z } from 'zod';
import { fileOutline } from '@ca/engine';
import { bounded, jsonTokens } from '../answers.js';
import { insideRepo, labelArg, nonEmpty } from './args.js';
import { defineTool, READ_ONLY } from './context.js';

/** `get_file_outline`: a file's symbols as a tree; over the cap, signatures go first, then top-level symbols page. */
export const getFileOutline = defineTool({
  name: 'get_file_outline',
  description: "A file's symbols as a tree with kind, lines, signature, exported.",
  input: (kit) => ({ path: nonEmpty('path'), offset: z.number().optional(), ...labelArg, ...kit.repoArg }),
  annotations: READ_ONLY,
  handler: (args, extra, ctx) =>
    ctx.answer(args.repo, extra, (engine, _session, budget) => {
      const outline = fileOutline(engine, insideRepo(engine.repoRoot, args.path, 'path'), args.label);
      const offset = bounded('offset', args.offset, 0, 0, 1_000_000);
      const whole = { ...outline, nextOffset: null, notices: [] };
      if (offset === 0 && jsonTokens(whole) + (budget.warning ? jsonTokens(budget.warning) + 4 : 0) <= ctx.cap) return whole;
      // Over the cap: the members' signatures go first (names and lines stay), then the top-level symbols page.
      type Lean = Omit<(typeof outline.symbols)[number], 'signature' | 'children'> & { children: Lean[] };
      const lean = (n: (typeof outline.symbols)[number]): Lean => {
        const { signature: _s, children, ...rest } = n;
        return { ...rest, children: children.map(lean) };
      };
      return budget.json(
        outline.symbols.map(lean),
        offset,
        (symbols, page, cut) => ({ ...outline, symbols, offset, nextOffset: page.nextOffset, notices: [`outline over ${ctx.cap} tokens: signatures left out`, ...(cut ? [cut] : [])] }),
        { kinds: () => ['top-level symbols'] },
      );
    }),
});
