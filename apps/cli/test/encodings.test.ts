/**
 * `ca view` and `ca source` on a file that is not UTF-8 (decision 025), through the built CLI:
 * the whole-file view writes the file's own bytes, `source` prints the symbol's decoded text.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, cleanEnv } from './helpers.js';

/** The CLI's stdout as bytes (the shared helper decodes it as UTF-8, which would hide a byte change). */
function caBytes(args: string[], cwd: string): { code: number | null; stdout: Buffer } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, env: cleanEnv({ CA_SEMANTIC_ENABLED: 'false', CA_EMBEDDING_ENABLED: 'false' }), timeout: 120_000 });
  return { code: r.status, stdout: r.stdout };
}

describe('ca view / ca source on a Windows-1252 file', () => {
  it('views the file byte for byte and shows the symbol decoded', () => {
    const repo = mkdtempSync(join(tmpdir(), 'ca-enc-'));
    mkdirSync(join(repo, 'src'));
    // `// café “quoted” €` and `naïve` in Windows-1252: 0xE9, 0x93/0x94, 0x80 and 0xEF are not valid UTF-8.
    const latin = Buffer.from('// caf\xe9 \x93quoted\x94 \x80\nexport function latinOneFunction(): string {\n  return "na\xefve";\n}\n', 'latin1');
    writeFileSync(join(repo, 'src/latin.ts'), latin);
    expect(caBytes(['index'], repo).code).toBe(0);
    const view = caBytes(['view', 'src/latin.ts'], repo);
    expect(view.code).toBe(0);
    expect(view.stdout.equals(readFileSync(join(repo, 'src/latin.ts')))).toBe(true);
    const source = caBytes(['source', 'latinOneFunction'], repo);
    expect(source.code).toBe(0);
    expect(source.stdout.toString('utf8')).toBe('// latinOneFunction — src/latin.ts:2-4\nexport function latinOneFunction(): string {\n  return "naïve";\n}\n');
    const json = JSON.parse(caBytes(['view', 'src/latin.ts', '--json'], repo).stdout.toString('utf8')) as { encoding: string; text: string };
    expect([json.encoding, json.text]).toEqual(['windows-1252', '// café “quoted” €\nexport function latinOneFunction(): string {\n  return "naïve";\n}\n']);
  });
});
