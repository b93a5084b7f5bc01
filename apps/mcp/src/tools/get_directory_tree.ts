import { z } from 'zod';
import { indexedFiles, repoDirectoryTree, type TreeNode } from '@ca/engine';
import { ignoredArg, int } from './args.js';
import { defineTool, READ_ONLY } from './context.js';

/** Most entries a directory tree walks (the budget then keeps as many as fit). */
const MAX_TREE_ENTRIES = 20_000;

/** `get_directory_tree`: the tree under a directory, its indexed files annotated; paged as a breadth-first walk. */
export const getDirectoryTree = defineTool({
  name: 'get_directory_tree',
  description: 'Directory tree: file counts, language, symbols per indexed file.',
  input: (kit) => ({
    path: z.string().optional(),
    depth: int('depth', 1, 10).optional().describe('Default 2.'),
    ...ignoredArg,
    ...kit.repoArg,
  }),
  annotations: READ_ONLY,
  handler: (args, extra, ctx) =>
    ctx.answer(args.repo, extra, (engine, _session, budget) => {
      const walk = (maxEntries: number) => repoDirectoryTree(engine.repoRoot, args.path ?? '.', { depth: args.depth ?? 2, includeIgnored: args.include_ignored === true, maxEntries });
      const indexed = indexedFiles(engine);
      const annotate = (n: TreeNode): object => {
        const f = n.type === 'file' ? indexed.get(n.path) : undefined;
        return { ...n, ...(f ? { language: f.language, symbols: f.symbols } : {}), ...(n.children ? { children: n.children.map(annotate) } : {}) };
      };
      // The entries are the units: a page is the tree walked breadth first up to as many entries as fit.
      const full = walk(MAX_TREE_ENTRIES);
      return budget.json(
        Array.from({ length: full.entries }, (_, i) => i),
        0,
        (kept, page) => {
          const tree = page.nextOffset === null ? full : walk(kept.length);
          const cut = tree.cut ? [`tree cut at ${budget.cap} tokens: kept ${kept.length} of ${full.entries}${full.cut ? '+' : ''} entries; directories marked cut hold more: ask for one of them`] : [];
          return { tree: annotate(tree.root), entries: tree.entries, notices: cut };
        },
        { kinds: () => ['entries'] },
      );
    }),
});
