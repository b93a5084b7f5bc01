import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Engine } from '../src/index.js';
import { tempDir } from './helpers.js';

// Difference #19 (docs/reliability.md, decision 047): a merged C# `partial` class lives in the
// version of its first fragment's file, with spans in the others' versions; file versions were
// shared by labels when (path, content hash, extractor) matched, so a label whose fragments
// differ from another's took versions that belong to the other label's merge, and a merge or a
// promotion in one label rewrote versions the other held. dotnet/eShop: indexing `--label head`
// after `--label base` ended in `UNIQUE constraint failed: files.path, files.content_hash` (a
// refresh rewrote a version another label held). Each test here asserts what a clean index of
// each commit answers; all three failed before versions holding a fragment became their label's
// own (the first answered no `Shop.Orders` in head, the second threw that unique-key error, the
// third lost head's class to base's merge).

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } }).trim();
}

const PROJECT = '<Project Sdk="Microsoft.NET.Sdk">\n  <PropertyGroup>\n    <TargetFramework>net8.0</TargetFramework>\n  </PropertyGroup>\n</Project>\n';
// `Orders.A.cs` sorts first: its fragment gives the merged class its facts (a clean index inserts fragments in path order).
const FIRST = 'namespace Shop;\n\n/// <summary>Orders, first part.</summary>\npublic partial class Orders\n{\n    public int Count() => 1;\n}\n';
const SECOND = 'namespace Shop;\n\npublic partial class Orders\n{\n    public int Total() => Count() + 1;\n}\n';

