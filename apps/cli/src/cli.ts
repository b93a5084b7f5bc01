import { parseArgs, type ParseArgsConfig } from 'node:util';
import { basename, resolve } from 'node:path';
import { answerPaths, budgetNavigation, Engine, NAVIGATIONS, navigateOf, outlineOf, sourceOf, symbolsOf, type GraphReads, type GraphReadsOrigin, parseGraphFormat, renderNavigationGraph, toSymbolView, validateLabelName, type Navigation, type NavigationPage, type NavigationResult, type NodeRecord, type IndexReport, type SiteContext, type DocsSummary } from '@ca/engine';
import { CaError, CONFIDENCES, defaultConfig, loadConfig, type Confidence } from '@ca/schema';
import { printJson, ProgressBar, reportError, watchErrorLine } from './output.js';
import { cmdFind, cmdSearch, cmdView, warnIfStale, joinNegativeNumbers, labelOf, labelOption, openRepo, parseInteger, viewOptionsOf, type QueryValues } from './query.js';
import { DEFAULT_DEBOUNCE_MS, watchRepository } from './watch.js';
import { readContext, writeContext } from './context.js';
import { USAGE, type Command } from './usage.js';
import { cmdGraph } from './graph.js';
import { cmdRoutes } from './routes.js';
import { cmdAffected } from './commands/affected.js';

const OPTIONS = {
  repo: { type: 'string', multiple: true },
  workspace: { type: 'string' },
  filter: { type: 'string', multiple: true },
  offset: { type: 'string' },
  cursor: { type: 'string' },
  context: { type: 'string' },
  'context-before': { type: 'string' },
  'context-after': { type: 'string' },
  'max-line-length': { type: 'string' },
  lines: { type: 'string' },
  db: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
  limit: { type: 'string' },
  lang: { type: 'string', multiple: true },
  kind: { type: 'string', multiple: true },
  path: { type: 'string' },
  'include-tests': { type: 'boolean', default: false },
  'include-docs': { type: 'boolean', default: false },
  explain: { type: 'boolean', default: false },
  all: { type: 'boolean', default: false },
  depth: { type: 'string' },
  'min-confidence': { type: 'string' },
  'max-nodes': { type: 'string' },
  'max-tokens': { type: 'string' },
  format: { type: 'string' },
  out: { type: 'string' },
  'through-interfaces': { type: 'boolean', default: false },
  budget: { type: 'string' },
  'min-score': { type: 'string' },
  'min-similarity': { type: 'string' },
  debounce: { type: 'string' },
  label: { type: 'string' },
  commit: { type: 'string' },
  store: { type: 'string' },
  'store-repo': { type: 'string' },
  clear: { type: 'boolean', default: false },
  unmatched: { type: 'boolean', default: false },
} satisfies ParseArgsConfig['options'];

type Values = QueryValues & {
  db?: string;
  json: boolean;
  help: boolean;
  limit?: string;
  lang?: string[];
  kind?: string[];
  path?: string;
  'include-tests': boolean;
  'include-docs': boolean;
  explain: boolean;
  all: boolean;
  depth?: string;
  'min-confidence'?: string;
  'max-nodes'?: string;
  'max-tokens'?: string;
  format?: string;
  out?: string;
  'through-interfaces': boolean;
  budget?: string;
  'min-score'?: string;
  'min-similarity'?: string;
  debounce?: string;
  label?: string;
  commit?: string;
  store?: string;
  'store-repo'?: string;
  clear: boolean;
  unmatched: boolean;
};

function usage(message: string): CaError {
  return new CaError('usage', message);
}

function parseLimit(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^-?\d+$/.test(raw)) throw usage(`--limit must be a positive integer (got "${raw}")`);
  const n = Number(raw);
  if (n < 1 || n > 1000) throw usage(`--limit must be from 1 to 1000 (got ${n})`);
  return n;
}

/**
 * The one repository a command reads: PATH when given (index, watch), else `--repo` (a path or a
 * workspace name). Read commands (the default) need an index that `ca index` completed: in a
 * directory never indexed they fail with `not_indexed` (exit 2) and create nothing; only `index`
 * and `watch` (`{ create: true }`) create one.
 */
function openEngine(values: Values, repoOverride?: string, options: { rebuildIfCorrupt?: boolean; create?: boolean } = {}, command = 'this command'): Engine {
  const { create, ...rest } = options;
  const engineOptions = { ...rest, requireIndex: create !== true };
  if (repoOverride !== undefined) return Engine.open(repoOverride, { ...(values.db ? { dbPath: values.db } : {}), ...engineOptions });
  return openRepo(values, command, engineOptions);
}

function location(n: { path: string; startLine: number; endLine: number }): string {
  return `${n.path}:${n.startLine}-${n.endLine}`;
}

