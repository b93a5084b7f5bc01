// A synthetic index at scale (10K, 100K symbols) for search and graph latency, written through the
// store's own writer so the tables, FTS rows and indexes are exactly what `ca index` produces.
//
// Material: ~3,000 distinct declarations of TypeScript's lib/*.d.ts (names, signatures, doc
// comments, member lists), each embedded once with the real model (cached in bench-out/cache).
// Files: `src/<area>/<module>.ts`, each with a file node, one class with 4 methods, 4 exported
// functions and one interface or type alias (10 symbols). Names are the real identifiers with
// common prefixes/suffixes (`tryGetItem`, `getItemCached`). Call graph: every function and
// method calls 2–5 others (a same-file function or method, or an exported function of another
// file, a third of those going to ~1% hub functions), plus one library call left unresolved;
// each cross-file call has an import edge from the file node. Vectors: every node gets its
// declaration's real vector perturbed (v = normalise(b + a·b' + 0.03·g), as in
// packages/store/bench/vectorBench.mjs), so near-duplicates cluster like copied code.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { CACHE_DIR, benchEnv, importDist, rng, typescriptLibDir } from './lib.mjs';

const BASE_COUNT = 3000;
const SYMBOLS_PER_FILE = 10;
const AREAS = ['core', 'dom', 'render', 'scene', 'data', 'io', 'net', 'ui', 'state', 'utils', 'editor', 'billing', 'auth', 'workers', 'compiler', 'text'];
const PREFIXES = ['', '', '', 'try', 'create', 'handle', 'resolve', 'update', 'compute', 'load'];
const SUFFIXES = ['', '', '', 'Async', 'Cached', 'Internal', 'Safe', 'Batch', 'Lazy', 'V2'];
const LIBRARY_CALLS = ['console.warn', 'JSON.stringify', 'Object.keys', 'Array.from', 'Promise.all', 'Math.max', 'structuredClone'];

