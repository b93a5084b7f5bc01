import { z } from 'zod';
import { estimateTokens, readRepoFile, repoRelativePath, textWindow, type Engine } from '@ca/engine';
import { CaError } from '@ca/schema';
import { ignoredArg, int, labelArg, nonEmpty } from './args.js';
import { defineTool, READ_ONLY } from './context.js';

/**
 * A file as a label indexed it (a commit that need not be checked out): the index's stored copy,
 * in the shape `readRepoFile` answers. Not a disk read, so no sandbox is involved; the path
 * must name a file of the label.
 */
function readLabelFile(engine: Engine, path: string, label: string, args: { start_line?: number | undefined; end_line?: number | undefined }): ReturnType<typeof readRepoFile> {
  const rel = repoRelativePath(path);
  const bytes = engine.fileBytes(rel, label);
  if (bytes === null) throw new CaError('not_found', `${rel} is not a file of label ${label} (or the index kept no copy of it)`, { context: { path: rel } });
  return textWindow(rel, bytes, { startLine: args.start_line, endLine: args.end_line });
}

/** `read_file`: lines of a file (sandboxed to the repository), or a label's stored copy; paged by lines. */
export const readFile = defineTool({
  name: 'read_file',
  description: 'Lines of a repository file. Ignored, binary, large files need their flag.',
  input: (kit) => ({
    path: nonEmpty('path'),
    start_line: int('start_line', 1, 100_000_000).optional(),
    end_line: int('end_line', 1, 100_000_000).optional(),
    ...ignoredArg,
    allow_binary: z.boolean().optional().describe('As base64.'),
    allow_large: z.boolean().optional().describe('Over 1 MB.'),
    ...labelArg,
    ...kit.repoArg,
  }),
  annotations: READ_ONLY,
  handler: (args, extra, ctx) =>
    ctx.answer(
      args.repo,
      extra,
      (engine, _session, budget) => {
        const r = args.label !== undefined && engine.labelOf(args.label) !== engine.workingLabel ? readLabelFile(engine, args.path, args.label, args) : readRepoFile(engine.repoRoot, args.path, {
          ...(args.start_line !== undefined ? { startLine: args.start_line } : {}),
          ...(args.end_line !== undefined ? { endLine: args.end_line } : {}),
          includeIgnored: args.include_ignored === true,
          allowBinary: args.allow_binary === true,
          allowLarge: args.allow_large === true,
        });
        if (r.encoding === 'base64') {
          if (estimateTokens(r.content) > ctx.cap) throw new CaError('usage', `${r.path} is ${r.size} bytes: as base64 it is over the answer cap of about ${ctx.cap} tokens`);
          return r;
        }
        // The lines are the units: a page ends at a line and names the start_line of the next.
        const lines = r.content.split('\n');
        return budget.json(
          lines,
          0,
          (kept, page, cut) => ({ ...r, ...(page.nextOffset === null ? {} : { endLine: r.startLine + kept.length - 1, content: kept.join('\n') }), notices: cut ? [cut] : [] }),
          { kinds: () => ['lines'], continuation: (next) => `ask again with start_line ${r.startLine + next} (of ${r.totalLines})` },
        );
      },
      false,
    ),
});
