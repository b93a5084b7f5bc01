/**
 * Adding a language names one package: a toy language (`.toy` files) registered through
 * `Engine.open(root, { languages })` is discovered, parsed, stored, resolved, navigated and
 * searched beside TypeScript, with no change to the engine or the store for it.
 *
 * The toy language: each `def NAME` line declares a function (its body runs to the next `def`);
 * `call NAME` calls a function of the same file, `call NAME from MODULE` one exported by the
 * module `MODULE` — a repo path without its extension, which the toy's module resolution turns
 * into `MODULE.toy`.
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { symbolKey, type ExtractedEdge, type ExtractedNode, type FileIndex, type LanguageAdapter, type LanguageSupport } from '@ca/schema';
import { BUILTIN_LANGUAGES, Engine } from '../src/index.js';
import { tempDir } from './helpers.js';

const key = (path: string, name: string, kind: 'file' | 'function') =>
  symbolKey({ language: 'toy', scope: { kind: 'file', path }, containers: [], name: kind === 'file' ? '' : name, kind, parameterTypes: null });

/** The toy extractor: a file node, a function node per `def`, a calls edge per `call`. */
function parseToy(path: string, text: string): FileIndex {
  const lines = text.split('\n');
  const nodes: ExtractedNode[] = [];
  const edges: ExtractedEdge[] = [];
  const node = (localId: string, name: string, kind: 'file' | 'function', start: number, end: number, parent: string | null): ExtractedNode => {
    const body = lines.slice(start - 1, end).join('\n');
    return {
      localId,
      kind,
      name,
      qualifiedName: name,
      symbolKey: key(path, name, kind),
      disambiguator: 0,
      parentLocalId: parent,
      span: { startLine: start, endLine: end, startByte: 0, endByte: 0 },
      signature: kind === 'file' ? name : `def ${name}`,
      parameterCount: kind === 'file' ? null : 0,
      returnType: null,
      modifiers: kind === 'file' ? [] : ['export'],
      isPublicApi: kind === 'function',
      doc: null,
      chunkText: body,
    };
  };
  nodes.push(node('f', path.slice(path.lastIndexOf('/') + 1), 'file', 1, lines.length, null));
  const defs = lines.flatMap((l, i) => (/^def (\w+)$/.exec(l.trim()) ? [{ name: l.trim().slice(4), line: i + 1 }] : []));
  defs.forEach((d, i) => nodes.push(node(`d${i}`, d.name, 'function', d.line, (defs[i + 1]?.line ?? lines.length + 1) - 1, 'f')));
  lines.forEach((l, i) => {
    const m = /^call (\w+)(?: from ([\w/]+))?$/.exec(l.trim());
    if (!m) return;
    const inDef = defs.findLastIndex((d) => d.line <= i + 1);
    if (inDef < 0) return;
    const local = m[2] === undefined ? defs.findIndex((d) => d.name === m[1]) : -1;
    edges.push({
      sourceLocalId: `d${inDef}`,
      type: 'calls',
      confidence: 'approximate',
      line: i + 1,
      target: { key: `?${m[1]}`, name: m[1]!, ...(local >= 0 ? { localId: `d${local}` } : {}), ...(m[2] !== undefined ? { modulePath: m[2], importedName: m[1]! } : {}) },
    });
  });
  return { path, language: 'toy', parseStatus: 'ok', generated: false, lineCount: lines.length, nodes, edges, diagnostics: [], exports: defs.map((d) => d.name), reExports: [] };
}

const toyAdapter: LanguageAdapter = {
  id: 'toy',
  extensions: ['.toy'],
  extractorVersion: '1',
  languageOf: (path) => (path.endsWith('.toy') ? 'toy' : null),
  parse: (file) => parseToy(file.path, file.text),
};

/** The whole registration: a descriptor (no worker entry: its files parse on the main thread). */
const toyLanguage: LanguageSupport = {
  id: 'toy',
  languages: ['toy'],
  extensions: ['.toy'],
  languageOf: (path) => (path.endsWith('.toy') ? 'toy' : null),
  createAdapter: () => Promise.resolve(toyAdapter),
  moduleResolution: { candidates: (modulePath) => [`${modulePath}.toy`] },
};

