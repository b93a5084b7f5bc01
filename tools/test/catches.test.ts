import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM script without types
import { catchesIn, checkCatches } from '../check-catches.mjs';

type Verdict = { line: number; used: boolean; throws: boolean; comment: boolean; swallows: boolean; violation: boolean };
const verdicts = (text: string, file = 'x.ts'): Verdict[] => catchesIn(text, file) as Verdict[];

describe('swallowing catch clauses', () => {
  it('a bare catch {} is a violation', () => {
    expect(verdicts('try { f(); } catch {}')).toEqual([{ line: 1, used: false, throws: false, comment: false, swallows: true, violation: true }]);
  });

  it('an unused variable with an empty block is a violation; so is a comment too short to say why', () => {
    const text = ['try {', '  f();', '} catch (e) {', '  // ignore', '}', 'try { g(); } catch (err) { return 1; }'].join('\n');
    expect(verdicts(text).map((v) => [v.line, v.violation])).toEqual([
      [3, true],
      [6, true],
    ]);
  });

  it('a rethrow, a used error and a why-comment pass', () => {
    const text = [
      'try { f(); } catch (e) { throw new Error("wrapped"); }', // line 1: rethrows (without using e)
      'try { f(); } catch { // a missing file means no cache yet',
      '  return undefined;',
      '}', // line 2: the comment on the catch line
      'try { f(); } catch (e) {',
      '  /* the watcher closed under us: nothing to report */',
      '}', // line 5: a block comment inside
      'try { f(); } catch (e) { log(e); }', // line 8: e is used
      'try { f(); } catch ({ message }) { log(message); }', // line 9: a destructured error is used
    ].join('\n');
    expect(verdicts(text).map((v) => [v.line, v.used, v.throws, v.comment, v.violation])).toEqual([
      [1, false, true, false, false],
      [2, false, false, true, false],
      [5, false, false, true, false],
      [8, true, false, false, false],
      [9, true, false, false, false],
    ]);
  });

  it('a throw inside a nested function and a comment-like string do not count', () => {
    const text = [
      'try { f(); } catch (e) { setTimeout(() => { throw new Error("later"); }); }',
      'try { f(); } catch { const s = "// not a comment at all"; }',
      'try { f(); } catch (e) { const g = (e: number) => e; }', // shadowed name still counts as a use (conservative)
    ].join('\n');
    expect(verdicts(text).map((v) => [v.line, v.violation])).toEqual([
      [1, true],
      [2, true],
      [3, false],
    ]);
  });

  it('reads JavaScript too', () => {
    expect(verdicts('try { f(); } catch {}\n', 'x.mjs').map((v) => v.violation)).toEqual([true]);
  });

  it('walks packages/*/src, apps/*/src and tools/ (not tools/test)', () => {
    const root = mkdtempSync(join(tmpdir(), 'ca-catches-'));
    const write = (rel: string, text: string): void => {
      mkdirSync(join(root, rel, '..'), { recursive: true });
      writeFileSync(join(root, rel), text);
    };
    write('packages/a/src/x.ts', 'try { f(); } catch {}\ntry { f(); } catch (e) { throw e; }\n');
    write('packages/a/test/x.test.ts', 'try { f(); } catch {}\n');
    write('packages/store/src/db.ts', 'try { f(); } catch {}\n');
    write('apps/b/src/y.ts', 'try { f(); } catch {\n  // the optional file is absent: defaults apply\n}\n');
    write('tools/z.mjs', '\n\ntry { f(); } catch {}\n');
    write('tools/test/t.test.ts', 'try { f(); } catch {}\n');
    // Tests are not walked: five catches in the three product files and tools/z.mjs; four swallow
    // (all but the rethrow); the commented one in apps/b is not a violation.
    expect(checkCatches(root)).toEqual({
      catches: 5,
      swallowing: 4,
      violations: [
        { file: 'packages/a/src/x.ts', line: 1 },
        { file: 'packages/store/src/db.ts', line: 1 },
        { file: 'tools/z.mjs', line: 3 },
      ],
    });
  });

  it('the workspace has no swallowing catch without a why-comment', () => {
    expect(checkCatches(resolve(__dirname, '../..')).violations).toEqual([]);
    // Parsing every source file takes seconds on a loaded machine: not a timing assertion.
  }, 120_000);
});
