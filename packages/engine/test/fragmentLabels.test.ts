import { execFileSync } from 'node:child_process';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compare, prng } from './differential/lib.mjs';
import { Engine } from '../src/index.js';
import { tempDir } from './helpers.js';

// Differential test of labels over C# `partial` fragments (difference #19, decision 047): a
// seeded generator writes a sequence of commits that add, delete, move and edit fragments of two
// partial classes, then indexes labels at randomly drawn commits, one after another, into one
// index: commit labels (re-indexed at other commits too) and the working tree's label (the
// commit checked out, then indexed incrementally: deletions, promotions and refreshes). After every step, every label indexed so
// far must equal a clean index of its commit alone (store dump: files, node keys with spans and
// parents, edges, re-exports, full-text terms) — a step of one label must not change another's.

const GIT_ENV = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: GIT_ENV }).trim();
}

const PROJECT = '<Project Sdk="Microsoft.NET.Sdk">\n  <PropertyGroup>\n    <TargetFramework>net8.0</TargetFramework>\n  </PropertyGroup>\n</Project>\n';
// Where fragments may live: paths that sort before and after each other, one in a subfolder.
const PLACES = ['src/Orders.A.cs', 'src/Orders.B.cs', 'src/Orders.C.cs', 'src/Parts/Orders.D.cs', 'src/Z.cs'];
// Mostly one class, so that most commits merge several fragments of it.
const CLASSES = ['Orders', 'Orders', 'Orders', 'Invoices'];
// A file that is no fragment, the same in every commit (a version every label shares).
const CLIENT = 'namespace Shop;\n\npublic class Client\n{\n    public int Use(Orders o) => o.M0();\n}\n';
const ENGINE_OPTIONS = { env: {}, configOverrides: { embedding: { enabled: false }, semantic: { enabled: false } } };

interface Fragment {
  readonly id: number;
  readonly cls: string;
  path: string;
  value: number;
}

function fragmentText(f: Fragment): string {
  return `namespace Shop;\n\npublic partial class ${f.cls}\n{\n    public int M${f.id}() => ${f.value};\n}\n`;
}

/** Writes the repository and `commits` commits of fragment changes drawn with `seed`; returns the commits with what each did. */
function generate(repo: string, seed: number, commits: number): { sha: string; did: string }[] {
  const rng = prng(seed);
  const write = (rel: string, text: string) => {
    mkdirSync(dirname(join(repo, rel)), { recursive: true });
    writeFileSync(join(repo, rel), text);
  };
  const live: Fragment[] = [];
  let next = 0;
  const add = (): string => {
    const free = PLACES.filter((p) => !live.some((f) => f.path === p));
    const path = rng.pick(free);
    if (path === undefined) return 'nothing (no free place)';
    const f: Fragment = { id: next++, cls: rng.pick(CLASSES)!, path, value: 1 };
    live.push(f);
    write(f.path, fragmentText(f));
    return `add ${f.cls}.M${f.id} at ${f.path}`;
  };
  git(repo, 'init', '-q', '-b', 'main');
  write('src/Shop.csproj', PROJECT);
  write('src/Client.cs', CLIENT);
  add();
  add();
  add();
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'start');
  const out = [{ sha: git(repo, 'rev-parse', 'HEAD'), did: live.map((f) => `${f.cls}@${f.path}`).join(' ') }];
  for (let c = 1; c < commits; c++) {
    const did: string[] = [];
    for (let k = 0; k < 1 + rng.int(2); k++) {
      // Between two and four fragments: adds and deletes keep the other files' bytes (versions labels may share).
      const op = live.length < 2 ? 0 : live.length > 3 ? 1 + rng.int(3) : rng.int(4);
      const f = rng.pick(live);
      if (op === 0 || f === undefined) did.push(add());
      else if (op === 1) {
        live.splice(live.indexOf(f), 1);
        rmSync(join(repo, f.path));
        did.push(`delete ${f.path}`);
      } else if (op === 2) {
        const to = rng.pick(PLACES.filter((p) => !live.some((x) => x.path === p)));
        if (to === undefined) continue;
        mkdirSync(dirname(join(repo, to)), { recursive: true });
        renameSync(join(repo, f.path), join(repo, to));
        did.push(`move ${f.path} -> ${to}`);
        f.path = to;
      } else {
        f.value++;
        write(f.path, fragmentText(f));
        did.push(`edit ${f.path}`);
      }
    }
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '--allow-empty', '-m', did.join('; '));
    out.push({ sha: git(repo, 'rev-parse', 'HEAD'), did: did.join('; ') });
  }
  return out;
}

type Dump = ReturnType<Engine['store']['canonicalDump']>;

/** A clean index of `sha` alone (a clone of the repository, its own index), as a dump. */
async function cleanDump(repo: string, sha: string): Promise<Dump> {
  const clone = join(tempDir(), 'clean');
  git(dirname(repo), 'clone', '-q', repo, clone);
  const engine = Engine.open(clone, ENGINE_OPTIONS);
  try {
    await engine.indexCommit('clean', sha);
    return engine.store.canonicalDump('clean');
  } finally {
    engine.close();
    rmSync(clone, { recursive: true, force: true });
  }
}

const SEEDS = [1, 2, 3];
const COMMITS = 6;
const STEPS = 10;
const LABELS = ['a', 'b', 'working'];

describe('labels over C# partial fragments (seeded)', () => {
  for (const seed of SEEDS) {
    it(`seed ${seed}: after every label index, each label equals a clean index of its commit`, async () => {
      const repo = join(tempDir(), 'repo');
      mkdirSync(repo, { recursive: true });
      const commits = generate(repo, seed, COMMITS);
      const rng = prng(seed * 7919);
      const clean = new Map<string, Dump>();
      const engine = Engine.open(repo, ENGINE_OPTIONS);
      const at = new Map<string, number>();
      let merged = 0;
      try {
        for (let step = 1; step <= STEPS; step++) {
          const label = rng.pick(LABELS)!;
          const c = rng.int(commits.length);
          if (label === 'working') {
            git(repo, 'checkout', '-q', '--detach', commits[c]!.sha);
            await engine.index();
          } else await engine.indexCommit(label, commits[c]!.sha);
          at.set(label, c);
          for (const [l, ci] of at) {
            const sha = commits[ci]!.sha;
            if (!clean.has(sha)) clean.set(sha, await cleanDump(repo, sha));
            const expected = clean.get(sha)!;
            const diff = compare({ dump: expected, answers: new Map() }, { dump: engine.store.canonicalDump(l), answers: new Map() });
            const where = `seed ${seed} step ${step} (${label} @ commit ${c}): label ${l} @ commit ${ci} [${commits.map((x, i) => `${i}: ${x.did}`).join(' | ')}]`;
            expect(diff, where).toEqual([]);
            merged += [...expected.nodes.values()].filter((v) => !v.endsWith('spans=')).length;
          }
        }
      } finally {
        engine.close();
        rmSync(repo, { recursive: true, force: true });
      }
      // Not vacuous: the compared labels held merged classes (nodes with spans in other files).
      expect(merged).toBeGreaterThan(0);
    }, 600_000);
  }
});
