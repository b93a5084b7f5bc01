import { z } from 'zod';
import { indexedFiles, listRepoDirectory, repoRelativePath } from '@ca/engine';
import { ignoredArg, offsetArg } from './args.js';
import { defineTool, READ_ONLY } from './context.js';

/** `list_directory`: one directory's entries, indexed files annotated, paged. */
export const listDirectory = defineTool({
  name: 'list_directory',
  description: 'One directory\'s entries: size, language, symbol count.',
  input: (kit) => ({ path: z.string().optional(), offset: offsetArg, ...ignoredArg, ...kit.repoArg }),
  annotations: READ_ONLY,
  handler: (args, extra, ctx) =>
    ctx.answer(args.repo, extra, (engine, _session, budget) => {
      const indexed = indexedFiles(engine);
      const entries = listRepoDirectory(engine.repoRoot, args.path ?? '.', { includeIgnored: args.include_ignored === true }).map((e) => {
        const f = e.type === 'file' ? indexed.get(e.path) : undefined;
        return { ...e, ...(f ? { language: f.language, symbols: f.symbols } : {}) };
      });
      const path = repoRelativePath(args.path ?? '.') || '.';
      return budget.json(entries, args.offset ?? 0, (items, page, cut) => ({ path, entries: items, total: page.total, nextOffset: page.nextOffset, notices: cut ? [cut] : [] }), {
        kinds: () => ['entries'],
      });
    }),
});
