import { z } from 'zod';
import { mapSymbols as map } from '@ca/engine';
import { CaError } from '@ca/schema';
import { insideRepo, int, MAX_LIMIT, offsetArg, queryArg } from './args.js';
import { defineTool, READ_ONLY } from './context.js';

/** `map_symbols`: the symbols, imports and exports of the files a glob or a query names. */
export const mapSymbols = defineTool({
  name: 'map_symbols',
  description: 'Files matching a glob or query: their symbols, imports, exports.',
  input: (kit) => ({
    path: z.string().optional().describe('Glob'),
    query: queryArg.optional(),
    limit: int('limit', 1, MAX_LIMIT).optional(),
    offset: offsetArg,
    detail: z.enum(['signatures', 'names']).optional(),
    ...kit.repoArg,
  }),
  annotations: READ_ONLY,
  handler: (args, extra, ctx) =>
    ctx.answer(args.repo, extra, async (engine, _session, budget) => {
      const pathGlob = args.path === undefined ? undefined : insideRepo(engine.repoRoot, args.path, 'path');
      if (pathGlob === undefined && args.query === undefined) throw new CaError('usage', 'map_symbols needs a path glob or a query');
      const offset = args.offset ?? 0;
      const r = await map(engine, {
        ...(pathGlob !== undefined ? { pathGlob } : {}),
        ...(args.query !== undefined ? { query: args.query } : {}),
        limit: args.limit ?? 20,
        offset,
        signatures: args.detail !== 'names',
      });
      // The page asked for (offset, limit) is what the budget cuts: its files are the units, counted from the answer's offset.
      return budget.json(
        r.files,
        0,
        (files, page, cut) => {
          const next = offset + files.length < r.total ? offset + files.length : null;
          const said = cut && page.nextOffset !== null ? [`answer cut at ${ctx.cap} tokens: kept ${files.length} of the ${r.files.length} files asked for (from offset ${offset}); call again with offset ${offset + files.length} for the next page`] : [];
          return { files, total: r.total, offset, nextOffset: next, notices: [...r.notices, ...said] };
        },
        { kinds: () => ['files'] },
      );
    }),
});
