import type { ExtractedNode } from '@ca/schema';
import { describe, expect, it } from 'vitest';
import { DeclarationChurn } from '../src/languages/csChurn.js';

function node(kind: ExtractedNode['kind'], name: string, symbolKey: string): ExtractedNode {
  return {
    localId: 'n1',
    kind,
    name,
    qualifiedName: name,
    symbolKey,
    disambiguator: 0,
    parentLocalId: null,
    span: { startLine: 1, endLine: 1, startByte: 0, endByte: 1 },
    signature: name,
    parameterCount: null,
    returnType: null,
    modifiers: [],
    isPublicApi: false,
    doc: null,
    chunkText: name,
  };
}

describe('DeclarationChurn', () => {
  it('counts a method that appears, never an endpoint (no compiler use binds to a route)', () => {
    const churn = new DeclarationChurn();
    churn.noteFile(
      [],
      [
        node('method', 'GetById', 'cs:global#Shop.OrdersController.GetById(int)'),
        node('endpoint', 'GET /api/orders/{id}', 'endpoint:GET /api/orders/{id}'),
      ],
    );
    expect([...churn.members]).toEqual(['GetById']);
    expect([...churn.types]).toEqual([]);
  });
});
