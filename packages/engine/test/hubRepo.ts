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
