/**
 * `ca import FILE`: installs an index artifact (`ca export`) as the repository's index, then
 * brings it up to date with an incremental `ca index` of the working tree (decision 045).
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Engine, type IndexReport } from '@ca/engine';
import { CaError } from '@ca/schema';
import { printJson } from '../output.js';
import { readContext } from '../context.js';
import { headerLines } from './export.js';

const IMPORT_USAGE = 'usage: ca import FILE [--repo DIR] [--db FILE] [--force] [--no-index] [--json]';

const IMPORT_OPTIONS = {
  repo: { type: 'string' },
  db: { type: 'string' },
  force: { type: 'boolean', default: false },
  'no-index': { type: 'boolean', default: false },
  json: { type: 'boolean', default: false },
} as const;

function parsed(argv: string[]) {
  try {
    return parseArgs({ args: argv, options: IMPORT_OPTIONS, allowPositionals: true, strict: true });
  } catch (e) {
    throw new CaError('usage', `${(e as Error).message}\n${IMPORT_USAGE}`);
  }
}

function indexLine(r: IndexReport): string {
  return `  then indexed the working tree: ${r.changed} files parsed, ${r.removed} removed, ${r.blobs.reused} versions reused, ${r.blobs.embedded} symbols embedded in ${r.ms} ms`;
}

/** `ca import FILE [--repo DIR] [--force] [--no-index]`. */
export async function cmdImport(argv: string[]): Promise<number> {
  const { values, positionals } = parsed(argv);
  if (positionals.length !== 1) throw new CaError('usage', IMPORT_USAGE);
  const file = resolve(positionals[0]!);
  // The repository: --repo, else `ca use`'s, else the current directory (an index is created when there is none).
  const root = values.repo ?? readContext().repo ?? process.cwd();
  const engine = Engine.open(root, { ...(values.db ? { dbPath: values.db } : {}) });
  try {
    const started = performance.now();
    const header = await engine.importArtifact(file, { force: values.force });
    const ms = Math.round(performance.now() - started);
    const report = values['no-index'] ? null : await engine.index();
    if (values.json) printJson({ file, db: engine.dbPath, ms, header, ...(report ? { index: report } : {}) });
    else {
      const lines = [`Imported ${file} into ${engine.dbPath} in ${ms} ms`, ...headerLines(header)];
      if (report) lines.push(indexLine(report));
      else lines.push('  not indexed yet (--no-index): run ca index to bring the working tree up to date');
      process.stdout.write(lines.join('\n') + '\n');
    }
    return 0;
  } finally {
    engine.close();
  }
}
