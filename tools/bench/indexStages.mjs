// Index stages: syntactic throughput, semantic passes, full index with embeddings, no-change
// re-index and single-file update latency. Each runs in its own child process (stage.mjs).
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchEnv, copyRepo, importDist, loadAvg, median, round, tempDir } from './lib.mjs';

const OFF = { semantic: { enabled: false }, embedding: { enabled: false } };

async function openEngine(repo, dbDir, configOverrides) {
  const { Engine } = await importDist('engine');
  return Engine.open(repo, { dbPath: join(dbDir, 'index.db'), env: benchEnv(), ...(configOverrides ? { configOverrides } : {}) });
}

/** Lines of source per language in the working label (ok/partial parses). */
function linesByLanguage(engine) {
  const rows = engine.store.db
    .prepare(
      `SELECT f.language AS language, COUNT(*) AS files, SUM(f.line_count) AS lines FROM files f
       JOIN label_files lf ON lf.file_id = f.id JOIN labels l ON l.id = lf.label_id AND l.name = 'working'
       WHERE f.language IS NOT NULL AND f.parse_status IN ('ok','partial') GROUP BY f.language`,
    )
    .all();
  return Object.fromEntries(rows.map((r) => [r.language, { files: r.files, lines: r.lines }]));
}

/** 1. Syntactic index (semantic passes and embeddings off): fresh index `runs` times, each followed by a no-change re-index. */
export async function syntactic({ repo, runs = 3 }) {
  const fresh = [];
  let report;
  for (let i = 0; i < runs; i++) {
    const dbDir = tempDir('db');
    const engine = await openEngine(repo, dbDir, OFF);
    try {
      const t0 = performance.now();
      report = await engine.index();
      const ms = performance.now() - t0;
      const t1 = performance.now();
      const again = await engine.index();
      fresh.push({ ms, noChangeMs: performance.now() - t1, changedOnReindex: again.changed });
    } finally {
      await engine.dispose();
      rmSync(dbDir, { recursive: true, force: true });
    }
    console.log(`syntactic run ${i + 1}/${runs}: ${Math.round(fresh.at(-1).ms)} ms`);
  }
  const ms = median(fresh.map((r) => r.ms));
  return {
    repo,
    files: report.files,
    lines: report.lines,
    symbols: report.symbols,
    edges: report.edges,
    parseStatus: report.parseStatus,
    runs,
    allMs: fresh.map((r) => Math.round(r.ms)),
    medianMs: Math.round(ms),
    linesPerSecond: Math.round(report.lines / (ms / 1000)),
    filesPerSecond: Math.round(report.files / (ms / 1000)),
    noChangeMs: fresh.map((r) => Math.round(r.noChangeMs)),
    noChangeMedianMs: Math.round(median(fresh.map((r) => r.noChangeMs))),
  };
}

/** 2. Semantic passes (embeddings off), one fresh index; throughput from the index report. */
export async function semantic({ repo }) {
  const dbDir = tempDir('db');
  const engine = await openEngine(repo, dbDir, { embedding: { enabled: false } });
  try {
    const t0 = performance.now();
    const report = await engine.index();
    const totalMs = performance.now() - t0;
    const langs = linesByLanguage(engine);
    const tsLines = (langs.ts?.lines ?? 0) + (langs.js?.lines ?? 0);
    const okTs = engine.store.db
      .prepare(
        `SELECT COUNT(*) AS files, COALESCE(SUM(f.line_count), 0) AS lines FROM files f JOIN label_files lf ON lf.file_id = f.id
         WHERE f.language IN ('ts','js') AND f.semantic_state = 'ok'`,
      )
      .get();
    const ts = report.semantic?.ts ?? null;
    const cs = report.semantic?.cs ?? null;
    return {
      repo,
      totalMs: Math.round(totalMs),
      lines: report.lines,
      linesByLanguage: langs,
      ts: ts && {
        ...ts,
        lines: tsLines,
        linesWithExactEdges: okTs.lines,
        linesPerSecond: ts.ms > 0 ? Math.round(tsLines / (ts.ms / 1000)) : null,
      },
      cs: cs && {
        ...cs,
        linesPerSecond: cs.ms > 0 && cs.lines > 0 ? Math.round(cs.lines / (cs.ms / 1000)) : null,
      },
    };
  } finally {
    await engine.dispose();
    rmSync(dbDir, { recursive: true, force: true });
  }
}

const TS_PROBE = (i) => `\nexport function caBenchProbe${i}(input: string): number {\n  return input.trim().length + ${i};\n}\n`;
const CS_PROBE = (i) =>
  `\nnamespace CaBenchProbe${i}\n{\n    internal static class Probe\n    {\n        internal static int Measure(string input) => input.Trim().Length + ${i};\n    }\n}\n`;

