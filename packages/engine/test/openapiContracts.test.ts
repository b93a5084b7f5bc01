/**
 * OpenAPI documents end to end (decision 049) on a repository built at test time: discovery by
 * file name, bad documents reported per file with the rest indexed, a 50 MB document refused
 * (by discovery's size cap, and by the contract reader's own limit when the cap is raised), and a
 * generated client linked to an operation when no C# endpoint serves it.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../src/index.js';
import { tempDir } from './helpers.js';

const FIFTY_MB = 50 * 1024 * 1024;

const LINE = `"d":"${'x'.repeat(95)}",\n`;

/** A syntactically valid OpenAPI document of about `bytes` bytes, in lines of 100 (not "minified": the size alone refuses it). */
function bigDocument(bytes: number): string {
  return `{"openapi":"3.0.0","paths":{"/big":{"get":{}}},"x-filler":{\n${LINE.repeat(Math.ceil(bytes / LINE.length))}"end":""}}`;
}
const BIG = bigDocument(FIFTY_MB);

function write(root: string, path: string, text: string): void {
  mkdirSync(join(root, path, '..'), { recursive: true });
  writeFileSync(join(root, path), text);
}

function repo(): string {
  const root = join(tempDir(), 'repo');
  write(root, 'api/openapi.yaml', ['openapi: 3.0.3', 'servers:', '  - url: https://x.example.com/api', 'paths:', '  /orders/{id}:', '    get:', '      operationId: getOrder', ''].join('\n'));
  write(root, 'broken/swagger.json', '{ "swagger": "2.0", "paths": { ');
  write(root, 'future/openapi.json', '{ "openapi": "4.0.0", "paths": {} }');
  write(root, 'notes/specification.json', '{ "name": "not an API document" }');
  // Not one of the names: never opened, not indexed.
  write(root, 'other/api-v2.json', '{ "openapi": "3.0.0", "paths": { "/x": { "get": {} } } }');
  write(root, 'big/openapi.json', BIG);
  write(root, 'web/client.ts', "export function order(id: number) { return api.GET('/api/orders/{id}', { params: { path: { id } } }); }\n");
  return root;
}

const OPTIONS = { env: {}, configOverrides: { semantic: { enabled: false }, embedding: { enabled: false } } };

describe('OpenAPI documents in a repository', () => {
  let root: string;
  beforeAll(() => {
    root = repo();
  });
  afterAll(() => rmSync(join(root, '..'), { recursive: true, force: true }));

  it('indexes the good document, reports each bad one with its reason, refuses the 50 MB one, and links the client to the operation', async () => {
    const engine = Engine.open(root, OPTIONS);
    try {
      await engine.index();
      const status = engine.status();
      const problems = status.problems.filter((p) => !p.path.startsWith('web/')).map((p) => `${p.path} ${p.status} ${p.reason}`);
      const size = BIG.length;
      expect(problems.sort()).toEqual(
        [
          // Discovery's size cap (indexing.max_file_bytes, 1 MiB by default) refuses it before any read.
          `big/openapi.json skipped file is ${size} bytes, over indexing.max_file_bytes (1048576)`,
          // The yaml library's message for an unclosed `{` (JSON is read as YAML's flow style).
          'broken/swagger.json error not valid JSON/YAML: Flow map in block collection must be sufficiently indented and end with a }',
          'future/openapi.json error unknown OpenAPI version "4.0.0": OpenAPI 3.x and Swagger 2.0 are read',
          'notes/specification.json error no "openapi: 3.x" or "swagger: 2.0" at the root: not an OpenAPI document',
        ].sort(),
      );
      const routes = engine.routes().routes.map((r) => `${r.name} ${r.path}:${r.line} ${r.contract?.operationId} clients ${r.clients}`);
      // servers' /api prefixed; the only operation read (other/api-v2.json is not a discovered name).
      expect(routes).toEqual(['GET /api/orders/{id} api/openapi.yaml:6 getOrder clients 1']);
      // No C# endpoint: the openapi-fetch call links to the operation, exact (the method and every segment match).
      const callers = engine.navigate('callers', 'GET /api/orders/{id}');
      expect(callers.edges.map((e) => `${e.type} ${e.confidence} ${e.path}:${e.line}`)).toEqual(['http_calls exact web/client.ts:1']);
    } finally {
      engine.close();
    }
  }, 300_000);

  it('with the size cap raised, the contract reader refuses the 50 MB document itself, with its reason', async () => {
    const engine = Engine.open(root, { ...OPTIONS, configOverrides: { ...OPTIONS.configOverrides, indexing: { max_file_bytes: 64 * 1024 * 1024 } } });
    try {
      await engine.index();
      const big = engine.status().problems.find((p) => p.path === 'big/openapi.json');
      const chars = BIG.length;
      expect(big).toEqual({ path: 'big/openapi.json', status: 'skipped', reason: `OpenAPI document of ${chars} characters, over the ${8 * 1024 * 1024} the contract reader parses: not read` });
      // The rest is indexed as before.
      expect(engine.routes().routes.map((r) => r.name)).toEqual(['GET /api/orders/{id}']);
    } finally {
      engine.close();
    }
  }, 300_000);
});
