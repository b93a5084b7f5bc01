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

  it('a version continued into another project: its unchanged keys count as gone and new (difference 20); the same project: nothing', () => {
    const cls = node('class', 'Stamp', 'cs:global#Acme.Tools.Stamp');
    const mark = { ...node('method', 'Mark', 'cs:global#Acme.Tools.Stamp.Mark(string)'), localId: 'n2', parentLocalId: 'n1' };
    const previous = (project: string) => [
      { id: 1, symbolKey: cls.symbolKey, disambiguator: 0, kind: 'class', chunkHash: 'h1', otherSpans: 0, project, name: 'Stamp' },
      { id: 2, symbolKey: mark.symbolKey, disambiguator: 0, kind: 'method', chunkHash: 'h2', otherSpans: 0, project, name: 'Mark' },
    ];
    const moved = new DeclarationChurn();
    moved.noteFile(previous('src/Acme.Tools/Acme.Tools.csproj'), [cls, mark], 'src/Acme.App/Acme.App.csproj');
    expect([...moved.types]).toEqual(['Stamp']);
    expect([...moved.members]).toEqual(['Mark']);
    expect([...moved.owners]).toEqual(['Stamp']);
    const stayed = new DeclarationChurn();
    stayed.noteFile(previous('src/Acme.App/Acme.App.csproj'), [cls, mark], 'src/Acme.App/Acme.App.csproj');
    expect([...stayed.types]).toEqual([]);
    expect([...stayed.members]).toEqual([]);
  });
});
