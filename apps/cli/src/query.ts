/**
 * The query commands: `ca search` (one repository or several, `--filter`, `--context`),
 * `ca find EXPR` (filter-only, paged) and `ca view FILE` (a file as the index holds it), plus
 * the option parsing they share with navigation (`--context*`, `--max-line-length`, `--repo`).
 */
import {
  answerPaths,
  Engine,
  findWorkspace,
  loadWorkspace,
  resolveRepo,
  searchJson,
  searchTeamStore,
  searchWorkspace,
  uniqueNames,
  capLines,
  MAX_CONTEXT_LINES,
  type EngineOptions,
  type FindResponse,
  type Freshness,
  type ResultContext,
  type SearchOptions,
  type SearchResponse,
  type SearchResult,
  type ViewOptions,
  type WorkspaceRepo,
} from '@ca/engine';
import { basename, resolve } from 'node:path';
import { CaError, encodeText, LANGUAGES, NODE_KINDS, type Language, type NodeKind } from '@ca/schema';
import { readContext } from './context.js';
import { printJson } from './output.js';

/** The option values these commands read (a subset of the CLI's). */
export interface QueryValues {
  repo?: string[];
  label?: string;
  workspace?: string;
  db?: string;
  json: boolean;
  limit?: string;
  offset?: string;
  cursor?: string;
  lang?: string[];
  kind?: string[];
  path?: string;
  filter?: string[];
  'include-tests': boolean;
  'include-docs'?: boolean;
  explain: boolean;
  budget?: string;
  'min-score'?: string;
  'min-similarity'?: string;
  context?: string;
  'context-before'?: string;
  'context-after'?: string;
  'max-line-length'?: string;
  lines?: string;
  store?: string;
  'store-repo'?: string;
}

/** Options taking a number: `--context -1` reaches their check (a clear message) instead of parseArgs' "ambiguous argument". */
export const NUMERIC_OPTIONS = ['--limit', '--offset', '--context', '--context-before', '--context-after', '--max-line-length', '--budget', '--depth', '--max-nodes', '--max-tokens', '--debounce', '--min-score', '--min-similarity'];

/** `--flag -1` → `--flag=-1` for numeric flags, so the value is checked like any other. */
export function joinNegativeNumbers(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const next = argv[i + 1];
    if (NUMERIC_OPTIONS.includes(a) && next !== undefined && /^-\d/.test(next)) {
      out.push(`${a}=${next}`);
      i++;
    } else out.push(a);
  }
  return out;
}

function usage(message: string): CaError {
  return new CaError('usage', message);
}

/** An integer option within [min, max], or undefined when absent. */
export function parseInteger(raw: string | undefined, flag: string, min: number, max: number): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!/^-?\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw usage(`${flag} must be an integer from ${min} to ${max.toLocaleString('en-US')} (got "${raw}")`);
  }
  return n;
}

/** `--context N` (both sides), `--context-before N`, `--context-after N`, `--max-line-length N`. */
export function viewOptionsOf(values: QueryValues): ViewOptions | null {
  const both = parseInteger(values.context, '--context', 0, MAX_CONTEXT_LINES);
  const before = parseInteger(values['context-before'], '--context-before', 0, MAX_CONTEXT_LINES) ?? both;
  const after = parseInteger(values['context-after'], '--context-after', 0, MAX_CONTEXT_LINES) ?? both;
  const maxLineLength = parseInteger(values['max-line-length'], '--max-line-length', 1, 1_000_000);
  if (before === undefined && after === undefined && maxLineLength === undefined) return null;
  return { ...(before !== undefined ? { before } : {}), ...(after !== undefined ? { after } : {}), ...(maxLineLength !== undefined ? { maxLineLength } : {}) };
}