/** Distinct declarations of lib/*.d.ts (callables and types), sampled evenly to `count`. */
export function collectDeclarations(count = BASE_COUNT) {
  const lib = typescriptLibDir();
  const ts = createRequire(import.meta.url)(join(lib, 'typescript.js'));
  const callables = [];
  const types = [];
  const seen = new Set();
  for (const name of readdirSync(lib).filter((f) => f.endsWith('.d.ts')).sort()) {
    const text = readFileSync(join(lib, name), 'utf8');
    const sf = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true);
    const visit = (node) => {
      const isCallable = ts.isMethodSignature(node) || ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node);
      const isType = ts.isInterfaceDeclaration(node) || ts.isClassDeclaration(node) || ts.isTypeAliasDeclaration(node);
      if ((isCallable || isType) && node.name && ts.isIdentifier(node.name)) {
        const id = node.name.text;
        const full = node.getText(sf);
        const signature = full.split('\n')[0].replace(/\s*\{\s*$/, '').replace(/;$/, '').trim();
        const key = `${id}\u0000${signature}`;
        if (!seen.has(key) && id.length > 2) {
          seen.add(key);
          const doc = ts
            .getJSDocCommentsAndTags(node)
            .map((d) => d.getText(sf))
            .join('\n');
          const lines = full.split('\n');
          const item = {
            name: id,
            kind: isCallable ? 'function' : ts.isTypeAliasDeclaration(node) ? 'type_alias' : 'interface',
            signature,
            doc: doc || null,
            text: lines.length > 24 ? `${lines.slice(0, 24).join('\n')}\n  // …` : full,
            file: name,
          };
          (isCallable ? callables : types).push(item);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  const sample = (items, n) => {
    if (items.length <= n) return items;
    const step = items.length / n;
    return Array.from({ length: n }, (_, i) => items[Math.floor(i * step)]);
  };
  const nTypes = Math.round(count * 0.25);
  return [...sample(callables, count - nTypes), ...sample(types, nTypes)];
}

const upper = (s) => s.charAt(0).toUpperCase() + s.slice(1);
const lower = (s) => s.charAt(0).toLowerCase() + s.slice(1);

function variedName(base, rand, kind) {
  if (kind !== 'function') {
    const suffix = ['', '', 'Impl', 'Options', 'State', 'Base'][Math.floor(rand() * 6)];
    return upper(base) + suffix;
  }
  const prefix = PREFIXES[Math.floor(rand() * PREFIXES.length)];
  const suffix = SUFFIXES[Math.floor(rand() * SUFFIXES.length)];
  return (prefix ? prefix + upper(base) : lower(base)) + suffix;
}

/** Replaces the declaration's own name in its text and signature. */
function rename(text, from, to) {
  return text.split(from).join(to);
}

/** The declarations' embedding texts and real vectors (embedded once, cached per model revision). */
async function baseVectors(decls, embed, resolution) {
  const info = await embed.modelInfo(resolution);
  const counter = await embed.loadTokenCounter(resolution);
  const texts = decls.map((d) =>
    embed.buildEmbeddingText(
      { language: 'ts', path: `lib/${d.file}`, containerChain: [d.name], kind: d.kind, signature: d.signature, doc: d.doc, chunkText: d.text },
      64,
      counter,
    ),
  );
  const digest = createHash('sha256').update(info.revision).update(texts.join('\u0000')).digest('hex').slice(0, 16);
  const file = join(CACHE_DIR, `synthetic-base-${digest}.bin`);
  if (existsSync(file)) {
    const buf = readFileSync(file);
    const all = new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
    return { info, vectors: decls.map((_, i) => all.subarray(i * info.dims, (i + 1) * info.dims)), embedMs: 0, cached: true };
  }
  const embedder = await embed.createEmbedder(resolution, { batchSize: 32 });
  const t0 = performance.now();
  const vectors = await embedder.embed(texts);
  const embedMs = performance.now() - t0;
  await embedder.dispose();
  mkdirSync(CACHE_DIR, { recursive: true });
  const all = new Float32Array(vectors.length * info.dims);
  vectors.forEach((v, i) => all.set(v, i * info.dims));
  writeFileSync(file, Buffer.from(all.buffer));
  return { info, vectors, embedMs, cached: false };
}

/**
 * Writes a synthetic index of `symbols` symbols to `dbPath`; returns what was built and how long
 * each part took. Deterministic for a given `symbols`.
 */
export async function buildSynthetic({ symbols, dbPath }) {
  const { Store, VectorStore } = await importDist('store');
  const { planNodes } = await importDist('invalidation');
  // The store resolves the synthetic imports with the TS module resolution the engine hands it.
  const { typescriptLanguage } = await importDist('parse-ts');
  const embed = await importDist('embed');
  // Every file is new: the planner inserts its nodes (chunk hashes only compare with previous versions).
  const planner = (input) => planNodes(input.previous, input.nodes, { path: input.path, partialTarget: input.partialTarget, chunkHash: (text) => text });
  const t0 = performance.now();
  const decls = collectDeclarations();
  const rand = rng(7 + symbols);
  const callDecls = decls.map((d, i) => [d, i]).filter(([d]) => d.kind === 'function');
  const typeDecls = decls.map((d, i) => [d, i]).filter(([d]) => d.kind !== 'function');
  const pick = (list) => list[Math.floor(rand() * list.length)];
  const nFiles = Math.ceil(symbols / SYMBOLS_PER_FILE);

  // Pass 1: names and shapes of every file (cross-file calls need their targets' names).
  const usedPaths = new Set();
  const files = [];
  for (let f = 0; f < nFiles; f++) {
    const area = AREAS[f % AREAS.length];
    const [typeDecl, typeIdx] = pick(typeDecls);
    const [classDecl, classIdx] = pick(typeDecls);
    const className = variedName(classDecl.name, rand, 'class');
    let base = `${area}/${lower(className)}`;
    let path = `src/${base}.ts`;
    for (let n = 2; usedPaths.has(path); n++) path = `src/${base}${n}.ts`;
    usedPaths.add(path);
    const methods = Array.from({ length: 4 }, () => {
      const [d, idx] = pick(callDecls);
      return { decl: d, declIdx: idx, name: lower(variedName(d.name, rand, 'function')) };
    });
    const functions = Array.from({ length: 4 }, () => {
      const [d, idx] = pick(callDecls);
      return { decl: d, declIdx: idx, name: variedName(d.name, rand, 'function') };
    });
    // Names are unique within a file (the resolver picks one exported symbol per name).
    const taken = new Set([className]);
    for (const m of [...methods, ...functions]) {
      let n = m.name;
      for (let k = 2; taken.has(n); k++) n = `${m.name}${k}`;
      m.name = n;
      taken.add(n);
    }
    let typeName = variedName(typeDecl.name, rand, 'type') + 'Props';
    if (taken.has(typeName)) typeName += '2';
    files.push({ path, module: path.replace(/\.ts$/, ''), area: f % AREAS.length, className, classDecl, classIdx, typeDecl, typeIdx, typeName, methods, functions });
  }
  const exported = files.flatMap((file, fi) => file.functions.map((fn) => ({ fi, name: fn.name })));
  const hubCount = Math.max(5, Math.round(exported.length * 0.01));
  const hubs = Array.from({ length: hubCount }, (_, i) => exported[Math.floor((i * exported.length) / hubCount)]);

  // Pass 2: FileIndex per file, written in batches through the store's writer.
  const store = Store.open(dbPath, { languages: [typescriptLanguage] });
  const declOfNode = [];
  let edgeCount = 0;
  let batch = [];
  const writeMs0 = performance.now();
  const flush = () => {
    if (batch.length === 0) return;
    store.writer.writeBatch('working', batch, planner);
    batch = [];
  };
  files.forEach((file, fi) => {
    const nodes = [];
    const edges = [];
    const lines = [];
    const key = (q) => `ts:file:${file.path}#${q}`;
    const imports = new Map();
    const fileLocal = 'n0';
    // Callee choice: a same-file callable, a nearby file's function, or a hub.
    const calleeFor = (selfName) => {
      const r = rand();
      if (r < 0.3) {
        const local = [...file.functions, ...file.methods].filter((x) => x.name !== selfName);
        const t = pick(local);
        const isMethod = file.methods.includes(t);
        return { local: t, isMethod };
      }
      const target = r < 0.5 ? pick(hubs) : exported[Math.min(exported.length - 1, Math.max(0, Math.floor((fi + (rand() - 0.5) * 200) * 4 + rand() * 4)))];
      if (target.fi === fi) return { local: files[fi].functions.find((x) => x.name === target.name), isMethod: false };
      return { remote: target };
    };
    const body = (owner, ownerLocal, startLine, signature) => {
      const out = [`${signature} {`];
      const calls = 2 + Math.floor(rand() * 4);
      for (let c = 0; c < calls; c++) {
        const callee = calleeFor(owner.name);
        const line = startLine + out.length;
        if (callee.local) {
          const name = callee.isMethod ? `this.${callee.local.name}` : callee.local.name;
          out.push(`  const r${c} = ${name}(input${c > 0 ? `, r${c - 1}` : ''});`);
          const q = callee.isMethod ? `${file.className}.${callee.local.name}` : callee.local.name;
          edges.push({ sourceLocalId: ownerLocal, type: 'calls', confidence: 'approximate', target: { key: key(`${q}()`), name, localId: callee.local.localId }, line });
        } else {
          const t = callee.remote;
          const mod = files[t.fi].module;
          out.push(`  const r${c} = ${t.name}(input${c > 0 ? `, r${c - 1}` : ''});`);
          edges.push({ sourceLocalId: ownerLocal, type: 'calls', confidence: 'approximate', target: { key: `?${t.name}`, name: t.name, modulePath: mod, importedName: t.name }, line });
          imports.set(`${mod}\u0000${t.name}`, { mod, name: t.name });
        }
      }
      if (rand() < 0.5) {
        const lib = pick(LIBRARY_CALLS);
        edges.push({ sourceLocalId: ownerLocal, type: 'calls', confidence: 'approximate', target: { key: `?${lib}`, name: lib }, line: startLine + out.length });
        out.push(`  ${lib}(r0);`);
      }
      out.push(`  return r${calls - 1};`, '}');
      return out;
    };
    const node = (localId, kind, name, qualifiedName, parentLocalId, startLine, text, signature, doc, modifiers, declIdx, parameterCount) => {
      const endLine = startLine + text.split('\n').length - 1;
      nodes.push({
        localId,
        kind,
        name,
        qualifiedName,
        symbolKey: key(kind === 'method' || kind === 'function' ? `${qualifiedName}()` : qualifiedName),
        disambiguator: 0,
        parentLocalId,
        span: { startLine, endLine, startByte: startLine * 40, endByte: endLine * 40 + 39 },
        signature,
        parameterCount,
        returnType: null,
        modifiers,
        isPublicApi: modifiers.includes('export'),
        doc,
        chunkText: text,
      });
      declOfNode.push(declIdx);
      if (parentLocalId) edges.push({ sourceLocalId: parentLocalId, type: 'contains', confidence: 'exact', target: { key: nodes.at(-1).symbolKey, name, localId }, line: startLine });
    };
    // Local ids first, so same-file calls can name their target.
    file.methods.forEach((m, i) => (m.localId = `m${i}`));
    file.functions.forEach((fn, i) => (fn.localId = `f${i}`));
    let line = 12;
    const typeText = rename(file.typeDecl.text, file.typeDecl.name, file.typeName).replace(/^(declare\s+)?/, 'export ');
    const typeSig = rename(file.typeDecl.signature, file.typeDecl.name, file.typeName).replace(/^(declare\s+)?/, 'export ');
    const deferred = [];
    deferred.push(() => {
      node('t0', file.typeDecl.kind, file.typeName, file.typeName, fileLocal, line, typeText, typeSig, file.typeDecl.doc, ['export'], file.typeIdx, null);
      line += typeText.split('\n').length + 1;
    });
    deferred.push(() => {
      const classSig = `export class ${file.className}`;
      const classStart = line;
      const methodTexts = [];
      let ml = line + 1;
      for (const m of file.methods) {
        const sig = rename(m.decl.signature, m.decl.name, m.name).replace(/^(declare\s+function\s+|function\s+)/, '').replace(/;$/, '');
        const text = body(m, m.localId, ml, `  ${sig}`).join('\n');
        methodTexts.push({ m, sig, text, start: ml });
        ml += text.split('\n').length;
      }
      const collapsed = [`${classSig} {`, ...methodTexts.map((x) => `  ${x.sig} { … }`), '}'].join('\n');
      const classEnd = ml;
      nodes.push({
        localId: 'c0',
        kind: 'class',
        name: file.className,
        qualifiedName: file.className,
        symbolKey: key(file.className),
        disambiguator: 0,
        parentLocalId: fileLocal,
        span: { startLine: classStart, endLine: classEnd, startByte: classStart * 40, endByte: classEnd * 40 + 39 },
        signature: classSig,
        parameterCount: null,
        returnType: null,
        modifiers: ['export'],
        isPublicApi: true,
        doc: file.classDecl.doc,
        chunkText: collapsed,
      });
      declOfNode.push(file.classIdx);
      edges.push({ sourceLocalId: fileLocal, type: 'contains', confidence: 'exact', target: { key: key(file.className), name: file.className, localId: 'c0' }, line: classStart });
      for (const x of methodTexts) {
        node(x.m.localId, 'method', x.m.name, `${file.className}.${x.m.name}`, 'c0', x.start, x.text, x.sig, x.m.decl.doc, [], x.m.declIdx, (x.sig.match(/,/g)?.length ?? 0) + 1);
      }
      line = classEnd + 2;
    });
    for (const fn of file.functions) {
      deferred.push(() => {
        const sig = `export function ${rename(fn.decl.signature, fn.decl.name, fn.name).replace(/^(declare\s+function\s+|function\s+)/, '').replace(/;$/, '')}`;
        const text = body(fn, fn.localId, line, sig).join('\n');
        node(fn.localId, 'function', fn.name, fn.name, fileLocal, line, text, sig, fn.decl.doc, ['export'], fn.declIdx, (sig.match(/,/g)?.length ?? 0) + 1);
        line += text.split('\n').length + 1;
      });
    }
    for (const run of deferred) run();
    const importLines = [...imports.values()].map((i) => `import { ${i.name} } from '${i.mod}';`);
    for (const i of imports.values()) {
      edges.push({ sourceLocalId: fileLocal, type: 'imports', confidence: 'exact', target: { key: `?${i.name}`, name: i.name, modulePath: i.mod, importedName: i.name, specifier: i.mod }, line: 1 });
    }
    const name = file.path.slice(file.path.lastIndexOf('/') + 1);
    const fileText = importLines.slice(0, 10).join('\n');
    nodes.unshift({
      localId: fileLocal,
      kind: 'file',
      name,
      qualifiedName: file.path,
      symbolKey: `ts:file:${file.path}#`,
      disambiguator: 0,
      parentLocalId: null,
      span: { startLine: 1, endLine: line, startByte: 0, endByte: line * 40 },
      signature: file.path,
      parameterCount: null,
      returnType: null,
      modifiers: [],
      isPublicApi: false,
      doc: null,
      chunkText: fileText,
    });
    declOfNode.splice(declOfNode.length - (nodes.length - 1), 0, -1);
    edgeCount += edges.length;
    const index = {
      path: file.path,
      language: 'ts',
      parseStatus: 'ok',
      generated: false,
      lineCount: line,
      nodes,
      edges,
      diagnostics: [],
      exports: [file.className, file.typeName, ...file.functions.map((x) => x.name)],
      reExports: [],
    };
    batch.push({
      path: file.path,
      contentHash: createHash('sha1').update(`${symbols}:${file.path}`).digest('hex'),
      language: 'ts',
      size: line * 40,
      lineCount: line,
      parseStatus: 'ok',
      statusReason: null,
      generated: false,
      project: '',
      mtimeMs: 0,
      extractor: 'syntactic:ts@bench',
      index,
    });
    if (batch.length >= 200) flush();
  });
  flush();
  const writeMs = performance.now() - writeMs0;
  const r0 = performance.now();
  const resolved = store.resolveImports('working');
  const resolveMs = performance.now() - r0;

  // Vectors: real base vectors, perturbed per node.
  const resolution = await embed.resolveModel({ model: 'all-MiniLM-L6-v2', model_dir: null, allow_download: false, batch_size: 32, enabled: true }, benchEnv());
  if (!resolution.ok) throw new Error(`embedding model unavailable: ${resolution.reason}`);
  const base = await baseVectors(decls, embed, resolution);
  const vs = new VectorStore(store.db);
  vs.ensureModel({ modelId: base.info.modelId, revision: base.info.revision, dims: base.info.dims });
  const ids = store.db.prepare(`SELECT id FROM nodes ORDER BY id`).pluck().all();
  const dims = base.info.dims;
  const gauss = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  const v0 = performance.now();
  for (let start = 0; start < ids.length; start += 4096) {
    const part = ids.slice(start, start + 4096);
    const entries = part.map((nodeId, k) => {
      const di = declOfNode[start + k];
      const b = base.vectors[di >= 0 ? di : Math.floor(rand() * base.vectors.length)];
      const o = base.vectors[Math.floor(rand() * base.vectors.length)];
      const a = rand() * 0.5;
      const v = new Float32Array(dims);
      let norm = 0;
      for (let d = 0; d < dims; d++) {
        v[d] = b[d] + a * o[d] + 0.03 * gauss();
        norm += v[d] * v[d];
      }
      norm = Math.sqrt(norm);
      for (let d = 0; d < dims; d++) v[d] /= norm;
      return { nodeId, hash: createHash('sha256').update(`synthetic:${symbols}:${nodeId}`).digest('hex'), vector: v };
    });
    vs.put(entries.map(({ hash, vector }) => ({ hash, vector })));
    vs.assignMany(entries.map(({ nodeId, hash }) => ({ nodeId, windows: [{ window: 0, hash }] })));
  }
  // As the engine does after embedding: build the vector index once so its snapshot is persisted.
  vs.warm();
  const vectorMs = performance.now() - v0;
  const counts = store.reader('working').counts();
  const resolvedCalls = store.db.prepare(`SELECT COUNT(*) FROM edges WHERE type = 'calls' AND target_id IS NOT NULL`).pluck().get();
  const calls = store.db.prepare(`SELECT COUNT(*) FROM edges WHERE type = 'calls'`).pluck().get();
  store.writer.setMetadata('last_indexed_at', new Date().toISOString());
  store.close();
  if (declOfNode.length !== ids.length) throw new Error(`node/declaration mismatch ${declOfNode.length} vs ${ids.length}`);
  return {
    dbPath,
    files: counts.files,
    symbols: counts.symbols,
    nodes: ids.length,
    edges: counts.edges,
    callEdges: calls,
    resolvedCallEdges: resolvedCalls,
    resolvedByResolver: resolved,
    hubs: hubs.length,
    baseTexts: decls.length,
    baseVectorsCached: base.cached,
    baseEmbedMs: Math.round(base.embedMs),
    writeMs: Math.round(writeMs),
    resolveMs: Math.round(resolveMs),
    vectorMs: Math.round(vectorMs),
    totalMs: Math.round(performance.now() - t0),
    hubNames: hubs.slice(0, 20).map((h) => `${files[h.fi].path}:${h.name}`),
  };
}
