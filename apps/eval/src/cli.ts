import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { FEATURE_NAMES, RANKER_FORMAT } from '@ca/engine';
import { CaError, toCaError } from '@ca/schema';
import { CONFIGURATIONS } from './configurations.js';
import { baselineFromReport, checkGate, readBaseline } from './gate.js';
import { renderHtmlReport } from './html.js';
import { mineGit } from './mineGit.js';
import { formatQuerySet, readQuerySet } from './querySet.js';
import { runEval, type EvalReport, type FeatureRow, type RunOptions, type SplitChoice } from './runner.js';
import { renderReportTable } from './table.js';

export const EVAL_USAGE = `usage: ca eval <command> [options]

Commands:
  run QUERYSET...          evaluate query sets (JSONL) against their repositories
  gate --baseline FILE QUERYSET...
                           run, then exit 1 if hybrid NDCG@10 drops more than 0.02 below the
                           baseline or below any available single-channel configuration
  mine-git REPO            build a query set from REPO's git history

run / gate options:
  --repo DIR               repository for every set (default: the set header's path, or
                           <repos-dir>/<name> for real repositories)
  --repos-dir DIR          where fetched repositories live (default $CA_EVAL_REPOS or ./.eval-repos)
  --db FILE                index file (single set only; default: a cache under the temp dir)
  --split train|holdout|all
                           which queries to report (default train)
  --configs LIST           configurations (default all): ${CONFIGURATIONS.map((c) => c.id).join(', ')}
  --cold-samples N         fresh-engine samples for cold latency (default 10)
  --json FILE              write the full report as JSON ("-" for stdout)
  --html FILE              write a self-contained HTML report
  --write-baseline FILE    write the overall NDCG@10 figures as a gate baseline
  --no-index               do not update the index before evaluating
  --max-queries N          evaluate only the first N queries of each set's split
  --features-out FILE      write each scored query's rerank candidates (features, gold label
                           symbol|file|none) as JSONL, for tools/train-ranker.mjs
  --ranker-weights FILE    weights for the "learned" configuration instead of the shipped ones
  --at-commit              judge each query that names a commit (mined queries) on an index of
                           that commit: a private clone is checked out commit by commit and a
                           scratch index beside --db is updated incrementally (slow: minutes)
  --quiet                  no table on stdout

mine-git options:
  --since DATE             only commits after DATE (git log --since)
  --max N                  stop after N queries (default 150)
  --scan N                 examine at most N commits
  --out FILE               output JSONL (default stdout)
  --repo-id OWNER/NAME     repository named in the header (default: from the origin remote)`;

const OPTIONS = {
  repo: { type: 'string' },
  'repos-dir': { type: 'string' },
  db: { type: 'string' },
  split: { type: 'string' },
  configs: { type: 'string', multiple: true },
  'cold-samples': { type: 'string' },
  json: { type: 'string' },
  html: { type: 'string' },
  baseline: { type: 'string' },
  'write-baseline': { type: 'string' },
  'no-index': { type: 'boolean', default: false },
  'max-queries': { type: 'string' },
  'features-out': { type: 'string' },
  'ranker-weights': { type: 'string' },
  'at-commit': { type: 'boolean', default: false },
  quiet: { type: 'boolean', default: false },
  since: { type: 'string' },
  max: { type: 'string' },
  scan: { type: 'string' },
  out: { type: 'string' },
  'repo-id': { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} satisfies ParseArgsConfig['options'];

function positiveInt(name: string, raw: string | undefined, min = 1): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < min) throw new CaError('usage', `--${name} must be an integer ≥ ${min} (got "${raw}")`);
  return Number(raw);
}

/** A JSON file named by an option; unreadable or malformed is a usage error naming the option. */
function readJsonFile(name: string, path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as unknown;
  } catch (e) {
    throw new CaError('usage', `--${name} ${path}: ${(e as Error).message}`);
  }
}

function writeOut(path: string, text: string): void {
  mkdirSync(dirname(resolve(path)), { recursive: true });
  writeFileSync(path, text);
}

const stderr = (m: string) => process.stderr.write(`${m}\n`);

/**
 * `ca eval …`: the CLI app dispatches here. Returns the exit code (0 ok, 1 failure or gate
 * failure, 2 usage); errors are reported on stderr in the CLI's one-line format.
 */
export async function runEvalCli(argv: readonly string[]): Promise<number> {
  try {
    return await dispatch(argv);
  } catch (e) {
    const err = toCaError(e);
    stderr(`ca eval: ${err.message.split('\n')[0]}`);
    return err.isUsage ? 2 : 1;
  }
}

