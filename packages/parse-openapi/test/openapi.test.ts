import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MAX_DOCUMENT_CHARS, normalizeOperationPath, openApiLanguageOf, parseOpenApiFile } from '../src/index.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');

/** `METHOD path | key | signature | lines` of each operation node, in document order. */
function operations(text: string, path = 'api/openapi.json') {
  const r = parseOpenApiFile({ path, text });
  return {
    status: r.parseStatus,
    diagnostics: r.diagnostics.map((d) => `${d.severity} ${d.code}: ${d.message}${d.line ? ` @${d.line}` : ''}`),
    ops: r.nodes.filter((n) => n.kind === 'endpoint').map((n) => `${n.name} | ${n.signature} | ${n.span.startLine}-${n.span.endLine} | ${JSON.stringify(text.slice(n.span.startByte, n.span.endByte))}`),
    edges: r.edges.filter((e) => e.type === 'handles').map((e) => `${e.sourceLocalId} ${e.confidence} ${e.target.key}`),
    keys: r.nodes.filter((n) => n.kind === 'endpoint').map((n) => n.symbolKey),
  };
}

describe('openApiLanguageOf: documents by file name (decision 049)', () => {
  it('claims the OpenAPI/Swagger file names, case-insensitively, and no other JSON/YAML', () => {
    expect(['a/openapi.json', 'OpenAPI.yaml', 'x/swagger.yml', 'src/Web/wwwroot/api/specification.json', 'Swagger.JSON'].map(openApiLanguageOf)).toEqual(['openapi', 'openapi', 'openapi', 'openapi', 'openapi']);
    expect(['package.json', 'openapi.ts', 'tsconfig.json', 'docs/openapi.md', 'my-openapi.json'].map(openApiLanguageOf)).toEqual([null, null, null, null, null]);
  });
});

