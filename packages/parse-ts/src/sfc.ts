/**
 * Single-file components (`.vue`, `.svelte`): their `<script>` blocks (`<script setup>`,
 * `<script lang="ts">`, Svelte's `<script context="module">`) parsed with the TS/JS grammar.
 * Everything outside the blocks is blanked to spaces of the same UTF-8 length (line breaks kept),
 * so the script code keeps its exact lines and byte offsets in the file: a symbol's span is its
 * bytes in the `.vue` file, with no mapping table to get wrong.
 */
import { CaError, extensionOf, type FileIndex, type Language, type LanguageAdapter, type SourceFile } from '@ca/schema';
import { createTsParser, TS_EXTRACTOR_VERSION, type Grammar, type TsAdapterOptions } from './adapter.js';

/** Extensions of single-file components, lower case with dot. */
export const SFC_EXTENSIONS: readonly string[] = ['.vue', '.svelte'];

const SCRIPT_BLOCK = /<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi;
const LANG_ATTRIBUTE = /\blang\s*=\s*["']?([a-z]+)/i;

/** A script block: its attributes and the character range of its content. */
export interface ScriptBlock {
  readonly attributes: string;
  readonly start: number;
  readonly end: number;
}

/** The `<script>` blocks of a component's text, in order. */
export function scriptBlocks(text: string): ScriptBlock[] {
  const out: ScriptBlock[] = [];
  for (const m of text.matchAll(SCRIPT_BLOCK)) {
    const start = m.index + m[0].indexOf('>') + 1;
    out.push({ attributes: m[1]!, start, end: start + m[2]!.length });
  }
  return out;
}

/** The grammar of the blocks: TS when one says `lang="ts"` (or tsx), else JavaScript. */
export function sfcGrammar(blocks: readonly ScriptBlock[]): Grammar {
  const langs = blocks.map((b) => LANG_ATTRIBUTE.exec(b.attributes)?.[1]?.toLowerCase());
  if (langs.includes('tsx')) return 'tsx';
  if (langs.includes('ts') || langs.includes('typescript')) return 'typescript';
  return 'javascript';
}

/**
 * The text with every character outside the blocks replaced by as many spaces as its UTF-8 bytes
 * (a surrogate half by two: the pair is four), line breaks kept: the same lines and byte offsets.
 */
export function blankOutside(text: string, blocks: readonly ScriptBlock[]): string {
  let out = '';
  let at = 0;
  const blank = (from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const c = text.charCodeAt(i);
      if (c === 10 || c === 13) out += text[i];
      else out += ' '.repeat(c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdfff ? 2 : 3);
    }
  };
  for (const b of blocks) {
    blank(at, b.start);
    out += text.slice(b.start, b.end);
    at = b.end;
  }
  blank(at, text.length);
  return out;
}

/** The language id of a component path (`vue`, `svelte`), or null. */
export function sfcLanguageOf(path: string): Language | null {
  const ext = extensionOf(path);
  return SFC_EXTENSIONS.includes(ext) ? ext.slice(1) : null;
}

/** The adapter of `.vue` and `.svelte` files: their script blocks with the TS/JS grammar. */
export async function createSfcAdapter(options: TsAdapterOptions = {}): Promise<LanguageAdapter> {
  const parser = await createTsParser(options);
  const parse = (file: SourceFile, parseOptions?: { readonly deadlineMs?: number }): FileIndex => {
    const language = sfcLanguageOf(file.path);
    if (language === null) throw new CaError('invalid_path', `not a .vue or .svelte file: ${file.path}`, { context: { path: file.path } });
    const blocks = scriptBlocks(file.text);
    const index = parser.parseAs({ path: file.path, text: blankOutside(file.text, blocks) }, { grammar: sfcGrammar(blocks), language }, parseOptions);
    // The file node reads as the component, not as the blanked text.
    const nodes = index.nodes.map((n) => (n.kind === 'file' ? { ...n, chunkText: file.text } : n));
    return { ...index, nodes };
  };
  return {
    id: 'sfc',
    extensions: SFC_EXTENSIONS,
    extractorVersion: `${TS_EXTRACTOR_VERSION}+sfc-1`,
    languageOf: sfcLanguageOf,
    parse,
    dispose: parser.dispose,
  };
}
