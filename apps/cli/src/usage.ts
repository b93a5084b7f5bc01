// The help text and the command table: everything `ca --help` needs, with no import, so that
// printing help loads nothing else (main.ts imports the engine only for a command that uses it).

/** The commands of `ca`, in help order (cli.ts maps each to its handler; the tests iterate this table). */
export const COMMANDS = [
  'index',
  'watch',
  'search',
  'find',
  'view',
  'symbol',
  'outline',
  'source',
  'callers',
  'callees',
  'refs',
  'impls',
  'deps',
  'dependents',
  'impact',
  'graph',
  'routes',
  'affected',
  'status',
  'health',
  'labels',
  'label',
  'repos',
  'gc',
  'export',
  'import',
  'use',
  'similar',
  'mcp',
  'serve',
  'ui',
  'model',
  'eval',
] as const;

/** A command name of the table. */
export type Command = (typeof COMMANDS)[number];

/** `ca --help`. */
export const USAGE = `usage: ca <command> [options]

Commands:
  index [PATH]            index the repository (PATH defaults to --repo); with --label NAME
                          --commit REV: index a commit from git objects as label NAME;
                          with --store URL (or CA_STORE_URL): then publish the label to the team
                          store (PostgreSQL) as repository --store-repo NAME (default: the
                          directory's name), label --label NAME (default: the local label's)
  watch [PATH]            index, then re-index on every change until Ctrl-C (one warm engine:
                          an edit is re-indexed in a fraction of a one-shot index; --debounce MS)
  search QUERY            find symbols by name or words (several --repo, or a workspace: one ranking)
                          --store URL [--store-repo R]: search R's label (--label) on the team store
  find EXPR               list the symbols a filter selects (no search text; paged)
  view FILE [id:N[-M|-end]]  print a file as the index holds it (--lines A-B, or symbols by number)
  symbol NAME             show the symbols matching a name, qualified name or id
  outline FILE            list the symbols of a file
  source NAME             print the source of a symbol
  callers SYMBOL          who calls it (--through-interfaces: also via the interface/base member)
  callees SYMBOL          what it calls
  refs SYMBOL             every place that uses it (calls, references, imports)
  impls SYMBOL            implementations, subclasses, overrides
  deps FILE|SYMBOL        what it imports/uses
  dependents FILE|SYMBOL  what imports/uses it
  impact SYMBOL           transitive dependents grouped by file (blast radius)
  graph                   the whole graph, or the part --filter EXPR selects, as
                          --format graphml (default)|json|dot|mermaid, to stdout or --out FILE
                          (--max-nodes N, default 200000: the first N in path order, the cut noticed)
  routes                  the HTTP endpoints (ASP.NET attribute routes, minimal APIs): method, route
                          template, handler, file:line, why a route is approximate (--json);
                          --unmatched: TS client calls no endpoint serves and endpoints no client calls
  affected BASE..HEAD     the symbols a diff changed (two labels, or commits a label was indexed
                          at; HEAD empty: the working tree) and what they impact across C# and TS
                          (calls, references, HTTP), the endpoints and tests reached, a risk
                          summary (--depth N, default 3; --json for CI)
  status                  index size, parse problems, channel state, freshness, labels
  health                  check the index and the grammars
  labels                  the labels of the index (working tree, commits) with commit, files, completeness
  label rm NAME           remove a label (its content goes with the next ca gc)
  repos --store URL       the repositories and labels of a team store, with commit and counts
  gc                      reclaim what no label references (versions, nodes, edges, vectors) and sweep journals
  export                  write the index as one portable file (--out FILE, default <repo>.caindex;
                          --label NAME… to keep only those labels; --no-vectors, --no-contents)
  import FILE             install an exported index (checked first; --force: of another repository),
                          then index the working tree incrementally (--no-index: install only)
  use [--label NAME] [--repo DIR] | --clear
                          remember a default repository and label for the commands (ca use alone: show it)

Global options:
  --repo DIR|NAME         repository root, or a workspace repository's name (default: ca use's,
                          then the current directory); search takes several
  --workspace FILE|DIR    a workspace file listing repositories (default: ./.codeagent/workspace.json)
  --label NAME            answer from this label (default: ca use's, then the working tree)
  --db FILE               index file (default: <repo>/.codeagent/index.db)
  --json                  machine-readable output
  -h, --help              this help

Navigation options:
  --depth N  --min-confidence exact|probable|approximate  --format graphml|json|dot|mermaid  --all
  --max-nodes N  (cap on nodes an answer keeps, nearest first; impact default graph.impact_max_nodes = 1000)
  --context N  --context-before N  --context-after N  (lines around each site, 0-1000)
  --max-tokens N  (answer budget of the printed text, default 50000; a cut answer says so and
                  names the --offset of the next page)  --offset N

Team store (symbol, outline, source and the navigation commands):
  --store URL (or CA_STORE_URL, store.url)  answer from the team store's snapshot instead of the
                  local index: repository --store-repo NAME (default: the directory's name),
                  label --label NAME (default: the repository's only label)

Search options:
  --filter EXPR  (lang: kind: path: name: project: is:test|generated|public returns: type: label:,
                  with and, or, not and parentheses; ANDed with --lang --kind --path)
  --limit N  --lang ts|js|cs  --kind KIND  --path GLOB  --include-tests  --explain
  --include-docs  (Markdown sections and JSON/YAML keys too; or ask with --kind doc|config)
  --budget TOKENS (default 16384)  --min-score 0..1 (drop results under this fraction of the best)
  --min-similarity -1..1 (default 0.2: with no name/word match, drop results less similar in meaning)
  --context N  --context-before N  --context-after N  --max-line-length N

Find options:
  --limit N (default 50)  --offset N  --cursor C (the nextCursor of the previous page)

Other:
  similar SYMBOL          code like this symbol (vector channel)
  mcp [PATH]              serve the MCP tools over stdio (--db FILE, --no-refresh; apps/mcp/README.md)
  mcp --http / serve      serve them over HTTP on 127.0.0.1 (--repo DIR…, --port N), and the viewer's pages
  mcp install --client C  print (--write: add) the config entry of claude-code|claude-desktop|vscode|cursor
  mcp instructions        a snippet for AGENTS.md / CLAUDE.md
  ui [--repo DIR]...      the viewer in the browser on 127.0.0.1 (--port N; prints a one-time login URL)
  model import DIR        copy an embedding model folder into the user cache (offline machines)
  eval run|gate|mine-git  retrieval quality on query sets (see apps/eval/README.md)`;
