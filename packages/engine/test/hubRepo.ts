import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './helpers.js';

/**
 * A hub with five callers and a function with five callees, whose names run against the order
 * the index holds their edges in: `a.ts`…`e.ts` hold `zulu`…`victor`, each calling `hub`, and
 * `omega` calls `zulu`, `yankee`, `xray`, `whiskey`, `victor` in that order. `hub` also calls
 * itself.
 * Written for factsOrder.test.ts and the team store's facts test (teamSearch.test.ts).
 */
export function writeHubRepo(): string {
  const repo = join(tempDir(), 'hub');
  mkdirSync(join(repo, 'src'), { recursive: true });
  const callers = ['zulu', 'yankee', 'xray', 'whiskey', 'victor'];
  writeFileSync(join(repo, 'package.json'), '{ "name": "hub-fixture", "version": "1.0.0" }\n');
  writeFileSync(join(repo, 'src/hub.ts'), 'export function hub(n: number): number {\n  return n > 0 ? hub(n - 1) : 0;\n}\n');
  callers.forEach((name, i) => {
    writeFileSync(join(repo, `src/${'abcde'[i]}.ts`), `import { hub } from './hub';\n\nexport function ${name}(): number {\n  return hub(${i}) + hub(${i + 1});\n}\n`);
  });
  writeFileSync(join(repo, 'src/omega.ts'), `${callers.map((c, i) => `import { ${c} } from './${'abcde'[i]}';`).join('\n')}\n\nexport function omega(): number {\n  return ${callers.map((c) => `${c}()`).join(' + ')};\n}\n`);
  return repo;
}

const WORDS = ['amber', 'basil', 'cedar', 'delta', 'ember', 'fjord', 'gamma', 'hazel', 'iris', 'juniper', 'kelp', 'lumen', 'maple', 'nadir', 'onyx', 'pixel', 'quartz', 'raven', 'sable', 'tundra', 'umber', 'vortex', 'willow', 'xenon', 'yarrow', 'zephyr'];

/**
 * A generated call graph (seeded): `files` TS files of five functions each, named from a shuffled
 * word list (so names and storage order disagree), each calling up to six functions of any file
 * (itself now and then, some twice), plus `copies` identical copies of `twin.ts` (one function):
 * identical code in more places than a result lists. Returns the root and every function's name.
 */
export function writeRandomRepo(seed: number, random: () => number, files = 8, copies = 23): { root: string; names: string[] } {
  const root = join(tempDir(), `random-${seed}`);
  mkdirSync(join(root, 'src'), { recursive: true });
  writeFileSync(join(root, 'package.json'), `{ "name": "random-${seed}", "version": "1.0.0" }\n`);
  const pool = WORDS.flatMap((w) => WORDS.map((v) => `${w}${v[0]!.toUpperCase()}${v.slice(1)}`));
  const names: string[] = [];
  while (names.length < files * 5) {
    const n = pool[Math.floor(random() * pool.length)]!;
    if (!names.includes(n)) names.push(n);
  }
  const fileOf = (name: string) => `f${Math.floor(names.indexOf(name) / 5)}`;
  for (let f = 0; f < files; f++) {
    const own = names.slice(f * 5, f * 5 + 5);
    const bodies = own.map((name) => {
      const calls = Array.from({ length: Math.floor(random() * 7) }, () => names[Math.floor(random() * names.length)]!);
      return { name, calls };
    });
    const imported = [...new Set(bodies.flatMap((b) => b.calls))].filter((c) => !own.includes(c)).sort();
    const byFile = new Map<string, string[]>();
    for (const c of imported) byFile.set(fileOf(c), [...(byFile.get(fileOf(c)) ?? []), c]);
    const head = [...byFile].map(([file, list]) => `import { ${list.join(', ')} } from './${file}';`).join('\n');
    const code = bodies.map((b) => `export function ${b.name}(n: number): number {\n  return n${b.calls.map((c) => ` + ${c}(n - 1)`).join('')};\n}\n`).join('\n');
    writeFileSync(join(root, `src/f${f}.ts`), `${head}\n\n${code}`);
  }
  for (let c = 0; c < copies; c++) {
    mkdirSync(join(root, `copies/c${String(c).padStart(2, '0')}`), { recursive: true });
    writeFileSync(join(root, `copies/c${String(c).padStart(2, '0')}/twin.ts`), 'export function twin(): number {\n  return 2;\n}\n');
  }
  return { root, names };
}