const PHASE_LABEL: Record<string, string> = { discover: 'scanning', parse: 'parsing', write: 'writing', resolve: 'linking' };

async function cmdIndex(values: Values, args: string[]): Promise<number> {
  if (args.length > 1) throw usage('index takes at most one PATH');
  // With a team store, --label alone names the label the working tree is published as.
  if (values.commit !== undefined && values.label === undefined) throw usage('--label and --commit go together: ca index --label NAME --commit REV');
  if (values.label !== undefined) validateLabelName(values.label);
  const engine = openEngine(values, args[0], { rebuildIfCorrupt: true, create: true });
  try {
    if (values.label !== undefined && values.commit === undefined && storeUrl(values, engine.config) === null) {
      throw usage('--label and --commit go together: ca index --label NAME --commit REV (or --label NAME --store URL: publish the working tree as NAME)');
    }
    const bar = new ProgressBar(!values.json && process.stderr.isTTY === true);
    const kill = faultKillPoint(process.env['CA_FAULT_KILL_AT']);
    const onProgress = (p: { phase: string; done: number; total: number }) => {
      bar.update(PHASE_LABEL[p.phase] ?? p.phase, p.done, p.total);
      // Fault injection for the crash tests (docs/reliability.md): a real SIGKILL at a known point.
      if (kill && p.phase === kill.phase && p.done >= kill.at) process.kill(process.pid, 'SIGKILL');
    };
    const onWait = (h: { pid: number; label: string }) => process.stderr.write(`waiting for another indexer (pid ${h.pid}, ${h.label}) to finish…\n`);
    const report =
      values.commit !== undefined
        ? await engine.indexCommit(values.label!, values.commit, { onProgress, onWait })
        : await engine.index({ onProgress, onWait });
    bar.done();
    const published = await publishIndexed(engine, values, report.label);
    if (values.json) {
      printJson(published === null ? report : { ...report, published });
    } else {
      const s = report.parseStatus;
      process.stdout.write(
        `Indexed ${report.files} files (${report.lines} lines): ${report.symbols} symbols, ${report.edges} edges in ${report.ms} ms\n` +
          `  ${report.changed} parsed this run, ${report.removed} removed; status ok ${s.ok}, partial ${s.partial}, error ${s.error}, skipped ${s.skipped}, no grammar ${s.no_grammar}\n` +
          contextLines(report) +
          `  label ${report.label}${report.commit ? ` @ ${report.commit.slice(0, 12)}` : ''}: ${report.blobs.parsed} versions parsed, ${report.blobs.reused} reused, ${report.blobs.moved} moved, ${report.blobs.renamed} moved with an edit, ${report.blobs.embedded} symbols embedded\n` +
          `  index: ${engine.dbPath}\n` +
          (published === null ? '' : `  published ${published.repository} ${published.label} (snapshot ${published.snapshotId}): ${published.files} files, ${published.nodes} symbols, ${published.edges} edges; new rows: ${published.written.versions} versions, ${published.written.blobs} blobs, ${published.written.chunks} chunk texts, ${published.written.embeddings} embeddings in ${published.ms} ms\n`),
      );
    }
    return 0;
  } finally {
    engine.close();
  }
}

/** The team store's URL: `--store`, else the configuration's `store.url` (CA_STORE_URL); null: none. */
function storeUrl(values: Values, config: { readonly store: { readonly url: string } } | null): string | null {
  const url = values.store ?? (config?.store.url || process.env['CA_STORE_URL'] || '');
  return url === '' ? null : url;
}

/**
 * After `ca index`: publishes the indexed label to the team store when one is named (the
 * local index stays the working cache; decision 036). The server's label is `--label`, else the
 * local label's name; the repository is `--store-repo`, else the repository directory's name.
 */
async function publishIndexed(engine: Engine, values: Values, localLabel: string) {
  const url = storeUrl(values, engine.config);
  if (url === null) return null;
  const { publish } = await import('@ca/store-postgres');
  const started = performance.now();
  const repository = values['store-repo'] ?? basename(engine.repoRoot);
  const report = await publish(url, repository, engine.store.snapshotSource(localLabel), { label: values.label ?? localLabel });
  return { ...report, ms: Math.round(performance.now() - started) };
}

/** `ca repos --store URL`: the repositories and labels of a team store. */
async function cmdRepos(values: Values, args: string[]): Promise<number> {
  if (args.length > 0) throw usage('usage: ca repos --store URL [--json]');
  const url = storeUrl(values, null);
  if (url === null) throw usage('ca repos needs a team store: --store postgres://… (or CA_STORE_URL)');
  const { listRepositories } = await import('@ca/store-postgres');
  const rows = await listRepositories(url);
  if (values.json) {
    printJson({ repositories: rows });
  } else if (rows.length === 0) {
    process.stdout.write('No repositories yet (publish one: ca index --store URL).\n');
  } else {
    for (const r of rows) {
      process.stdout.write(`${r.repository.padEnd(30)} ${r.label.padEnd(20)} ${r.commit ? r.commit.slice(0, 12) : '(no commit)'.padEnd(12)}  ${String(r.files).padStart(6)} files ${String(r.nodes).padStart(8)} symbols ${String(r.edges).padStart(8)} edges  published ${r.publishedAt}\n`);
    }
  }
  return 0;
}

