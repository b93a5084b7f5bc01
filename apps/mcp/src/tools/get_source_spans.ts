import { z } from 'zod';
import { sourceSpans } from '@ca/engine';
import { int, labelArg, labelOf, symbolArg } from './args.js';
import { defineTool, READ_ONLY } from './context.js';

/** `get_source_spans`: a symbol's source, paged by lines across all the spans asked for. */
export const getSourceSpans = defineTool({
  name: 'get_source_spans',
  description: "A symbol's source: primary span, all spans of a partial class, or one; optional line window.",
  input: (kit) => ({
    symbol: symbolArg,
    span: z
      .union([z.enum(['primary', 'all']), int('span', 0, 10_000)])
      .optional()
      .describe('primary, all, or an index.'),
    start_line: int('start_line', 1, 100_000_000).optional(),
    end_line: int('end_line', 1, 100_000_000).optional(),
    ...labelArg,
    ...kit.repoArg,
  }),
  annotations: READ_ONLY,
  handler: (args, extra, ctx) =>
    ctx.answer(args.repo, extra, (engine, _session, budget) => {
      const r = sourceSpans(engine, args.symbol, {
        ...labelOf(args),
        ...(args.span !== undefined ? { span: args.span } : {}),
        ...(args.start_line !== undefined ? { startLine: args.start_line } : {}),
        ...(args.end_line !== undefined ? { endLine: args.end_line } : {}),
      });
      // One budget for all the spans asked for: the units are their lines, a page ends at a line and says where to go on.
      const lines = r.spans.flatMap((span, i) => span.code.split('\n').map((text, k) => ({ span: i, line: span.startLine + k, text })));
      return budget.json(
        lines,
        0,
        (kept, page, cut) => {
          const spans = r.spans.flatMap((span, i) => {
            const mine = kept.filter((l) => l.span === i);
            if (mine.length === 0) return [];
            return [{ ...span, code: mine.map((l) => l.text).join('\n'), endLine: mine[mine.length - 1]!.line }];
          });
          return { symbol: r.symbol, spans, totalSpans: r.totalSpans, notices: cut && page.nextOffset !== null ? [cut] : [] };
        },
        { kinds: () => ['lines'], continuation: (next) => `ask again with span ${args.span === 'all' ? lines[next]!.span : (args.span ?? 'primary')} and start_line ${lines[next]!.line}` },
      );
    }),
});