/** The workspace in effect: `--workspace FILE|DIR`, else `./.codeagent/workspace.json`; null without one. */
function workspaceOf(values: QueryValues): { repos: WorkspaceRepo[]; explicit: boolean } | null {
  if (values.workspace !== undefined) return { repos: loadWorkspace(values.workspace), explicit: true };
  const file = findWorkspace(process.cwd());
  return file ? { repos: loadWorkspace(file), explicit: false } : null;
}

/**
 * The repositories a command reads: each `--repo` (a path, or a workspace repository's name);
 * without one, a search reads the workspace's repositories and other commands the current
 * folder (or the one repository of an explicit `--workspace`). Navigation, `find` and `view`
 * take one repository.
 */
export function reposOf(values: QueryValues, command: string, many: boolean): WorkspaceRepo[] {
  const workspace = workspaceOf(values);
  const names = workspace ? ` (workspace repositories: ${workspace.repos.map((r) => r.name).join(', ')})` : '';
  const args = values.repo ?? [];
  let repos: WorkspaceRepo[];
  if (args.length > 0) repos = uniqueNames(args.map((a) => resolveRepo(a, workspace?.repos ?? null)));
  else if (workspace && (many || workspace.explicit)) repos = workspace.repos;
  else return [{ name: '.', root: readContext().repo ?? process.cwd() }];
  if (!many && repos.length > 1) throw usage(`${command} answers from one repository: give one --repo${names}`);
  return repos;
}

/** Opens the one repository a command reads (`--repo` path or workspace name, `--db`). */
export function openRepo(values: QueryValues, command: string, options: EngineOptions = {}): Engine {
  const [repo] = reposOf(values, command, false);
  const dbPath = values.db ?? repo!.dbPath;
  // A read command never creates an index: a directory never indexed is `not_indexed`.
  return Engine.open(repo!.root, { requireIndex: true, ...(dbPath ? { dbPath } : {}), ...options });
}

/**
 * The label a read command answers from: `--label`, else the one `ca use` remembered for this
 * repository (or for any, when it named none), else the working tree's.
 */
export function labelOf(values: QueryValues, engine: Engine): string | undefined {
  if (values.label !== undefined) return values.label;
  const context = readContext();
  if (context.label === undefined) return undefined;
  if (context.repo !== undefined && resolve(context.repo) !== engine.repoRoot) return undefined;
  return context.label;
}

/** `{ label }` for engine calls, or nothing for the working tree. */
export function labelOption(values: QueryValues, engine: Engine): { label?: string } {
  const label = labelOf(values, engine);
  return label === undefined ? {} : { label };
}

/** Changed paths a stale warning names before "and N more". */
const WARNING_PATHS = 3;

/**
 * The warning lines of an answer that is not the tree as it is now (one per cause, each
 * `warning: …`), printed on stderr before the answer by every command.
 */
export function freshnessWarnings(f: Freshness): string[] {
  const out: string[] = [];
  if (f.stale) {
    const named = f.staleFiles.slice(0, WARNING_PATHS);
    const more = f.staleCount - named.length;
    const list = more > 0 ? `${named.join(', ')} and ${more} more` : named.length > 1 ? `${named.slice(0, -1).join(', ')} and ${named[named.length - 1]}` : named[0];
    out.push(`warning: index is stale: ${list} changed since ${f.staleCount === 1 ? 'it was' : 'they were'} indexed (run ca index)`);
  }
  if (f.headMoved) out.push(`warning: HEAD moved since ${f.label} was indexed (${f.commit?.slice(0, 12) ?? '?'} → ${f.head?.slice(0, 12) ?? '?'}); run ca index`);
  return out;
}

/** Writes an answer's freshness warnings on stderr. */
export function warnIfStale(f: Freshness | null): void {
  for (const line of f ? freshnessWarnings(f) : []) process.stderr.write(`${line}\n`);
}

function parseList<T extends string>(raw: string[] | undefined, flag: string, allowed: readonly T[]): T[] | undefined {
  if (!raw) return undefined;
  const items = raw.flatMap((r) => r.split(',')).map((s) => s.trim()).filter(Boolean);
  for (const x of items) if (!(allowed as readonly string[]).includes(x)) throw usage(`${flag} must be one of ${allowed.join(', ')} (got "${x}")`);
  return items as T[];
}