/**
 * `CA_FAULT_KILL_AT=<phase>:<n>` (crash tests only): the process kills itself with SIGKILL once
 * the index run's `phase` (discover, parse, write, resolve, semantic, embed) reports `n` done.
 */
function faultKillPoint(raw: string | undefined): { phase: string; at: number } | null {
  if (!raw) return null;
  const m = /^(discover|parse|write|resolve|semantic|embed):(\d+)$/.exec(raw);
  if (!m) throw usage(`CA_FAULT_KILL_AT must be <phase>:<count> (got "${raw}")`);
  return { phase: m[1]!, at: Number(m[2]) };
}

/** `  tsconfig.json changed: 12 files re-analysed` per semantic-context change, or nothing. */
function contextLines(report: IndexReport): string {
  return (report.contextChanges ?? []).map((c) => `  ${c.path} ${c.change}: ${c.files} files re-analysed\n`).join('');
}

async function cmdWatch(values: Values, args: string[]): Promise<number> {
  if (args.length > 1) throw usage('watch takes at most one PATH');
  const raw = values.debounce;
  if (raw !== undefined && !/^\d+$/.test(raw)) throw usage(`--debounce must be a number of milliseconds (got "${raw}")`);
  const engine = openEngine(values, args[0], { rebuildIfCorrupt: true, create: true });
  const stop = new Promise<void>((res) => {
    process.once('SIGINT', () => res());
    process.once('SIGTERM', () => res());
  });
  try {
    let first = true;
    await watchRepository(engine, {
      debounceMs: raw === undefined ? DEFAULT_DEBOUNCE_MS : Number(raw),
      stop,
      print: (r) => {
        // JSON Lines: one compact object per run, so a consumer can read the stream line by line.
        if (values.json) {
          const line = { event: first ? 'indexed' : 'updated', files: r.files, symbols: r.symbols, changed: r.changed, removed: r.removed, ms: r.ms };
          process.stdout.write(`${JSON.stringify({ ...line, ...(r.contextChanges ? { contextChanges: r.contextChanges } : {}), ...(r.notices ? { notices: r.notices } : {}) })}\n`);
        } else {
          process.stdout.write(`${first ? 'indexed' : 'updated'}: ${r.changed} changed, ${r.removed} removed in ${r.ms} ms (${r.files} files, ${r.symbols} symbols)\n${contextLines(r)}${(r.notices ?? []).map((n) => `  notice: ${n}\n`).join('')}`);
        }
        if (first && !values.json) process.stdout.write(`watching ${engine.repoRoot} (Ctrl-C to stop)\n`);
        first = false;
      },
      // With --json a failed run is one line too (`event: "error"`); the watch goes on.
      printError: (e) => {
        if (values.json) process.stdout.write(watchErrorLine(e));
        reportError(e, false);
      },
    });
    return 0;
  } finally {
    await engine.dispose();
  }
}

function describe(n: NodeRecord): string {
  const lines = [`${n.qualifiedName}  (${n.kind}, ${n.language})  [id ${n.id}]`, `  ${location(n)}`];
  if (n.signature) lines.push(`  ${n.signature}`);
  if (n.modifiers.length > 0) lines.push(`  modifiers: ${n.modifiers.join(' ')}`);
  if (n.doc) lines.push(`  doc: ${n.doc.split('\n')[0]}`);
  return lines.join('\n');
}

async function cmdSymbol(values: Values, args: string[]): Promise<number> {
  if (args.length !== 1) throw usage('symbol needs exactly one NAME');
  const fromStore = await withTeamStore(values, async (reads) => {
    printSymbols(values, await symbolsOf(reads, args[0]!), args[0]!, { store: reads.origin });
  });
  if (fromStore) return 0;
  const engine = openEngine(values);
  try {
    const label = labelOf(values, engine);
    const found = engine.findSymbols(args[0]!, label);
    if (found.length === 0) throw new CaError('not_found', `no symbol matches "${args[0]}"`);
    printSymbols(values, found, args[0]!, { freshness: engine.freshness(label, answerPaths(found)) });
    return 0;
  } finally {
    engine.close();
  }
}

/** Where an answer was read: the checkout's freshness (local index) or the team store's snapshot. */
type AnswerOrigin = { freshness: Parameters<typeof warnIfStale>[0] } | { store: GraphReadsOrigin };

