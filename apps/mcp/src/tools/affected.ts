import { z } from 'zod';
import type { AffectedReport } from '@ca/engine';
import { CaError, CONFIDENCES, type Confidence } from '@ca/schema';
import { int, nonEmpty, offsetArg, oneOf } from './args.js';
import { DEFAULT_MAX_NODES } from './navigation.js';
import { defineTool, READ_ONLY } from './context.js';

/** One item of an `affected` answer as the budget pages it: a file, a changed or impacted symbol, an endpoint or a test. */
type Unit =
  | { readonly section: 'files'; readonly value: { readonly change: string; readonly path: string; readonly from?: string } }
  | { readonly section: 'changed'; readonly value: AffectedReport['changed'][number] }
  | { readonly section: 'impacted'; readonly value: AffectedReport['impacted'][number] }
  | { readonly section: 'endpoints'; readonly value: AffectedReport['endpoints'][number] }
  | { readonly section: 'tests'; readonly value: AffectedReport['tests'][number] };

const SECTIONS = ['files', 'changed', 'impacted', 'endpoints', 'tests'] as const;

/** Every list of the report as units, in the order a page shows them (files, changed, impacted, endpoints, tests). */
export function affectedUnits(r: AffectedReport): Unit[] {
  return [
    ...r.files.modified.map((path) => ({ section: 'files' as const, value: { change: 'modified', path } })),
    ...r.files.added.map((path) => ({ section: 'files' as const, value: { change: 'added', path } })),
    ...r.files.removed.map((path) => ({ section: 'files' as const, value: { change: 'removed', path } })),
    ...r.files.renamed.map((x) => ({ section: 'files' as const, value: { change: 'renamed', path: x.to, from: x.from } })),
    ...r.changed.map((value) => ({ section: 'changed' as const, value })),
    ...r.impacted.map((value) => ({ section: 'impacted' as const, value })),
    ...r.endpoints.map((value) => ({ section: 'endpoints' as const, value })),
    ...r.tests.map((value) => ({ section: 'tests' as const, value })),
  ];
}

/**
 * `affected`: what a diff between two indexed labels changed and what it impacts across C# and
 * TS (decision 044). The head of every page — sides, risk, completeness — is small; the lists
 * are paged by `offset` within the answer cap.
 */
export const affected = defineTool({
  name: 'affected',
  description: 'Impact of diff base..head (labels; no head: working tree) across C#/TS/HTTP, with risk.',
  input: (kit) => ({
    base: nonEmpty('base'),
    head: z.string().optional(),
    depth: int('depth', 1, 1_000_000).optional(),
    min_confidence: oneOf('min_confidence', CONFIDENCES),
    max_nodes: int('max_nodes', 1, 50_000).optional(),
    offset: offsetArg,
    ...kit.repoArg,
  }),
  annotations: READ_ONLY,
  handler: (args, extra, ctx) =>
    ctx.answer(args.repo, extra, async (engine, _session, budget) => {
      const maxDepth = engine.config.graph.max_depth;
      if (args.depth !== undefined && args.depth > maxDepth) throw new CaError('usage', `depth ${args.depth} is over the configured cap graph.max_depth (${maxDepth})`);
      const report = await engine.affected(`${args.base}..${args.head ?? ''}`, {
        ...(args.depth !== undefined ? { depth: args.depth } : {}),
        ...(args.min_confidence !== undefined ? { minConfidence: args.min_confidence as Confidence } : {}),
        maxNodes: args.max_nodes ?? DEFAULT_MAX_NODES,
      });
      const { files: _files, changed: _changed, impacted: _impacted, endpoints: _endpoints, tests: _tests, ...head } = report;
      return budget.json(
        affectedUnits(report),
        args.offset ?? 0,
        (units, page, notice) => {
          const lists = Object.fromEntries(SECTIONS.map((s) => [s, units.filter((u) => u.section === s).map((u) => u.value)]));
          return { ...head, ...lists, offset: page.offset, total: page.total, nextOffset: page.nextOffset, ...(notice !== null ? { notice } : {}) };
        },
        { kinds: (u) => [u.section] },
      );
    }),
});
