import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LanguageAdapter } from '@ca/schema';
import { blankOutside, createSfcAdapter, scriptBlocks } from '../src/index.js';

const FIXTURE = fileURLToPath(new URL('../../../fixtures/docs-config/', import.meta.url));

let adapter: LanguageAdapter;
beforeAll(async () => {
  adapter = await createSfcAdapter();
});
afterAll(() => adapter.dispose?.());

/** kind, qualified name, lines, bytes, and the file's own bytes at the span. */
async function symbols(path: string) {
  const text = readFileSync(FIXTURE + path, 'utf8');
  const index = await adapter.parse({ path, text });
  return {
    index,
    rows: index.nodes.slice(1).map((n) => [n.kind, n.qualifiedName, n.span.startLine, n.span.endLine, n.span.startByte, n.span.endByte, Buffer.from(text).subarray(n.span.startByte, n.span.endByte).toString('utf8')]),
  };
}

describe('single-file components', () => {
  it('indexes the <script setup lang="ts"> block of Counter.vue at its bytes in the .vue file', async () => {
    const { index, rows } = await symbols('web/Counter.vue');
    // Lines 1-3 are the template (line 2 holds "ä", 2 bytes), line 5 opens the script, line 10 is
    // `function increment…`. Bytes before line 10: "<template>\n" 11 + line 2 (57 characters, 58
    // bytes, with its newline 59) + "</template>\n" 12 + "\n" 1 + '<script setup lang="ts">\n' 25 +
    // "import { ref } from 'vue';\n" 27 + "\n" 1 + "const count = ref(0);\n" 22 + "\n" 1 = 159.
    expect(rows).toEqual([['function', 'increment', 10, 12, 159, 228, 'function increment(step: number = 1): void {\n  count.value += step;\n}']]);
    expect(index.language).toBe('vue');
    expect(index.nodes[1]!.symbolKey).toBe('vue:file:web/Counter.vue#increment(number)');
    // The import and the call in the script are edges; the template's `increment` is not code.
    expect(index.edges.map((e) => [e.type, e.target.name, e.line])).toEqual([
      ['contains', 'increment', 10],
      ['imports', 'ref', 6],
      ['calls', 'ref', 8],
    ]);
  });

  it('indexes a plain <script> of a .svelte component as JavaScript', async () => {
    const { index, rows } = await symbols('web/Hello.svelte');
    // "<script>\n" is 9 bytes, two spaces of indentation: `export let name` starts at 11.
    expect(rows).toEqual([
      ['variable', 'name', 2, 2, 11, 37, "export let name = 'world';"],
      ['function', 'greet', 3, 5, 40, 91, 'function greet() {\n    return `Hello ${name}!`;\n  }'],
    ]);
    expect([index.language, index.parseStatus]).toEqual(['svelte', 'ok']);
  });

  it('blanks everything outside the blocks to the same UTF-8 length, line breaks kept', () => {
    const text = '<p>é</p>\n<script>let a = 1;</script>\n😀';
    const blocks = scriptBlocks(text);
    expect(blocks).toEqual([{ attributes: '', start: 17, end: 27 }]);
    const blank = blankOutside(text, blocks);
    expect(Buffer.byteLength(blank)).toBe(Buffer.byteLength(text));
    expect(blank).toBe(`${' '.repeat(9)}\n${' '.repeat(8)}let a = 1;${' '.repeat(9)}\n${' '.repeat(4)}`);
  });

  it('a component without a script block has only its file node', async () => {
    const index = await adapter.parse({ path: 'A.vue', text: '<template><p>hi</p></template>\n' });
    expect([index.parseStatus, index.nodes.map((n) => n.kind)]).toEqual(['ok', ['file']]);
  });
});