describe('parseOpenApiFile', () => {
  it('OpenAPI 3 (JSON): one node per operation, server path prefixed, normalised, operationId and tags, exact spans', () => {
    // Lines: 1 `{`, 2 openapi, 3 servers, 4 paths, 5 `/Orders/{id:int}` (constraint stripped, literal lower-cased),
    // 6 get, 7 delete (no operationId), 8 `}`, 9 `/orders//`, 10 post, 11 summary (not a method), 12-14 close.
    const text = [
      '{',
      '  "openapi": "3.0.1",',
      '  "servers": [{ "url": "https://shop.example.com/api/" }],',
      '  "paths": {',
      '    "/Orders/{id:int}": {',
      '      "get": { "operationId": "Orders_Get", "tags": ["Orders", "Read only"] },',
      '      "delete": {}',
      '    },',
      '    "/orders//": {',
      '      "post": { "operationId": "create order" },',
      '      "summary": "not an operation"',
      '    }',
      '  }',
      '}',
    ].join('\n');
    const r = operations(text);
    expect(r.status).toBe('ok');
    expect(r.diagnostics).toEqual([]);
    expect(r.ops).toEqual([
      'GET /api/orders/{id} | GET /api/orders/{id} (operation Orders_Get; tags Orders, Read only) | 6-6 | "\\"get\\": { \\"operationId\\": \\"Orders_Get\\", \\"tags\\": [\\"Orders\\", \\"Read only\\"] }"',
      'DELETE /api/orders/{id} | DELETE /api/orders/{id} | 7-7 | "\\"delete\\": {}"',
      // A space in an operationId would split the signature's words: it becomes `_`.
      'POST /api/orders | POST /api/orders (operation create_order) | 10-10 | "\\"post\\": { \\"operationId\\": \\"create order\\" }"',
    ]);
    expect(r.keys).toEqual(['contract:GET /api/orders/{id}', 'contract:DELETE /api/orders/{id}', 'contract:POST /api/orders']);
    // Each operation has one unresolved `handles` edge (n1..n3 are the operations, n0 the file).
    expect(r.edges).toEqual(['n1 approximate operation:GET /api/orders/{id}', 'n2 approximate operation:DELETE /api/orders/{id}', 'n3 approximate operation:POST /api/orders']);
  });

  it('Swagger 2.0 (YAML): basePath prefixed, spans over the block, a server variable default in OpenAPI 3', () => {
    const yaml = ['swagger: "2.0"', 'basePath: /v1', 'paths:', '  /pets/{petId}:', '    get:', '      operationId: showPetById', '      tags: [pets]', '    put:', '      operationId: updatePet'].join('\n');
    expect(operations(yaml, 'swagger.yaml').ops).toEqual([
      'GET /v1/pets/{petId} | GET /v1/pets/{petId} (operation showPetById; tags pets) | 5-7 | "get:\\n      operationId: showPetById\\n      tags: [pets]"',
      'PUT /v1/pets/{petId} | PUT /v1/pets/{petId} (operation updatePet) | 8-9 | "put:\\n      operationId: updatePet"',
    ]);
    const v3 = ['openapi: 3.1.0', 'servers:', '  - url: "{scheme}://h/{base}"', '    variables:', '      base: { default: api/v2 }', 'paths:', '  /x:', '    get: {}'].join('\n');
    expect(operations(v3, 'openapi.yaml').ops).toEqual(['GET /api/v2/x | GET /api/v2/x | 8-8 | "get: {}"']);
  });

  it('malformed documents: a clear per-file reason, no operation', () => {
    expect(operations('{ "openapi": "3.0.0", "paths": { ').diagnostics[0]).toMatch(/^error openapi_syntax: not valid JSON\/YAML: /);
    expect(operations('{ "openapi": "3.0.0", "paths": { ').status).toBe('error');
    expect(operations('{ "openapi": "4.0.0", "paths": {} }')).toMatchObject({ status: 'error', ops: [], diagnostics: ['error openapi_version: unknown OpenAPI version "4.0.0": OpenAPI 3.x and Swagger 2.0 are read'] });
    expect(operations('{ "swagger": "1.2" }')).toMatchObject({ status: 'error', diagnostics: ['error openapi_version: unknown Swagger version "1.2": OpenAPI 3.x and Swagger 2.0 are read'] });
    expect(operations('{ "name": "not a document" }')).toMatchObject({ status: 'error', diagnostics: ['error openapi_not_a_document: no "openapi: 3.x" or "swagger: 2.0" at the root: not an OpenAPI document'] });
    expect(operations('[1, 2]')).toMatchObject({ status: 'error', diagnostics: ['error openapi_not_a_document: the root is not an object: not an OpenAPI document'] });
    // Duplicate keys are a JSON/YAML error the parser reports.
    expect(operations('{ "openapi": "3.0.0", "openapi": "3.0.1" }').status).toBe('error');
  });

  it('$ref: local path items followed, cycles and other files not (partial, each with its reason)', () => {
    const text = JSON.stringify({
      openapi: '3.1.0',
      paths: {
        '/a': { $ref: '#/components/pathItems/A' },
        '/loop': { $ref: '#/components/pathItems/L1' },
        '/ext': { $ref: '../../outside/secret.yaml#/paths/~1x' },
        '/gone': { $ref: '#/components/pathItems/Nope' },
      },
      components: { pathItems: { A: { get: { operationId: 'getA' } }, L1: { $ref: '#/components/pathItems/L2' }, L2: { $ref: '#/components/pathItems/L1' } } },
    });
    const r = operations(text);
    expect(r.status).toBe('partial');
    expect(r.ops.map((o) => o.split(' | ')[1])).toEqual(['GET /a (operation getA)']);
    expect(r.diagnostics).toEqual([
      'warning openapi_ref_cycle: path "/loop": $ref cycle through "#/components/pathItems/L1": skipped',
      'warning openapi_external_ref: path "/ext" refers to "../../outside/secret.yaml#/paths/~1x" in another file: not followed',
      'warning openapi_ref_missing: path "/gone" refers to "#/components/pathItems/Nope", which the document does not have: skipped',
    ]);
  });

  it('a document over the reader limit is refused with the reason, before parsing', () => {
    // One character over the limit; the content would parse, the size alone refuses it.
    const text = `{"openapi":"3.0.0","paths":{},"x":"${'a'.repeat(MAX_DOCUMENT_CHARS)}"}`;
    const r = parseOpenApiFile({ path: 'openapi.json', text });
    expect(r.parseStatus).toBe('skipped');
    expect(r.nodes.map((n) => n.kind)).toEqual(['file']);
    expect(r.diagnostics.map((d) => d.code)).toEqual(['openapi_too_large']);
    expect(r.diagnostics[0]!.message).toBe(`OpenAPI document of ${text.length} characters, over the ${MAX_DOCUMENT_CHARS} the contract reader parses: not read`);
  });

  it('UTF-8 spans are byte offsets', () => {
    // `é` is 2 bytes: the operation starts one byte after its character offset.
    const text = '{"openapi":"3.0.0","info":{"title":"é"},"paths":{"/x":{"get":{}}}}';
    const r = parseOpenApiFile({ path: 'openapi.json', text });
    const op = r.nodes.find((n) => n.kind === 'endpoint')!;
    expect(Buffer.from(text, 'utf8').subarray(op.span.startByte, op.span.endByte).toString('utf8')).toBe('"get":{}');
  });

  it('the fullstack fixture document: 25 operations, none dropped', () => {
    const text = readFileSync(join(ROOT, 'fixtures/fullstack/backend/openapi.json'), 'utf8');
    const r = operations(text, 'backend/openapi.json');
    expect([r.status, r.diagnostics, r.ops.length]).toEqual(['ok', [], 25]);
    // The path item reached through `$ref` keeps the span of its definition (line 73, under components).
    expect(r.ops.find((o) => o.startsWith('POST /api/v2/carts'))!.split(' | ')[2]).toBe('73-73');
  });
});

describe('normalizeOperationPath', () => {
  it('the C# endpoints normal form (decision 037)', () => {
    expect(normalizeOperationPath('/x/{id:int?}/{y=5}')).toBe('/x/{id?}/{y}');
    expect(['orders', '/Orders/{Id}/', '//a//b', '/x/{id:int}', '/x/{**rest}', '/a b', '/'].map(normalizeOperationPath)).toEqual(['/orders', '/orders/{Id}', '/a/b', '/x/{id}', '/x/{*rest}', '/a%20b', '/']);
  });
});
