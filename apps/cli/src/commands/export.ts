/**
 * `ca export`: a portable artifact of the repository's index (one compressed file; decision
 * 045), for teams that share an index through CI artifacts instead of a server.
 */
import { basename, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { ArtifactHeader } from '@ca/engine';
import { CaError } from '@ca/schema';
import { printJson } from '../output.js';
import { openRepo } from '../query.js';

const EXPORT_USAGE = 'usage: ca export [--label NAME]… [--out FILE] [--no-vectors] [--no-contents] [--repo DIR] [--db FILE] [--json]';

/** The options `ca export` takes (parsed here: `--label` repeats, which the shared table does not allow). */
const EXPORT_OPTIONS = {
  repo: { type: 'string' },
  db: { type: 'string' },
  label: { type: 'string', multiple: true },
  out: { type: 'string' },
  'no-vectors': { type: 'boolean', default: false },
  'no-contents': { type: 'boolean', default: false },
  json: { type: 'boolean', default: false },
} as const;

function parsed(argv: string[]) {
  try {
    return parseArgs({ args: argv, options: EXPORT_OPTIONS, allowPositionals: true, strict: true });
  } catch (e) {
    throw new CaError('usage', `${(e as Error).message}\n${EXPORT_USAGE}`);
  }
}

/** `1.4 MiB`, `812 KiB`, `96 B`. */
export function formatSize(n: number): string {
  return n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} B`;
}

/** What a header says, one line per fact (`ca export`, `ca import`). */
export function headerLines(h: ArtifactHeader): string[] {
  const labels = h.labels.map((l) => `${l.name}${l.commit ? ` @ ${l.commit.slice(0, 12)}` : ''} (${l.files} files)`).join(', ');
  return [
    `  repository ${h.repository}, schema ${h.schemaVersion}, written by ca ${h.tool} (format ${h.format})`,
    `  labels: ${labels || '(none)'}`,
    `  vectors: ${h.vectors ? `${h.vectors.count} of ${h.vectors.model} (${h.vectors.dims} dims)` : 'none'}; file contents: ${h.contents ? 'kept' : 'left out'}`,
    `  ${formatSize(h.payloadBytes)} compressed, ${formatSize(h.databaseBytes)} as an index; ${h.checksum}`,
  ];
}

/** `ca export …`: writes the artifact to `--out` (default `<repository>.caindex` in the current directory). */
export async function cmdExport(argv: string[]): Promise<number> {
  const { values, positionals } = parsed(argv);
  if (positionals.length > 0) throw new CaError('usage', `export takes no positional arguments\n${EXPORT_USAGE}`);
  const engine = openRepo({ json: values.json, 'include-tests': false, explain: false, ...(values.repo ? { repo: [values.repo] } : {}), ...(values.db ? { db: values.db } : {}) }, 'export');
  try {
    const out = resolve(values.out ?? `${basename(engine.repoRoot)}.caindex`);
    const started = performance.now();
    const header = await engine.exportArtifact(out, {
      ...(values.label ? { labels: values.label } : {}),
      vectors: !values['no-vectors'],
      contents: !values['no-contents'],
    });
    const ms = Math.round(performance.now() - started);
    if (values.json) printJson({ file: out, ms, header });
    else process.stdout.write([`Exported ${engine.dbPath} to ${out} in ${ms} ms`, ...headerLines(header)].join('\n') + '\n');
    return 0;
  } finally {
    engine.close();
  }
}