function warnIfStaleOrigin(origin: AnswerOrigin): void {
  if ('freshness' in origin) warnIfStale(origin.freshness);
}

function printSymbols(values: Values, found: readonly NodeRecord[], name: string, origin: AnswerOrigin): void {
  if (found.length === 0) throw new CaError('not_found', `no symbol matches "${name}"`);
  if (values.json) printJson({ symbols: found.map(toSymbolView), ...origin });
  else {
    warnIfStaleOrigin(origin);
    process.stdout.write(`${found.map(describe).join('\n\n')}\n`);
  }
}

async function cmdOutline(values: Values, args: string[]): Promise<number> {
  if (args.length !== 1) throw usage('outline needs exactly one FILE');
  const fromStore = await withTeamStore(values, async (reads) => printOutline(values, await outlineOf(reads, args[0]!), args[0]!, { store: reads.origin }));
  if (fromStore) return 0;
  const engine = openEngine(values);
  try {
    const nodes = engine.outline(args[0]!, labelOption(values, engine));
    printOutline(values, nodes, args[0]!, { freshness: engine.freshness(labelOf(values, engine), answerPaths(nodes)) });
    return 0;
  } finally {
    engine.close();
  }
}

function printOutline(values: Values, nodes: readonly NodeRecord[], path: string, origin: AnswerOrigin): void {
  if (values.json) {
    printJson({
      path: nodes[0]?.path ?? path,
      symbols: nodes.map((n) => ({ ...toSymbolView(n), parentId: n.parentId === null ? null : String(n.parentId) })),
      ...origin,
    });
    return;
  }
  warnIfStaleOrigin(origin);
  const depth = new Map<number, number>();
  for (const n of nodes) {
    const d = n.parentId !== null && depth.has(n.parentId) ? depth.get(n.parentId)! + 1 : 0;
    depth.set(n.id, d);
    if (n.kind === 'file' || n.kind === 'module') {
      process.stdout.write(`${n.path} (${n.kind}, ${n.endLine} lines)\n`);
      continue;
    }
    process.stdout.write(`${'  '.repeat(d)}${n.kind} ${n.name}  ${n.startLine}-${n.endLine}${n.signature ? `  ${n.signature}` : ''}\n`);
  }
}

async function cmdSource(values: Values, args: string[]): Promise<number> {
  if (args.length !== 1) throw usage('source needs exactly one NAME');
  const fromStore = await withTeamStore(values, async (reads) => printSource(values, await sourceOf(reads, args[0]!), { store: reads.origin }));
  if (fromStore) return 0;
  const engine = openEngine(values);
  try {
    const answer = engine.source(args[0]!, labelOption(values, engine));
    printSource(values, answer, { freshness: engine.freshness(labelOf(values, engine), [answer.node.path]) });
    return 0;
  } finally {
    engine.close();
  }
}

function printSource(values: Values, { node, code, stale }: { node: NodeRecord; code: string; stale: boolean }, origin: AnswerOrigin): void {
  if (values.json) printJson({ symbol: toSymbolView(node), code, stale, ...origin });
  else {
    warnIfStaleOrigin(origin);
    process.stdout.write(`// ${node.qualifiedName} — ${location(node)}${stale ? ' (file changed since indexing: showing the indexed text)' : ''}\n${code}\n`);
  }
}

/**
 * Runs `body` over the team store's reads when one is named for a read command (`--store`, else
 * `CA_STORE_URL`, else the repository configuration's `store.url`): repository `--store-repo`
 * (default: the repository directory's name), label `--label` (default: the repository's only
 * label). False when no store is named (the command reads the local index).
 */
async function withTeamStore(values: Values, body: (reads: GraphReads) => Promise<void>): Promise<boolean> {
  const root = resolve(values.repo?.[0] ?? process.cwd());
  const url = values.store ?? (process.env['CA_STORE_URL'] || localStoreUrl(root) || undefined);
  if (url === undefined) {
    if (values['store-repo'] !== undefined) throw usage('--store-repo names a repository of a team store: give --store URL (or CA_STORE_URL)');
    return false;
  }
  const { openGraphReads } = await import('@ca/store-postgres');
  const reads = await openGraphReads(url, values['store-repo'] ?? basename(root), values.label ?? null);
  try {
    await body(reads);
  } finally {
    await reads.close();
  }
  return true;
}

/** The repository configuration's `store.url` ('' when none or no configuration). */
function localStoreUrl(root: string): string {
  return loadConfig(root, { env: {} }).store.url;
}