/** A number option within [min, max] (`--min-score 0..1`, `--min-similarity -1..1`), or undefined when absent. */
function parseNumber(raw: string | undefined, flag: string, min: number, max: number): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n < min || n > max) throw usage(`${flag} must be a number from ${min} to ${max} (got "${raw}")`);
  return n;
}

/** `--filter` given several times: each one ANDed. */
export function filterOf(values: QueryValues): string | undefined {
  const parts = values.filter ?? [];
  if (parts.length === 0) return undefined;
  return parts.length === 1 ? parts[0] : parts.map((p) => `(${p})`).join(' and ');
}

function location(n: { path: string; startLine: number; endLine: number }): string {
  return `${n.path}:${n.startLine}-${n.endLine}`;
}

/** A numbered line of context (`  41│ text`). */
function numbered(line: number, text: string, width: number): string {
  return `     ${String(line).padStart(width)}│ ${text}\n`;
}

/** The largest feature contributions of a learned-ranked result (`--explain`), signed, largest first. */
function contributionsLine(contributions: Readonly<Record<string, number>>): string {
  const shown = Object.entries(contributions).slice(0, 8);
  const more = Object.keys(contributions).length - shown.length;
  return `${shown.map(([f, v]) => `${f} ${v >= 0 ? '+' : ''}${v.toFixed(2)}`).join(', ')}${more > 0 ? `, … (${more} more)` : ''}`;
}

function printResult(r: SearchResult & { context?: ResultContext }, i: number, explain: boolean): void {
  const why = explain ? r.matchedBy.map((c) => `${c}#${r.ranks[c]}`).join(' ') : r.matchedBy.join(', ');
  const repo = r.repo !== undefined ? `[${r.repo}] ` : '';
  process.stdout.write(`${i + 1}. ${repo}${r.qualifiedName}  (${r.kind}, ${r.language})  ${location(r)}  score ${r.score.toFixed(4)}  [${why}]\n`);
  const facts = [
    r.package ?? null,
    r.isPublicApi ? 'public API' : null,
    r.callerCount !== undefined ? `${r.callerCount} caller${r.callerCount === 1 ? '' : 's'}${r.callers && r.callers.length > 0 ? ` (${r.callers.join(', ')}${r.callerCount > r.callers.length ? ', …' : ''})` : ''}` : null,
    r.callees && r.callees.length > 0 ? `calls ${r.callees.join(', ')}` : null,
  ].filter((x): x is string => x !== null);
  if (facts.length > 0) process.stdout.write(`     ${facts.join(' · ')}\n`);
  if (explain && r.contributions) process.stdout.write(`     learned ranker: ${contributionsLine(r.contributions)}\n`);
  if (r.locations && r.locations.length > 1) {
    const others = r.locations.filter((l) => !(l.path === r.path && l.startLine === r.startLine && (l.repo ?? '') === (r.repo ?? '')));
    const shown = others.map((l) => `${l.repo !== undefined ? `[${l.repo}] ` : ''}${l.path}:${l.startLine}`).join(', ');
    process.stdout.write(`     identical code in ${r.locationCount} places, also at ${shown}${(r.locationCount ?? 0) > r.locations.length ? ', …' : ''}\n`);
  }
  const width = String(r.endLine + (r.context?.after.length ?? 0)).length;
  r.context?.before.forEach((l, k) => process.stdout.write(numbered(r.startLine - r.context!.before.length + k, l, width)));
  const code = r.code.split('\n');
  // With context the whole symbol is shown between its surrounding lines; without, a preview.
  const shown = r.context ? code : code.slice(0, 6);
  // Numbered like the context when the code is the span's own lines (nothing collapsed in it).
  const aligned = code.length === r.endLine - r.startLine + 1;
  shown.forEach((line, k) => process.stdout.write(r.context ? (aligned ? numbered(r.startLine + k, line, width) : `     ${' '.repeat(width)}│ ${line}\n`) : `     ${line}\n`));
  if (!r.context && code.length > 6) process.stdout.write('     …\n');
  r.context?.after.forEach((l, k) => process.stdout.write(numbered(r.endLine + 1 + k, l, width)));
}