const FILES: Record<string, string> = {
  // lib/greet.toy (5 lines, the last empty): greetPlanet (lines 1–2) calls nothing; sayHello (3–5)
  // calls greetPlanet in-file (line 4).
  'lib/greet.toy': 'def greetPlanet\n  print planet\ndef sayHello\n  call greetPlanet\n',
  // app/main.toy: mainEntry (lines 1–3) calls sayHello from lib/greet (line 2) and greetPlanet (line 3).
  'app/main.toy': 'def mainEntry\n  call sayHello from lib/greet\n  call greetPlanet from lib/greet\n',
  // A TypeScript file beside them, indexed as before.
  'src/util.ts': 'export function shoutPlanet(s: string): string {\n  return s.toUpperCase();\n}\n',
};

describe('a toy language registered through Engine options', () => {
  let engine: Engine;
  let repo: string;
  beforeAll(async () => {
    repo = tempDir();
    for (const [path, text] of Object.entries(FILES)) {
      mkdirSync(join(repo, path, '..'), { recursive: true });
      writeFileSync(join(repo, path), text);
    }
    engine = Engine.open(repo, {
      env: {},
      configOverrides: { semantic: { enabled: false }, embedding: { enabled: false } },
      languages: [...BUILTIN_LANGUAGES, toyLanguage],
    });
    await engine.index();
  }, 120_000);
  afterAll(() => engine?.close());

  it('stores the toy files with their language, nodes and spans beside the TS file', () => {
    expect(engine.outline('lib/greet.toy').map((n) => [n.kind, n.name, n.language, n.startLine, n.endLine])).toEqual([
      ['file', 'greet.toy', 'toy', 1, 5],
      ['function', 'greetPlanet', 'toy', 1, 2],
      // The last def runs to the end of the file: line 5, the empty one after the final newline.
      ['function', 'sayHello', 'toy', 3, 5],
    ]);
    expect(engine.outline('app/main.toy').map((n) => [n.kind, n.name])).toEqual([
      ['file', 'main.toy'],
      ['function', 'mainEntry'],
    ]);
    expect(engine.outline('src/util.ts').map((n) => [n.kind, n.name, n.language])).toEqual([
      ['file', 'util.ts', 'ts'],
      ['function', 'shoutPlanet', 'ts'],
    ]);
  });

  it('callers follow same-file calls and calls resolved through the toy module resolution', () => {
    // greetPlanet: sayHello calls it in-file (greet.toy:4), mainEntry through `from lib/greet` (main.toy:3).
    expect(engine.navigate('callers', 'greetPlanet').edges.map((e) => `${e.path}:${e.line} ${e.confidence}`)).toEqual([
      'app/main.toy:3 approximate',
      'lib/greet.toy:4 approximate',
    ]);
    expect(engine.navigate('callers', 'sayHello').edges.map((e) => `${e.path}:${e.line}`)).toEqual(['app/main.toy:2']);
    expect(engine.navigate('callees', 'mainEntry').nodes.filter((n) => n.depth === 1).map((n) => n.name).sort()).toEqual(['greetPlanet', 'sayHello']);
  });

  it('search finds toy and TS symbols', async () => {
    const planet = await engine.search('greetPlanet');
    expect([planet.results[0]!.qualifiedName, planet.results[0]!.language, planet.results[0]!.path]).toEqual(['greetPlanet', 'toy', 'lib/greet.toy']);
    const shout = await engine.search('shoutPlanet');
    expect([shout.results[0]!.qualifiedName, shout.results[0]!.language]).toEqual(['shoutPlanet', 'ts']);
  });

  it('without the registration, .toy files are not indexed', async () => {
    const plain = Engine.open(repo, { env: {}, dbPath: join(tempDir(), 'plain.db'), configOverrides: { semantic: { enabled: false }, embedding: { enabled: false } } });
    try {
      const report = await plain.index();
      // Only src/util.ts: the two .toy files are not source files of any language.
      expect(report.files).toBe(1);
      expect(() => plain.outline('lib/greet.toy')).toThrowError(expect.objectContaining({ code: 'not_found' }));
    } finally {
      plain.close();
    }
  });

  it('two languages claiming one extension are config_invalid', () => {
    const clash: LanguageSupport = { ...toyLanguage, id: 'clash', languages: ['clash'] };
    expect(() => Engine.open(repo, { env: {}, dbPath: join(tempDir(), 'clash.db'), languages: [toyLanguage, clash] })).toThrowError(
      expect.objectContaining({ code: 'config_invalid', message: 'languages toy and clash both claim .toy files' }),
    );
  });
});