async function cmdStatus(values: Values): Promise<number> {
  const engine = openEngine(values);
  try {
    const s = engine.status(labelOption(values, engine));
    if (values.json) {
      printJson(s);
      return 0;
    }
    const f = s.freshness;
    const p = s.parseStatus;
    const out = [
      `repository: ${s.repo}`,
      `index:      ${s.db} (schema ${s.schemaVersion}, last indexed ${s.lastIndexedAt ?? 'never'})`,
      `contents:   ${s.files} files, ${s.lines} lines, ${s.symbols} symbols, ${s.edges} edges`,
      `parse:      ok ${p.ok}, partial ${p.partial}, error ${p.error}, skipped ${p.skipped}, no grammar ${p.no_grammar}`,
      `docs:       ${docsLine(s.docs)}`,
      `semantic:   ${s.semantic}`,
      `vectors:    ${s.vectorChannel}`,
      `label:      ${s.label}${f.commit ? ` @ ${f.commit.slice(0, 12)}` : ''}${f.branch ? ` (${f.branch})` : ''}${f.uncommittedChanges ? ', indexed with uncommitted changes' : ''}${f.headMoved ? `; HEAD moved since (now ${f.head?.slice(0, 12)}): run ca index` : ''}`,
    ];
    if (f.stale) {
      out.push(`changed since indexed (${f.staleCount} file${f.staleCount === 1 ? '' : 's'}; run ca index):`);
      for (const path of f.staleFiles) out.push(`  ${path}`);
      if (f.staleCount > f.staleFiles.length) out.push(`  … and ${f.staleCount - f.staleFiles.length} more`);
    }
    if (s.labels.length > 1) out.push(`labels:     ${s.labels.map((l) => l.name).join(', ')}`);
    if (s.importedFrom) {
      const left = [s.importedFrom.vectors ? '' : 'vectors', s.importedFrom.contents ? '' : 'file contents'].filter((x) => x !== '');
      out.push(`imported:   from an artifact of ${s.importedFrom.repository} exported ${s.importedFrom.createdAt}${left.length > 0 ? ` without ${left.join(' and ')}` : ''}`);
    }
    if (s.problems.length > 0) {
      out.push('files not fully indexed:');
      for (const f of s.problems) out.push(`  ${f.status.padEnd(10)} ${f.path}${f.reason ? ` — ${f.reason}` : ''}`);
    }
    if (s.notLoaded.length > 0) {
      out.push('not loaded or run (repository code never runs):');
      for (const n of s.notLoaded) out.push(`  ${n.kind.padEnd(14)} ${n.path ?? ''}${n.path ? ' — ' : ''}${n.message}`);
    }
    process.stdout.write(`${out.join('\n')}\n`);
    return 0;
  } finally {
    engine.close();
  }
}

async function cmdHealth(values: Values): Promise<number> {
  const engine = openEngine(values);
  try {
    const checks = await engine.health();
    const ok = checks.every((c) => c.ok);
    if (values.json) printJson({ ok, checks });
    else for (const c of checks) process.stdout.write(`${c.ok ? 'ok  ' : 'FAIL'} ${c.name}: ${c.detail}\n`);
    return ok ? 0 : 1;
  } finally {
    engine.close();
  }
}

function parseDepth(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw usage(`--depth must be a positive integer (got "${raw}")`);
  return Number(raw);
}

/** Sites listed on one row of a human navigation answer (the JSON keeps every edge). */
const SITES_SHOWN = 10;

/** Tokens a navigation answer prints by default (larger than the MCP cap: a terminal or a script reads it, not an agent's context). */
export const CLI_ANSWER_TOKENS = 50_000;
/** Largest `--max-tokens`. */
const MAX_ANSWER_TOKENS = 100_000_000;