/** `ca search QUERY`: one repository, or several merged into one ranking (`--repo A --repo B`, a workspace). */
export async function cmdSearch(values: QueryValues, args: string[]): Promise<number> {
  const query = args.join(' ');
  if (query.trim() === '') throw usage('search needs a QUERY (an empty one matches nothing)');
  const limit = parseInteger(values.limit, '--limit', 1, 1000);
  const languages = parseList<Language>(values.lang, '--lang', LANGUAGES);
  const kinds = parseList<NodeKind>(values.kind, '--kind', NODE_KINDS);
  const budget = parseInteger(values.budget, '--budget', 0, Number.MAX_SAFE_INTEGER);
  const minScore = parseNumber(values['min-score'], '--min-score', 0, 1);
  const minSimilarity = parseNumber(values['min-similarity'], '--min-similarity', -1, 1);
  const view = viewOptionsOf(values);
  const filter = filterOf(values);
  const options: SearchOptions = {
    ...(limit !== undefined ? { limit } : {}),
    ...(languages ? { languages } : {}),
    ...(kinds ? { kinds } : {}),
    ...(values.path ? { pathGlob: values.path } : {}),
    ...(filter !== undefined ? { filter } : {}),
    includeTests: values['include-tests'],
    includeDocs: values['include-docs'] === true,
    ...(budget !== undefined ? { budget } : {}),
    ...(minScore !== undefined ? { minScore } : {}),
    ...(minSimilarity !== undefined ? { minSimilarity } : {}),
    ...(values.explain ? { explain: true } : {}),
  };
  if (values.store !== undefined) return searchTeam(values, query, options);
  const repos = reposOf(values, 'search', true);
  let response: SearchResponse & { repos?: unknown };
  let freshness: Freshness | null = null;
  if (repos.length > 1 || values.workspace !== undefined) {
    if (values.db !== undefined) throw usage('--db names one index: with several repositories, list them with --repo or in a workspace file (with "db")');
    if (values.label !== undefined) throw usage('--label answers from one repository: search several repositories in their working trees');
    response = await searchWorkspace(repos, query, options, { ...(view ? { view } : {}) });
  } else {
    const engine = openRepo(values, 'search');
    try {
      const label = labelOption(values, engine);
      response = await engine.search(query, { ...options, ...label });
      if (view) response = engine.withContext(response, view, label);
      freshness = engine.freshness(label.label, answerPaths(response.results, response.results.flatMap((r) => r.locations ?? [])));
    } finally {
      await engine.dispose();
    }
  }
  if (values.json) {
    const body = searchJson(response, values.explain);
    printJson({ ...body, ...(response.repos !== undefined ? { repos: response.repos } : {}), ...(freshness ? { freshness } : {}) });
    return 0;
  }
  warnIfStale(freshness);
  if (response.results.length === 0) process.stdout.write(`No results for "${query}".\n`);
  response.results.forEach((r, i) => printResult(r, i, values.explain));
  for (const n of response.notices) process.stderr.write(`note: ${n}\n`);
  return 0;
}

/**
 * `ca search QUERY --store URL [--store-repo R] [--label L]`: the same search over a repository's
 * label on the team store (decision 046); the repository defaults to the directory's name, as
 * `ca index --store` publishes it, the label to decision 050's rule (the only label, else `working`).
 */
