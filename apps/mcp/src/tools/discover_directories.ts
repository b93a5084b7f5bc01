import { z } from 'zod';
import { discoverDirectories as discover } from '@ca/engine';
import { insideRepo, int, MAX_LIMIT, queryArg } from './args.js';
import { defineTool, READ_ONLY } from './context.js';

/** `discover_directories`: where a feature lives, as directories ranked by relevant code. */
export const discoverDirectories = defineTool({
  name: 'discover_directories',
  description: 'Directories ranked by how much code relevant to a query they hold: where a feature lives.',
  input: (kit) => ({
    query: queryArg.optional(),
    limit: int('limit', 1, MAX_LIMIT).optional(),
    path: z.string().optional().describe('Glob'),
    include_tests: z.boolean().optional(),
    ...kit.repoArg,
  }),
  annotations: READ_ONLY,
  handler: (args, extra, ctx) =>
    ctx.answer(args.repo, extra, async (engine, _session, budget) => {
      const pathGlob = args.path === undefined ? undefined : insideRepo(engine.repoRoot, args.path, 'path');
      const r = await discover(engine, args.query, {
        limit: args.limit ?? 10,
        includeTests: args.include_tests === true,
        ...(pathGlob !== undefined ? { pathGlob } : {}),
      });
      return budget.json(r.directories, 0, (directories, _page, cut) => ({ directories, total: r.total, notices: [...r.notices, ...(cut ? [cut] : [])] }), {
        kinds: () => ['directories'],
        continuation: () => 'ask with a smaller limit or a path glob',
      });
    }),
});