/** A navigation answer as people read it, with the notices of a cut page at the end. */
function navigationText(result: NavigationResult & { notices?: readonly string[] }): string {
  const byId = new Map(result.nodes.map((n) => [n.id, n]));
  const s = result.symbol;
  const out: string[] = [`${result.navigation} of ${s.qualifiedName} (${s.kind}) ${location(s)}`];
  if (result.byFile) {
    for (const f of result.byFile) {
      out.push(`  ${f.path}`);
      for (const sym of f.symbols) out.push(`    ${sym.qualifiedName} (${sym.kind}) :${sym.line}  depth ${sym.depth}  via ${sym.via.join(' → ')}`);
    }
  } else {
    const outgoing = result.navigation === 'callees' || result.navigation === 'deps';
    // One row per (edge type, other symbol, file, confidence), its sites listed in answer order:
    // a test file calling a helper forty times is one row, not forty.
    const rows = new Map<string, { head: string; path: string; lines: number[]; confidence: string; contexts: SiteContext[] }>();
    for (const e of result.edges as readonly (NavigationResult['edges'][number] & { context?: SiteContext })[]) {
      const otherId = outgoing ? e.to : e.from;
      const other = otherId === null ? undefined : byId.get(otherId);
      const label = other ? `${other.qualifiedName} (${other.kind}) ${other.path}:${other.startLine}` : otherId === null ? `${e.targetName} (unresolved)` : `#${otherId}`;
      const head = `  ${e.type.padEnd(10)} ${label}`;
      const key = `${head}\0${e.path}\0${e.confidence}`;
      const row = rows.get(key);
      const contexts = e.context ? [e.context] : [];
      if (row) (row.lines.push(e.line), row.contexts.push(...contexts));
      else rows.set(key, { head, path: e.path, lines: [e.line], confidence: e.confidence, contexts });
    }
    for (const r of rows.values()) {
      const shown = r.lines.slice(0, SITES_SHOWN).join(', ');
      const more = r.lines.length > SITES_SHOWN ? `, … (${r.lines.length} sites)` : '';
      out.push(`${r.head}  at ${r.path}:${shown}${more}  [${r.confidence}]`);
      // --context: the lines around each site, numbered (every site, not only the first ten).
      for (const c of r.contexts) {
        const width = String(c.startLine + c.lines.length - 1).length;
        c.lines.forEach((l, k) => out.push(`      ${String(c.startLine + k).padStart(width)}│ ${l}`));
        out.push('');
      }
    }
  }
  if (result.edges.length === 0) out.push('  (none found)');
  if (!result.complete) {
    out.push('incomplete — the answer may miss edges:');
    for (const g of result.gaps) out.push(`  ${g.scope}: ${g.reason}`);
    if (result.truncated) out.push(`  kept the nearest ${result.maxNodes} of at least ${result.totalReached} reached nodes (--max-nodes)`);
  }
  for (const n of result.notices ?? []) out.push(`notice: ${n}`);
  return out.join('\n');
}

async function cmdNavigate(navigation: Navigation, values: Values, args: string[]): Promise<number> {
  if (args.length !== 1) throw usage(`${navigation} needs exactly one ${navigation === 'deps' || navigation === 'dependents' ? 'FILE or SYMBOL' : 'SYMBOL'}`);
  const depth = parseDepth(values.depth);
  const maxNodes = values['max-nodes'];
  if (maxNodes !== undefined && (!/^\d+$/.test(maxNodes) || Number(maxNodes) < 1)) throw usage(`--max-nodes must be a positive integer (got "${maxNodes}")`);
  const min = values['min-confidence'];
  if (min !== undefined && !(CONFIDENCES as readonly string[]).includes(min)) throw usage(`--min-confidence must be one of ${CONFIDENCES.join(', ')} (got "${min}")`);
  const format = values.format === undefined ? undefined : parseGraphFormat(values.format);
  if (values.out !== undefined) throw usage('--out is for ca graph; redirect the output of a navigation command instead');
  const view = viewOptionsOf(values);
  const cap = parseInteger(values['max-tokens'], '--max-tokens', 100, MAX_ANSWER_TOKENS) ?? CLI_ANSWER_TOKENS;
  const offset = parseInteger(values.offset, '--offset', 0, Number.MAX_SAFE_INTEGER) ?? 0;
  const options = {
    ...(depth !== undefined ? { depth } : {}),
    ...(maxNodes !== undefined ? { maxNodes: Number(maxNodes) } : {}),
    ...(min ? { minConfidence: min as Confidence } : {}),
    all: values.all,
    throughInterfaces: values['through-interfaces'],
  };
  const print = (whole: NavigationResult & Partial<AnswerOrigin>): void => {
    // The same budget as the MCP tools: the printed text is measured, the page from --offset that fits is printed.
    const render = (page: NavigationPage<typeof whole>): string =>
      format ? renderNavigationGraph(page, format).replace(/\n$/, '') : values.json ? JSON.stringify(page, null, 2) : navigationText(page);
    const { rendered } = budgetNavigation(whole, offset, cap, render, (text) => [text]);
    process.stdout.write(`${rendered}\n`);
  };
  const fromStore = await withTeamStore(values, async (reads) => {
    if (view) throw usage('--context and --max-line-length are not available with --store yet (the team store answers without the lines around each site)');
    const limits = storeGraphLimits(values);
    print({ ...(await navigateOf(reads, navigation, args[0]!, options, limits)), store: reads.origin });
  });
  if (fromStore) return 0;
  const engine = openEngine(values, undefined, {}, navigation);
  try {
    let result: NavigationResult = engine.navigate(navigation, args[0]!, { ...options, ...labelOption(values, engine) });
    if (view) result = engine.navigationContext(result, view, labelOption(values, engine));
    const freshness = engine.freshness(labelOf(values, engine), answerPaths([result.symbol], result.nodes, result.edges));
    if (!values.json) warnIfStale(freshness);
    print({ ...result, freshness });
    return 0;
  } finally {
    engine.close();
  }
}