async function searchTeam(values: QueryValues, query: string, options: SearchOptions): Promise<number> {
  if (values.db !== undefined || values.workspace !== undefined || (values.repo?.length ?? 0) > 1) {
    throw usage('--store searches one repository of the team store: name it with --store-repo (no --db, --workspace or several --repo)');
  }
  const repository = values['store-repo'] ?? basename(resolve(values.repo?.[0] ?? '.'));
  const response = await searchTeamStore(values.store!, repository, query, { ...options, ...(values.label !== undefined ? { label: values.label } : {}) });
  if (values.json) {
    printJson({ ...searchJson(response, values.explain), store: { repository, label: response.store.label } });
    return 0;
  }
  if (response.results.length === 0) process.stdout.write(`No results for "${query}".\n`);
  response.results.forEach((r, i) => printResult(r, i, values.explain));
  for (const n of response.notices) process.stderr.write(`note: ${n}\n`);
  return 0;
}

/** `ca find EXPR`: the symbols a filter selects, paged (`--limit`, `--offset` or `--cursor`). */
export async function cmdFind(values: QueryValues, args: string[]): Promise<number> {
  if (args.length === 0) throw usage('find needs a filter EXPR (e.g. ca find \'kind:method and is:public\')');
  const limit = parseInteger(values.limit, '--limit', 1, 1000);
  const offset = parseInteger(values.offset, '--offset', 0, Number.MAX_SAFE_INTEGER);
  const engine = openRepo(values, 'find');
  let answer: FindResponse;
  let freshness: Freshness;
  try {
    const label = labelOption(values, engine);
    answer = engine.find(args.join(' '), {
      ...(limit !== undefined ? { limit } : {}),
      ...(offset !== undefined ? { offset } : {}),
      ...(values.cursor !== undefined ? { cursor: values.cursor } : {}),
      ...label,
    });
    freshness = engine.freshness(label.label, answerPaths(answer.results));
  } finally {
    engine.close();
  }
  if (values.json) {
    printJson({ ...answer, freshness });
    return 0;
  }
  warnIfStale(freshness);
  if (answer.total === 0) process.stdout.write(`No symbols match ${answer.filter}.\n`);
  answer.results.forEach((r, i) => {
    process.stdout.write(`${answer.offset + i + 1}. ${r.qualifiedName}  (${r.kind}, ${r.language})  ${location(r)}${r.package ? `  ${r.package}` : ''}  [id ${r.id}]\n`);
  });
  if (answer.total > 0) {
    const shown = answer.results.length;
    const all = `${answer.total} symbol${answer.total === 1 ? '' : 's'}`;
    process.stdout.write(`${shown === answer.total ? all : `${answer.offset + 1}-${answer.offset + shown} of ${all}`}${answer.nextCursor ? ` (next page: --cursor ${answer.nextCursor})` : ''}\n`);
  }
  for (const n of answer.notices) process.stderr.write(`note: ${n}\n`);
  return 0;
}

/** `ca view FILE [id:N|id:N-M|id:N-end] [--lines A-B] [--label NAME]`: a file as the index holds it. */
export async function cmdView(values: QueryValues, args: string[]): Promise<number> {
  if (args.length === 0 || args.length > 2) throw usage('view needs a FILE and at most one selector (id:N, id:N-M, id:N-end)');
  const maxLineLength = parseInteger(values['max-line-length'], '--max-line-length', 1, 1_000_000);
  const engine = openRepo(values, 'view');
  try {
    const view = engine.view(
      args[0]!,
      {
        ...(values.lines !== undefined ? { lines: values.lines } : {}),
        ...(args[1] !== undefined ? { selector: args[1] } : {}),
      },
      labelOption(values, engine),
    );
    const text = capLines(view.text, maxLineLength);
    const freshness = engine.freshness(labelOf(values, engine), [view.path]);
    if (values.json) printJson({ ...view, text, freshness });
    else {
      warnIfStale(freshness);
      // The file's own bytes (decision 025): a whole-file view is the file byte for byte, whatever its encoding.
      process.stdout.write(encodeText(text, view.encoding));
    }
    return 0;
  } finally {
    engine.close();
  }
}
