import { z } from 'zod';
import { fileOutline, fileOutlineOf } from '@ca/engine';
import { bounded, jsonTokens, type AnswerBudget } from '../answers.js';
import { insideRepo, labelArg, nonEmpty } from './args.js';
import { defineTool, READ_ONLY } from './context.js';

/** `get_file_outline`: a file's symbols as a tree; over the cap, signatures go first, then top-level symbols page. */
export const getFileOutline = defineTool({
  name: 'get_file_outline',
  description: "A file's symbols as a tree with kind, lines, signature, exported.",
  input: (kit) => ({ path: nonEmpty('path'), offset: z.number().optional(), ...labelArg, ...kit.repoArg }),
  annotations: READ_ONLY,
  handler: (args, extra, ctx) =>
    ctx.answer(args.repo, extra, (engine, _session, budget) => outlineAnswer(fileOutline(engine, insideRepo(engine.repoRoot, args.path, 'path'), args.label), args.offset, budget, {})),
  // The team store: the label's snapshot of the file (lines from its stored copy), with `store`, the snapshot read.
  store: (args, ctx) => ctx.reads('get_file_outline', args, async (reads, budget) => outlineAnswer(await fileOutlineOf(reads, args.path), args.offset, budget, { store: reads.origin })),
});

/** The outline answer within the budget: whole when it fits, else signatures left out and the top-level symbols paged. */
function outlineAnswer(outline: ReturnType<typeof fileOutline>, offsetArg: number | undefined, budget: AnswerBudget, where: object): object {
  const offset = bounded('offset', offsetArg, 0, 0, 1_000_000);
  const whole = { ...outline, nextOffset: null, notices: [], ...where };
  if (offset === 0 && jsonTokens(whole) + (budget.warning ? jsonTokens(budget.warning) + 4 : 0) <= budget.cap) return whole;
  // Over the cap: the members' signatures go first (names and lines stay), then the top-level symbols page.
  type Lean = Omit<(typeof outline.symbols)[number], 'signature' | 'children'> & { children: Lean[] };
  const lean = (n: (typeof outline.symbols)[number]): Lean => {
    const { signature: _s, children, ...rest } = n;
    return { ...rest, children: children.map(lean) };
  };
  return budget.json(
    outline.symbols.map(lean),
    offset,
    (symbols, page, cut) => ({ ...outline, symbols, offset, nextOffset: page.nextOffset, notices: [`outline over ${budget.cap} tokens: signatures left out`, ...(cut ? [cut] : [])], ...where }),
    { kinds: () => ['top-level symbols'] },
  );
}