/** The `graph` limits for a team-store answer: the repository configuration's when there is one, else the defaults. */
function storeGraphLimits(values: Values): ReturnType<typeof defaultConfig>['graph'] {
  return loadConfig(resolve(values.repo?.[0] ?? process.cwd()), { env: {} }).graph;
}

async function cmdSimilar(values: Values, args: string[]): Promise<number> {
  if (args.length !== 1) throw usage('similar needs exactly one SYMBOL');
  const limit = parseLimit(values.limit);
  const engine = openEngine(values);
  try {
    const r = await engine.similar(args[0]!, { ...(limit !== undefined ? { limit } : {}), ...labelOption(values, engine) });
    const freshness = engine.freshness(labelOf(values, engine), answerPaths(r.results));
    if (values.json) printJson({ query: r.query, results: r.results.map(({ ranks: _r, ...x }) => x), tookMs: r.tookMs, notices: r.notices, freshness });
    else {
      warnIfStale(freshness);
      r.results.forEach((x, i) => process.stdout.write(`${i + 1}. ${x.qualifiedName}  (${x.kind})  ${location(x)}  similarity ${x.score.toFixed(3)}\n`));
      for (const n of r.notices) process.stderr.write(`note: ${n}\n`);
    }
    return 0;
  } finally {
    await engine.dispose();
  }
}

async function cmdLabels(values: Values, args: string[]): Promise<number> {
  if (args.length > 0) throw usage('labels takes no arguments');
  const engine = openEngine(values);
  try {
    const labels = engine.labels();
    if (values.json) {
      printJson({ labels });
      return 0;
    }
    if (labels.length === 0) process.stdout.write('No labels yet (run ca index).\n');
    for (const l of labels) {
      const done = l.semantic.analysable === 0 ? 'no source files' : `${l.semantic.exact}/${l.semantic.analysable} files with exact edges`;
      process.stdout.write(
        `${l.name.padEnd(20)} ${l.kind.padEnd(8)} ${l.commit ? l.commit.slice(0, 12) : '(no commit)'.padEnd(12)}  ${String(l.files).padStart(6)} files  ${done}  indexed ${l.indexedAt ?? 'never'}${l.dirty ? '  (uncommitted changes)' : ''}\n`,
      );
    }
    return 0;
  } finally {
    engine.close();
  }
}

async function cmdLabel(values: Values, args: string[]): Promise<number> {
  const [sub, name, ...rest] = args;
  if (sub !== 'rm' || name === undefined || rest.length > 0) throw usage('usage: ca label rm NAME');
  const engine = openEngine(values);
  try {
    const paths = engine.removeLabel(name);
    if (values.json) printJson({ removed: name, paths });
    else process.stdout.write(`removed label ${name} (${paths} paths); run ca gc to reclaim what only it held\n`);
    return 0;
  } finally {
    engine.close();
  }
}

async function cmdGc(values: Values, args: string[]): Promise<number> {
  if (args.length > 0) throw usage('gc takes no arguments');
  const engine = openEngine(values);
  try {
    const r = engine.gc();
    if (values.json) printJson(r);
    else {
      process.stdout.write(
        `reclaimed ${r.versions} file versions, ${r.nodes} symbols, ${r.edges} edges, ${r.ftsRows} FTS rows, ${r.embeddings} vectors, ${r.contents} stored files; ` +
          `swept ${r.journal} journal rows and ${r.events} events; ${formatBytes(r.bytesFreed)} freed in ${engine.dbPath} (${formatBytes(r.fileBytes)})\n`,
      );
    }
    return 0;
  } finally {
    engine.close();
  }
}