/** A mid-sized source file of the language (median line count), not a declaration file. */
function pickFile(engine, repoDir, language) {
  const rows = engine.store.db
    .prepare(
      `SELECT f.path, f.line_count AS lines FROM files f JOIN label_files lf ON lf.file_id = f.id
       WHERE f.language = ? AND f.parse_status = 'ok' AND f.generated = 0 AND f.path NOT LIKE '%.d.ts'
         AND f.path NOT LIKE '%test%' AND f.path NOT LIKE '%Test%' ORDER BY f.line_count, f.path`,
    )
    .all(language);
  const usable = rows.filter((r) => {
    if (language !== 'cs') return true;
    // A file-scoped namespace cannot be followed by a block namespace.
    return !/^\s*namespace\s+[\w.]+\s*;/m.test(readFileSync(join(repoDir, r.path), 'utf8'));
  });
  return usable.length > 0 ? usable[Math.floor(usable.length / 2)] : null;
}

/**
 * 4–6. Full index (semantic passes and embeddings on, fresh index and empty embedding cache) on a
 * copy of the repository, then no-change re-indexes, then single-file updates: append a function
 * to a mid-sized file, re-index (timed), restore, re-index (not timed); `updates` times per language.
 */
export async function full({ repo, noChangeRuns = 3, updates = 5 }) {
  const work = tempDir('repo');
  const copy = copyRepo(repo, join(work, 'repo'));
  const dbDir = tempDir('db');
  const engine = await openEngine(copy, dbDir);
  try {
    const loadBefore = loadAvg();
    const t0 = performance.now();
    const report = await engine.index();
    const ms = performance.now() - t0;
    console.log(`full index: ${Math.round(ms)} ms, ${report.lines} lines, ${report.embeddings?.nodes ?? 0} nodes embedded`);
    const noChange = [];
    for (let i = 0; i < noChangeRuns; i++) {
      const t = performance.now();
      const r = await engine.index();
      noChange.push({ ms: performance.now() - t, changed: r.changed, embedded: r.embeddings?.nodes ?? 0 });
    }
    const updateResults = {};
    const langs = linesByLanguage(engine);
    for (const language of ['ts', 'cs']) {
      if (!langs[language]) continue;
      const file = pickFile(engine, copy, language);
      if (!file) continue;
      const abs = join(copy, file.path);
      const original = readFileSync(abs);
      const samples = [];
      try {
        for (let i = 0; i < updates; i++) {
          writeFileSync(abs, Buffer.concat([original, Buffer.from(language === 'cs' ? CS_PROBE(i) : TS_PROBE(i))]));
          const t = performance.now();
          const r = await engine.index();
          const updMs = performance.now() - t;
          samples.push({
            ms: updMs,
            changed: r.changed,
            semanticMs: (r.semantic?.ts?.ms ?? 0) + (r.semantic?.cs?.ms ?? 0),
            embedMs: r.embeddings?.ms ?? 0,
            embeddedNodes: r.embeddings?.nodes ?? 0,
          });
          writeFileSync(abs, original);
          await engine.index();
        }
      } finally {
        writeFileSync(abs, original);
      }
      const m = (k) => Math.round(median(samples.map((s) => s[k])));
      updateResults[language] = {
        file: file.path,
        fileLines: file.lines,
        allMs: samples.map((s) => Math.round(s.ms)),
        medianMs: m('ms'),
        medianSemanticMs: m('semanticMs'),
        medianEmbedMs: m('embedMs'),
        embeddedNodesPerUpdate: samples[0]?.embeddedNodes ?? 0,
      };
      console.log(`update ${language} ${file.path}: median ${updateResults[language].medianMs} ms`);
    }
    const emb = report.embeddings ?? null;
    return {
      repo,
      copiedTo: copy,
      loadBefore,
      files: report.files,
      lines: report.lines,
      symbols: report.symbols,
      edges: report.edges,
      linesByLanguage: langs,
      ms: Math.round(ms),
      reportMs: report.ms,
      linesPerSecond: Math.round(report.lines / (ms / 1000)),
      semantic: report.semantic ?? null,
      embeddings: emb && {
        ...emb,
        symbolsPerSecond: emb.ms > 0 ? round(emb.nodes / (emb.ms / 1000), 1) : null,
        textsPerSecond: emb.ms > 0 ? round(emb.texts / (emb.ms / 1000), 1) : null,
        tokensPerSecond: emb.ms > 0 ? Math.round(emb.tokens / (emb.ms / 1000)) : null,
      },
      noChange: { allMs: noChange.map((r) => Math.round(r.ms)), medianMs: Math.round(median(noChange.map((r) => r.ms))), changed: noChange.map((r) => r.changed) },
      update: updateResults,
    };
  } finally {
    await engine.dispose();
    rmSync(dbDir, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  }
}
