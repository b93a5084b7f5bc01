import { z } from 'zod';
import { repoRelativePath } from '@ca/engine';
import { nonEmpty } from './args.js';
import { defineTool } from './context.js';

/** `index_files`: an incremental index run now, retrying failed semantic passes. */
export const indexFiles = defineTool({
  name: 'index_files',
  description: 'Re-index changed files now, retrying failed semantic passes (tools refresh before answering).',
  input: (kit) => ({
    paths: z.array(nonEmpty('path')).max(10_000).optional().describe('Changed files (default all).'),
    ...kit.repoArg,
  }),
  annotations: { readOnlyHint: false, destructiveHint: false },
  handler: (args, extra, ctx) =>
    ctx.answer(
      args.repo,
      extra,
      async (_engine, session) => {
        // The engine indexes the tree incrementally: named paths are checked, and a changed one is re-parsed by the same run.
        const paths = (args.paths ?? []).map((p) => repoRelativePath(p));
        const report = await session.refresh({ retryFailed: true });
        return { ...report, ...(paths.length > 0 ? { requested: paths } : {}) };
      },
      false,
    ),
});