function formatBytes(n: number): string {
  return n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} B`;
}

async function cmdUse(values: Values, args: string[]): Promise<number> {
  if (args.length > 0) throw usage('use takes no positional arguments: ca use --label NAME [--repo DIR] | --clear');
  if (values.clear) {
    if (values.label !== undefined || values.repo !== undefined) throw usage('--clear goes alone');
    const file = writeContext({});
    if (values.json) printJson({ context: {}, file });
    else process.stdout.write('default repository and label cleared\n');
    return 0;
  }
  if (values.label === undefined && values.repo === undefined) {
    const context = readContext();
    if (values.json) printJson({ context });
    else process.stdout.write(context.repo || context.label ? `repository: ${context.repo ?? '(current directory)'}\nlabel:      ${context.label ?? '(working tree)'}\n` : 'no default set (ca use --label NAME [--repo DIR])\n');
    return 0;
  }
  // The label must exist in the repository it is used with (checked now, not on every command).
  const engine = openEngine(values);
  try {
    if (values.label !== undefined) engine.labelOf(values.label);
    const context = { ...(values.repo !== undefined ? { repo: engine.repoRoot } : {}), ...(values.label !== undefined ? { label: values.label } : {}) };
    const file = writeContext(context);
    if (values.json) printJson({ context, file });
    else process.stdout.write(`now using ${context.repo ?? '(current directory)'}${context.label ? ` @ ${context.label}` : ''}\n`);
    return 0;
  } finally {
    engine.close();
  }
}

async function cmdModel(values: Values, args: string[]): Promise<number> {
  const [sub, dir] = args;
  if (sub !== 'import' || !dir || args.length !== 2) throw usage('usage: ca model import DIR');
  const { importModel } = await import('@ca/engine');
  const target = await importModel(dir);
  if (values.json) printJson({ imported: target });
  else process.stdout.write(`model copied to ${target}\n`);
  return 0;
}

type Handler = (values: Values, args: string[]) => Promise<number>;

const navigate =
  (navigation: Navigation): Handler =>
  (values, args) =>
    cmdNavigate(navigation, values, args);

/** Every command of the table in usage.ts, and what runs it (eval, mcp, serve, ui, export and import are dispatched before parsing). */
const HANDLERS: Record<Exclude<Command, 'eval' | 'mcp' | 'serve' | 'ui' | 'export' | 'import'>, Handler> = {
  index: cmdIndex,
  watch: cmdWatch,
  search: cmdSearch,
  find: cmdFind,
  view: cmdView,
  symbol: cmdSymbol,
  outline: cmdOutline,
  source: cmdSource,
  status: (values) => cmdStatus(values),
  health: (values) => cmdHealth(values),
  similar: cmdSimilar,
  model: cmdModel,
  labels: cmdLabels,
  label: cmdLabel,
  repos: cmdRepos,
  gc: cmdGc,
  use: cmdUse,
  graph: cmdGraph,
  routes: cmdRoutes,
  affected: cmdAffected,
  callers: navigate('callers'),
  callees: navigate('callees'),
  refs: navigate('refs'),
  impls: navigate('impls'),
  deps: navigate('deps'),
  dependents: navigate('dependents'),
  impact: navigate('impact'),
};

/** Runs the CLI with `argv` (without node and script); returns the exit code. */
export async function run(argv: string[]): Promise<number> {
  let values: Values;
  let positionals: string[];
  const wantsJson = argv.includes('--json');
  if (argv[0] === 'eval' || argv[0] === 'mcp' || argv[0] === 'serve' || argv[0] === 'ui') {
    // The eval app, the MCP server and the viewer parse their own options (--split, --no-refresh,
    // --port …); the MCP server owns stdout (the protocol).
    try {
      if (argv[0] === 'ui') return await (await import('@ca/ui')).runUiCli(argv.slice(1));
      if (argv[0] === 'eval') return await (await import('@ca/eval')).runEvalCli(argv.slice(1));
      // `ca serve …` is `ca mcp serve …` (the HTTP server), which also hosts the viewer's pages.
      const http = argv[0] === 'serve' || argv.includes('--http');
      const hooks = http ? { pages: (await import('@ca/ui')).servePages } : {};
      return await (await import('@ca/mcp')).runMcpCli(argv[0] === 'serve' ? argv : argv.slice(1), hooks);
    } catch (e) {
      return reportError(e, wantsJson);
    }
  }
  if (argv[0] === 'export' || argv[0] === 'import') {
    // Their own options (`--label` repeats, `--no-vectors`, `--force`): parsed by the command.
    try {
      const { cmdExport } = await import('./commands/export.js');
      const { cmdImport } = await import('./commands/import.js');
      return await (argv[0] === 'export' ? cmdExport : cmdImport)(argv.slice(1));
    } catch (e) {
      return reportError(e, wantsJson);
    }
  }
  try {
    const parsed = parseArgs({ args: joinNegativeNumbers(argv), options: OPTIONS, allowPositionals: true, strict: true });
    values = parsed.values as Values;
    positionals = parsed.positionals;
  } catch (e) {
    return reportError(usage((e as Error).message), wantsJson);
  }
  const [command, ...args] = positionals;
  if (values.help || !command) {
    process.stdout.write(`${USAGE}\n`);
    return command || values.help ? 0 : 2;
  }
  const handler = (HANDLERS as Record<string, Handler | undefined>)[command];
  try {
    if (!handler) throw usage(`unknown command "${command}" (see ca --help)`);
    return await handler(values, args);
  } catch (e) {
    return reportError(e, values.json);
  }
}

/** `ca status`'s docs line: files per language, then sections and keys (searched with --include-docs). */
function docsLine(d: DocsSummary): string {
  const files = Object.entries(d.files)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([language, n]) => `${n} ${language}`);
  if (files.length === 0) return 'none';
  return `${files.join(', ')} files; ${d.sections} sections, ${d.keys} keys (searched with --include-docs or kind:doc / kind:config)`;
}
