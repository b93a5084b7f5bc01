import { describe, expect, it } from 'vitest';
import { Store } from '../src/index.js';
import { fileWrite, keyPlanner, node } from './helpers.js';

/**
 * OrdersController.cs as the C# extractor writes it: the method `GetById` spans lines 14-15 and
 * the endpoint its attribute `[HttpGet("{id:int}")]` produces spans line 14 alone, a child of the
 * file (decision 037). A compiler use reported at line 14 belongs to the method.
 */
describe('NodeLocator', () => {
  it('never places a use on an endpoint node, though its span is the narrowest', () => {
    const store = Store.open(':memory:');
    const path = 'Controllers/OrdersController.cs';
    store.writer.writeBatch(
      'working',
      [
        fileWrite(
          path,
          'h1',
          [
            node({ localId: 'f', name: 'OrdersController.cs', kind: 'file', symbolKey: `cs:file:${path}#`, span: { startLine: 1, endLine: 20, startByte: 0, endByte: 400 } }),
            node({ localId: 'm', name: 'GetById', kind: 'method', parentLocalId: 'f', symbolKey: 'cs:global#OrdersController.GetById(int)', span: { startLine: 14, endLine: 15, startByte: 200, endByte: 300 } }),
            node({ localId: 'e', name: 'GET /api/orders/{id}', kind: 'endpoint', parentLocalId: 'f', symbolKey: 'endpoint:GET /api/orders/{id}', span: { startLine: 14, endLine: 14, startByte: 205, endByte: 225 } }),
          ],
          [],
          { language: 'cs' },
        ),
      ],
      keyPlanner,
    );
    const located = store.semantic.locator('working').locate(path, 14);
    expect([located?.kind, located?.name]).toEqual(['method', 'GetById']);
    store.close();
  });
});