describe('a version shared by two labels', () => {
  it('a partial fragment deleted in one label leaves the other label its version and both answer', async () => {
    const repo = join(tempDir(), 'repo');
    mkdirSync(join(repo, 'src'), { recursive: true });
    writeFileSync(join(repo, 'src/Shop.csproj'), PROJECT);
    writeFileSync(join(repo, 'src/Orders.A.cs'), FIRST);
    writeFileSync(join(repo, 'src/Orders.B.cs'), SECOND);
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'two fragments');
    const base = git(repo, 'rev-parse', 'HEAD');
    unlinkSync(join(repo, 'src/Orders.A.cs'));
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'first fragment deleted');
    const head = git(repo, 'rev-parse', 'HEAD');
    const engine = Engine.open(repo, { env: {}, configOverrides: { embedding: { enabled: false }, semantic: { enabled: false } } });
    try {
      await engine.indexCommit('base', base);
      const r = await engine.indexCommit('head', head);
      // head holds one source file, Orders.B.cs (a .csproj is project context, not an indexed file).
      expect([r.label, r.files]).toEqual(['head', 1]);
      // base: Orders is declared at Orders.A.cs line 4 (its first fragment); head: at Orders.B.cs line 3.
      const declared = (label: string) =>
        engine.findSymbols('Shop.Orders', label).filter((s) => s.qualifiedName === 'Shop.Orders').map((s) => `${s.path}:${s.startLine}`);
      expect(declared('base')).toEqual(['src/Orders.A.cs:4']);
      expect(declared('head')).toEqual(['src/Orders.B.cs:3']);
      // Both labels still read Orders.B.cs's bytes.
      expect(engine.source('Shop.Orders.Total', { label: 'base' }).code).toBe('public int Total() => Count() + 1;');
      expect(engine.source('Shop.Orders.Total', { label: 'head' }).code).toBe('public int Total() => Count() + 1;');
    } finally {
      engine.close();
      rmSync(repo, { recursive: true, force: true });
    }
  }, 120_000);

  it('a fragment deleted in the working tree promotes the other fragment while a commit label holds its bytes (the refresh path)', async () => {
    const repo = join(tempDir(), 'repo');
    mkdirSync(join(repo, 'src'), { recursive: true });
    writeFileSync(join(repo, 'src/Shop.csproj'), PROJECT);
    writeFileSync(join(repo, 'src/Orders.A.cs'), FIRST);
    writeFileSync(join(repo, 'src/Orders.B.cs'), SECOND);
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'two fragments');
    git(repo, 'rm', '-q', 'src/Orders.A.cs');
    git(repo, 'commit', '-q', '-m', 'first fragment deleted');
    const head = git(repo, 'rev-parse', 'HEAD');
    // The working tree back at two fragments (A restored, uncommitted): the working label merges A and B.
    writeFileSync(join(repo, 'src/Orders.A.cs'), FIRST);
    const engine = Engine.open(repo, { env: {}, configOverrides: { embedding: { enabled: false }, semantic: { enabled: false } } });
    try {
      await engine.index();
      // `head` holds Orders.B.cs alone, the same bytes as the working label's.
      await engine.indexCommit('head', head);
      // The working label loses its first fragment: the class's primary span goes to Orders.B.cs,
      // which is written again (`FileWrite.refresh`) — before, that rewrote the version `head`
      // also held and failed on the unique key when it put the real content hash back.
      unlinkSync(join(repo, 'src/Orders.A.cs'));
      const r = await engine.index();
      expect([r.label, r.files]).toEqual(['working', 1]);
      const declared = (label: string) =>
        engine.findSymbols('Shop.Orders', label).filter((s) => s.qualifiedName === 'Shop.Orders').map((s) => `${s.path}:${s.startLine}`);
      // Both labels now hold the tree of `head`: Orders declared at Orders.B.cs line 3 (`public partial class Orders`).
      expect(declared('working')).toEqual(['src/Orders.B.cs:3']);
      expect(declared('head')).toEqual(['src/Orders.B.cs:3']);
      // Its members are the class's in both: Total (Orders.B.cs line 5), Count gone with Orders.A.cs.
      for (const label of ['working', 'head']) {
        expect(engine.findSymbols('Shop.Orders.Total', label).map((s) => `${s.path}:${s.startLine}`)).toEqual(['src/Orders.B.cs:5']);
        expect(engine.findSymbols('Shop.Orders.Count', label).filter((s) => s.qualifiedName === 'Shop.Orders.Count')).toEqual([]);
      }
    } finally {
      engine.close();
      rmSync(repo, { recursive: true, force: true });
    }
  }, 120_000);

  it('a fragment added in a label indexed second does not move the class of the label indexed first', async () => {
    const repo = join(tempDir(), 'repo');
    mkdirSync(join(repo, 'src'), { recursive: true });
    writeFileSync(join(repo, 'src/Shop.csproj'), PROJECT);
    writeFileSync(join(repo, 'src/Orders.B.cs'), SECOND);
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'one fragment');
    const one = git(repo, 'rev-parse', 'HEAD');
    writeFileSync(join(repo, 'src/Orders.A.cs'), FIRST);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'a first fragment added');
    const two = git(repo, 'rev-parse', 'HEAD');
    const engine = Engine.open(repo, { env: {}, configOverrides: { embedding: { enabled: false }, semantic: { enabled: false } } });
    try {
      await engine.indexCommit('one', one);
      // Orders.A.cs sorts first: in `two` the class's primary span is its fragment's (a merge as
      // primary), which before moved the node `one` shares out of `one`'s files.
      await engine.indexCommit('two', two);
      const declared = (label: string) =>
        engine.findSymbols('Shop.Orders', label).filter((s) => s.qualifiedName === 'Shop.Orders').map((s) => `${s.path}:${s.startLine}`);
      expect(declared('one')).toEqual(['src/Orders.B.cs:3']);
      expect(declared('two')).toEqual(['src/Orders.A.cs:4']);
      // `one` has one fragment: no further spans; `two` has Orders.B.cs's class: lines 3–6, bytes
      // 17 (after `namespace Shop;\n\n`) to 87 (after the closing brace: 28 + 2 + 39 + 1 bytes on).
      const nodes = (label: string) => engine.store.canonicalDump(label, { fts: false }).nodes;
      const facts = (label: string, key: string) =>
        [...nodes(label)].filter(([k]) => k.includes(`|cs:global#${key}|`)).map(([k, v]) => `${k.split('|')[0]} ${v.split(' ¦ ').slice(-2).join(' ')}`);
      expect(facts('one', 'Shop.Orders')).toEqual(['src/Orders.B.cs parent=src/Orders.B.cs|cs:global#Shop|0 spans=']);
      expect(facts('two', 'Shop.Orders')).toEqual(['src/Orders.A.cs parent=src/Orders.A.cs|cs:global#Shop|0 spans=src/Orders.B.cs:3-6/17-87']);
      // Total's parent is each label's own class node.
      expect(facts('one', 'Shop.Orders.Total()')).toEqual(['src/Orders.B.cs parent=src/Orders.B.cs|cs:global#Shop.Orders|0 spans=']);
      expect(facts('two', 'Shop.Orders.Total()')).toEqual(['src/Orders.B.cs parent=src/Orders.A.cs|cs:global#Shop.Orders|0 spans=']);
    } finally {
      engine.close();
      rmSync(repo, { recursive: true, force: true });
    }
  }, 120_000);
});
