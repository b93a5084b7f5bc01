import { describe, expect, it } from 'vitest';
import type { SnapshotFile, SnapshotNode } from '@ca/store';
import { versionPayloads } from '../src/payload.js';

// The team store keys a file version by (path, blob id, digest of its facts) — decision 036. A C#
// `partial` fragment's facts depend on the merge it belongs to (decision 047): the same bytes of
// `Orders.B.cs` are members of a class declared in `Orders.A.cs` in one label and the class's
// only fragment in another. The local index now keeps a version per merge context; the digest
// must tell the two apart too (it does: nodes, parents and spans are in it), so no key change is
// needed on the server. Pure function: no PostgreSQL.

const FILE_B: SnapshotFile = {
  fileId: 2, path: 'src/Orders.B.cs', contentHash: 'blob-b', language: 'csharp', size: 91, lineCount: 6, parseStatus: 'ok',
  statusReason: null, generated: false, project: 'src/Shop.csproj', semanticState: 'none', semanticReason: null, extractor: 'syntactic:cs@1',
};

function node(id: number, fileId: number, parentId: number | null, kind: string, name: string, line: number): SnapshotNode {
  return {
    id, fileId, parentId, kind, language: 'csharp', name, qualifiedName: `Shop.${name}`, symbolKey: `cs:global#Shop.${name}`, disambiguator: 0,
    project: 'src/Shop.csproj', startLine: line, endLine: line, startByte: 0, endByte: 10, signature: name, parameterCount: null, returnType: null,
    modifiers: 'public', attributes: null, isPublicApi: true, doc: null, generated: false, chunkText: name, chunkHash: `h-${name}`,
  };
}

describe('a fragment file version on the team store', () => {
  it('gets another digest in another merge context, the same in the same one', () => {
    const pathOf = new Map([[1, 'src/Orders.A.cs'], [2, 'src/Orders.B.cs']]);
    // Label `base`: Orders is node 1 of Orders.A.cs; Orders.B.cs holds its member Total and a span of it.
    const inBase = () => versionPayloads([FILE_B], {
      nodes: [node(20, 2, 1, 'method', 'Orders.Total', 5)],
      spans: [],
      reexports: [],
      vectors: [],
    }, pathOf, new Map());
    // Label `head` (Orders.A.cs deleted): Orders.B.cs declares Orders itself, Total its child.
    const inHead = versionPayloads([FILE_B], {
      nodes: [node(30, 2, null, 'class', 'Orders', 3), node(31, 2, 30, 'method', 'Orders.Total', 5)],
      spans: [],
      reexports: [],
      vectors: [],
    }, pathOf, new Map());
    expect(inBase()[0]!.digest).not.toBe(inHead[0]!.digest);
    expect(inBase()[0]!.digest).toBe(inBase()[0]!.digest);
    // The member's parent is outside the file in `base` (no ordinal), the class's own node in `head`.
    expect(inBase()[0]!.nodes.map((n) => n.parentOrdinal)).toEqual([null]);
    expect(inHead[0]!.nodes.map((n) => n.parentOrdinal)).toEqual([null, 0]);
  });
});
