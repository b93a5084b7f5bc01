import { z } from 'zod';

/**
 * The output schema of `search_code` (its `structuredContent`): the `ca search --json` shape
 * (README "JSON shapes") with each result's container and the paging offsets. Objects are
 * loose: a field the engine adds later does not fail validation. The other tools answer JSON
 * without a declared schema: each schema is sent in `tools/list`, whose size every agent pays.
 */
export const searchOutput = z.looseObject({
  results: z.array(
    z.looseObject({
      id: z.string(),
      qualifiedName: z.string(),
      path: z.string(),
      startLine: z.number(),
      score: z.number(),
      code: z.string(),
    }),
  ),
  notices: z.array(z.string()),
  nextOffset: z.number().nullable(),
});
