import { defineTool, READ_ONLY } from './context.js';

/** `get_status`: index health, with this server's refresh state; the files not fully parsed are paged. */
export const getStatus = defineTool({
  name: 'get_status',
  description: 'Index health: counts, parse problems, exact edges, vectors, freshness, labels.',
  input: (kit) => ({ ...kit.repoArg }),
  annotations: READ_ONLY,
  handler: (args, extra, ctx) =>
    ctx.answer(args.repo, extra, async (engine, session, budget) => {
      const status = engine.status();
      // The query side's own view: the model may be missing now although the index has vectors.
      const off = await engine.vectorOffReason();
      // Every file not fully parsed is listed: on a large tree that can outgrow the answer, so they are the units.
      return budget.json(
        status.problems,
        0,
        (problems, page, cut) => ({
          ...status,
          problems,
          ...(page.nextOffset !== null ? { problemsLeftOut: page.total - page.returned, notices: [cut] } : {}),
          vectorChannel: off === null ? status.vectorChannel : `off: ${off}`,
          // What the label was indexed at (the engine's), and what this server's refreshes did.
          freshness: { ...status.freshness, ...session.state() },
          ...(ctx.repos.multiRepo ? { repos: ctx.repos.repos } : {}),
        }),
        { kinds: () => ['problems'], continuation: () => 'ca status --json lists them all' },
      );
    }),
});
