#!/usr/bin/env node
// Extraction dump: `node tools/dump-extraction.mjs [--lang cs|ts|all] DIR... > out.jsonl`.
// Runs the syntactic adapters the engine indexes with over every file discovery finds in each DIR
// and prints one canonical JSON line per file, in path order: the file's processing result
// (status, reason, line count, extractor, content hash) and its complete FileIndex (nodes with
// spans and chunk texts, edges, diagnostics, exports). Two dumps of the same tree are equal byte
// for byte; comparing a dump taken before a refactoring of an extractor with one taken after is
// the proof that the refactoring changed nothing (docs/decisions/028-extractors-as-walkers.md).
// Uses the built `dist/` files (`pnpm build` first). The parse time (one file at a time through
// the worker, summed per language) goes to stderr, so a dump doubles as a parse-only benchmark.
import { readFileSync } from 'node:fs';
import { posix, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';

const dist = (pkg, file) => resolve(import.meta.dirname, '..', 'packages', pkg, 'dist', file);
const { defaultConfig } = await import(dist('schema', 'index.js'));
const { discoverFiles, BUILTIN_LANGUAGES } = await import(dist('engine', 'index.js'));
// The engine's parse worker: the adapter set and per-file processing (classification, decoding,
// adapter call) the indexer runs, fed the same `.csproj` facts (C# preprocessor symbols).
const PARSE_WORKER = dist('engine', 'parseWorker.js');
const EXTENSIONS = new Set(['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs', '.cs']);

const LANGS = { cs: ['cs'], ts: ['ts', 'js'], all: ['cs', 'ts', 'js'] };
// The per-file deadline is effectively off: a slow or busy machine must not turn a parse into a
// timeout and make two dumps of the same tree differ.
const NO_DEADLINE_MS = 1e9;

function usage(message) {
  process.stderr.write(`${message}\nusage: node tools/dump-extraction.mjs [--lang cs|ts|all] DIR... > out.jsonl\n`);
  process.exit(2);
}

/** JSON with object keys sorted at every level (arrays keep their order: it is output too). */
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonical(v))).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value)
      .filter((k) => value[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

const { values, positionals } = parseArgs({ allowPositionals: true, options: { lang: { type: 'string', default: 'all' } } });
const langs = LANGS[values.lang];
if (!langs) usage(`unknown --lang ${values.lang}`);
if (positionals.length === 0) usage('no DIR given');

/** Each language's project files (`.csproj`): the first of each directory, by sorted path (the indexer's `projectFiles`). */
function projectsOf(root, contextFiles) {
  const byLanguage = {};
  for (const language of BUILTIN_LANGUAGES.filter((l) => l.isProjectFile)) {
    const out = {};
    const own = contextFiles.map((f) => f.path).filter((p) => language.isProjectFile(p));
    for (const path of own.sort()) {
      const dir = posix.dirname(path) === '.' ? '' : posix.dirname(path);
      if (!(dir in out)) out[dir] = { path, text: readFileSync(resolve(root, path), 'utf8') };
    }
    byLanguage[language.id] = out;
  }
  return byLanguage;
}

/** A parse worker answering one file at a time, in order. */
function startWorker(projects) {
  // The worker loads the built-in languages from their packages (decision 031).
  const worker = new Worker(PARSE_WORKER, { workerData: { languages: BUILTIN_LANGUAGES.map((l) => l.worker), projects } });
  let nextId = 0;
  const parse = (path, bytes) =>
    new Promise((done, fail) => {
      const id = nextId++;
      const onMessage = (reply) => {
        if (reply.id !== id) return;
        worker.off('message', onMessage);
        if ('error' in reply) fail(new Error(`${path}: ${reply.error}`));
        else done(reply.result);
      };
      worker.on('message', onMessage);
      worker.postMessage({ id, path, bytes, deadlineMs: NO_DEADLINE_MS });
    });
  return { parse, close: () => worker.terminate() };
}

const languageOf = (path) => {
  const ext = path.slice(path.lastIndexOf('.')).toLowerCase();
  if (ext === '.cs') return 'cs';
  return ['.ts', '.tsx', '.mts', '.cts'].includes(ext) ? 'ts' : 'js';
};

const parseMs = {};
let files = 0;
for (const dir of positionals) {
  const root = resolve(dir);
  const found = discoverFiles(root, defaultConfig().indexing, EXTENSIONS);
  const worker = startWorker(projectsOf(root, found.contextFiles));
  try {
    // The worker loads its grammars before its first answer: keep that out of the parse time.
    await worker.parse('warm-up.cs', new Uint8Array(0));
    const paths = found.files.map((f) => f.path).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const path of paths) {
      const language = languageOf(path);
      if (!langs.includes(language)) continue;
      const bytes = readFileSync(resolve(root, path));
      const t0 = performance.now();
      const { fts: _fts, ...processed } = await worker.parse(path, bytes);
      parseMs[language] = (parseMs[language] ?? 0) + (performance.now() - t0);
      files++;
      process.stdout.write(`${canonical({ dir, ...processed })}\n`);
    }
  } finally {
    await worker.close();
  }
}
const times = Object.entries(parseMs)
  .map(([l, ms]) => `${l} ${Math.round(ms)} ms`)
  .join(', ');
process.stderr.write(`dumped ${files} files; parse time ${times || 'none'}\n`);
