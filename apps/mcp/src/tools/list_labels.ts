import { defineTool, READ_ONLY } from './context.js';

/** `list_labels`: the working tree and the commits indexed. */
export const listLabels = defineTool({
  name: 'list_labels',
  description: 'Labels: the working tree and indexed commits, with commit, files, completeness.',
  input: (kit) => ({ ...kit.repoArg }),
  annotations: READ_ONLY,
  handler: (args, extra, ctx) => ctx.answer(args.repo, extra, (engine) => ({ labels: engine.labels() })),
});
