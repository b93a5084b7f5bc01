import { z } from 'zod';
import { NAVIGATIONS } from '@ca/engine';

/**
 * Output schemas of the tools: the JSON shapes `ca … --json` prints (README "JSON shapes"),
 * declared so clients get `structuredContent` with a schema. Objects are loose: a field the
 * engine adds later does not fail validation.
 */
/** Where a symbol is: the fields search results and symbol views share. */
const located = {
  id: z.string(),
  qualifiedName: z.string(),
  name: z.string(),
  kind: z.string(),
  language: z.string(),
  path: z.string(),
  startLine: z.number(),
  endLine: z.number(),
};

const symbolView = { ...located, signature: z.string(), doc: z.string().nullable(), modifiers: z.array(z.string()), isPublicApi: z.boolean() };

export const searchOutput = z.looseObject({
  query: z.string(),
  intent: z.string(),
  results: z.array(z.looseObject({ ...located, score: z.number(), matchedBy: z.array(z.string()), code: z.string() })),
  tookMs: z.number(),
  notices: z.array(z.string()),
  tokens: z.number(),
});

export const symbolOutput = z.looseObject({
  symbol: z.looseObject(symbolView),
  code: z.string(),
  stale: z.boolean(),
});

export const navigationOutput = z.looseObject({
  navigation: z.enum(NAVIGATIONS),
  symbol: z.looseObject({ ...symbolView, code: z.string() }),
  complete: z.boolean(),
  gaps: z.array(z.object({ scope: z.string(), reason: z.string() })),
  edges: z.array(
    z.looseObject({
      from: z.string(),
      to: z.string().nullable(),
      type: z.string(),
      confidence: z.string(),
      path: z.string(),
      line: z.number(),
      targetName: z.string(),
    }),
  ),
  nodes: z.array(z.looseObject({ ...symbolView, depth: z.number() })),
  truncated: z.boolean(),
  maxNodes: z.number(),
  totalReached: z.number(),
  totalReachedExact: z.boolean(),
  byFile: z
    .array(
      z.looseObject({
        path: z.string(),
        symbols: z.array(
          z.looseObject({ id: z.string(), qualifiedName: z.string(), kind: z.string(), line: z.number(), depth: z.number(), via: z.array(z.string()) }),
        ),
      }),
    )
    .optional(),
});

const parseStatus = z.record(z.string(), z.number());

export const indexOutput = z.looseObject({
  files: z.number(),
  symbols: z.number(),
  edges: z.number(),
  skipped: z.number(),
  parseStatus,
  ms: z.number(),
  changed: z.number(),
  removed: z.number(),
  lines: z.number(),
});

export const statusOutput = z.looseObject({
  repo: z.string(),
  db: z.string(),
  schemaVersion: z.number(),
  files: z.number(),
  symbols: z.number(),
  edges: z.number(),
  lines: z.number(),
  parseStatus,
  problems: z.array(z.looseObject({ path: z.string(), status: z.string(), reason: z.string().nullable() })),
  semantic: z.string(),
  vectorChannel: z.string(),
  lastIndexedAt: z.string().nullable(),
  freshness: z.looseObject({
    mode: z.enum(['before-each-answer', 'on-request']),
    runs: z.number(),
    last: z.looseObject({ at: z.string(), ms: z.number(), changed: z.number(), removed: z.number() }).nullable(),
    lastError: z.string().nullable(),
    embeddingsPending: z.number(),
  }),
});