async function dispatch(argv: readonly string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (e) {
    throw new CaError('usage', (e as Error).message);
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.help || command === undefined || command === 'help') {
    process.stdout.write(`${EVAL_USAGE}\n`);
    return command === undefined && !values.help ? 2 : 0;
  }
  if (command === 'mine-git') {
    if (rest.length !== 1) throw new CaError('usage', 'mine-git needs exactly one REPO');
    const result = await mineGit(rest[0]!, {
      ...(values.since ? { since: values.since } : {}),
      ...(values.max ? { max: positiveInt('max', values.max)! } : {}),
      ...(values.scan ? { scan: positiveInt('scan', values.scan)! } : {}),
      ...(values['repo-id'] ? { repoId: values['repo-id'] } : {}),
      onProgress: stderr,
    });
    const text = formatQuerySet(result.header, result.queries);
    if (values.out) writeOut(values.out, text);
    else process.stdout.write(text);
    const reasons = Object.entries(result.dropped)
      .sort((a, b) => b[1] - a[1])
      .map(([r, n]) => `${r} ${n}`)
      .join(', ');
    const leaky = result.queries.filter((q) => q.leaky).length;
    stderr(`mine-git: ${result.queries.length} queries (${leaky} leaky) from ${result.examined} commits; dropped: ${reasons || 'none'}`);
    return 0;
  }
  if (command !== 'run' && command !== 'gate') throw new CaError('usage', `unknown eval command "${command}" (run, gate, mine-git)`);
  if (rest.length === 0) throw new CaError('usage', `${command} needs at least one QUERYSET file`);
  if (command === 'gate' && !values.baseline && !values['write-baseline']) throw new CaError('usage', 'gate needs --baseline FILE');
  const split = (values.split ?? 'train') as SplitChoice;
  if (!['train', 'holdout', 'all'].includes(split)) throw new CaError('usage', `--split must be train, holdout or all (got "${values.split}")`);
  const sets = rest.map((f) => readQuerySet(f));
  const coldSamples = positiveInt('cold-samples', values['cold-samples'], 0);
  const maxQueries = positiveInt('max-queries', values['max-queries']);
  const rankerWeights = values['ranker-weights'] !== undefined ? readJsonFile('ranker-weights', values['ranker-weights']) : undefined;
  const featureLines: string[] = [];
  const options: RunOptions = {
    split,
    ...(values.configs ? { configurations: values.configs } : {}),
    ...(values.repo ? { repo: values.repo } : {}),
    ...(values.db ? { db: values.db } : {}),
    ...(values['repos-dir'] ? { reposDir: values['repos-dir'] } : {}),
    ...(coldSamples !== undefined ? { coldSamples } : {}),
    ...(maxQueries !== undefined ? { maxQueries } : {}),
    ...(rankerWeights !== undefined ? { rankerWeights } : {}),
    ...(values['features-out'] ? { onFeatures: (row: FeatureRow) => featureLines.push(JSON.stringify(row)) } : {}),
    index: !values['no-index'],
    atCommit: values['at-commit'],
    onProgress: values.quiet ? () => {} : (m) => stderr(`… ${m}`),
  };
  stderr(`ca eval: split ${split}${split === 'train' ? ' (default; held-out queries are not reported unless --split holdout|all)' : ''}`);
  const report: EvalReport = await runEval(sets, options);
  if (!values.quiet) process.stdout.write(renderReportTable(report));
  if (values.json) {
    const text = `${JSON.stringify(report, null, 2)}\n`;
    if (values.json === '-') process.stdout.write(text);
    else writeOut(values.json, text);
  }
  if (values.html) writeOut(values.html, renderHtmlReport(report));
  if (values['features-out']) {
    writeOut(values['features-out'], [JSON.stringify({ featureNames: FEATURE_NAMES, rankerFormat: RANKER_FORMAT }), ...featureLines].join('\n') + '\n');
    stderr(`features of ${featureLines.length} queries written to ${values['features-out']}`);
  }
  if (values['write-baseline']) {
    writeOut(values['write-baseline'], `${JSON.stringify(baselineFromReport(report), null, 2)}\n`);
    stderr(`baseline written to ${values['write-baseline']}`);
  }
  if (command === 'gate' && values.baseline) {
    const gate = checkGate(report, readBaseline(values.baseline));
    for (const l of gate.lines) process.stdout.write(`gate: ${l}\n`);
    process.stdout.write(`gate: ${gate.ok ? 'PASS' : `FAIL (${gate.failures.length})`}\n`);
    return gate.ok ? 0 : 1;
  }
  return 0;
}

