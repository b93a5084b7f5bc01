/**
 * The lexical pass over a Razor file (`.razor`, `.cshtml`): where its C# code blocks
 * (`@code { … }`, `@functions { … }`) are, its directives (`@page`, `@inject`, `@model` …), the
 * component tags of its markup with their attributes, and its event handler attributes. No
 * parse tree: Razor's grammar switches between markup and C#, and this pass only needs the
 * constructs above, found by their shape (decision 041).
 */

/** A `@code { … }` or `@functions { … }` block: `open` is the `{`, `close` the matching `}`. */
export interface CodeBlock {
  readonly keyword: 'code' | 'functions';
  /** Offset of the `@`. */
  readonly start: number;
  readonly open: number;
  readonly close: number;
}

/** A block whose `{` has no matching `}`. */
export interface UnclosedBlock {
  readonly keyword: 'code' | 'functions';
  readonly start: number;
}

/** A directive at the start of a line (`@page "/x"`): its keyword, its argument text and where. */
export interface Directive {
  readonly keyword: string;
  readonly argument: string;
  /** Offsets of the `@` and of the line's end. */
  readonly start: number;
  readonly end: number;
}

/** One attribute of a tag as written: `Items="@orders"` → name `Items`, value `@orders`. */
export interface TagAttribute {
  readonly name: string;
  /** The value without its quotes, or null for a bare attribute (`disabled`). */
  readonly value: string | null;
  readonly offset: number;
}

/** A start tag: `<OrderList Items="…">` (name `OrderList`). */
export interface Tag {
  readonly name: string;
  readonly start: number;
  readonly end: number;
  readonly attributes: readonly TagAttribute[];
}

/** What {@link scanRazor} finds. */
export interface RazorScan {
  readonly blocks: readonly CodeBlock[];
  readonly unclosed: readonly UnclosedBlock[];
  readonly directives: readonly Directive[];
  readonly tags: readonly Tag[];
  /**
   * The markup text: the file with Razor comments and code blocks blanked (each character
   * replaced by spaces, newlines kept), so offsets and lines stay those of the file.
   */
  readonly markup: string;
}

const BLOCK_START = /(^|[\s>}])@(code|functions)\s*\{/g;
// A byte order mark may precede the first directive (a reader that keeps it hands it over).
const DIRECTIVE = /^[ \t\uFEFF]*@(page|inject|inherits|implements|namespace|model|layout|typeparam|using|attribute)\b[ \t]*([^\r\n]*)/gm;
const TAG_NAME = /<([A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*)(?=[\s/>])/g;

/** Replaces `text[from, to)` by blanks in `chars`, keeping line breaks. */
function blank(chars: string[], from: number, to: number): void {
  for (let i = from; i < to; i++) if (chars[i] !== '\n' && chars[i] !== '\r') chars[i] = ' ';
}

/**
 * The offset after a C# string or comment starting at `i`, or -1 when none starts there.
 * Covers `"…"`, `@"…"`, `$"…"` (interpolations are skipped whole: their braces are inside the
 * quotes), `'…'`, `//…` and `/* … *\/`; raw strings (`"""`) read as three empty strings, which
 * keeps their braces out only when they hold no quote — a documented limit.
 */
function skipCsToken(text: string, i: number): number {
  const c = text[i];
  if (c === '/' && text[i + 1] === '/') {
    const nl = text.indexOf('\n', i);
    return nl < 0 ? text.length : nl;
  }
  if (c === '/' && text[i + 1] === '*') {
    const end = text.indexOf('*/', i + 2);
    return end < 0 ? text.length : end + 2;
  }
  let j = i;
  let verbatim = false;
  while (text[j] === '@' || text[j] === '$') {
    if (text[j] === '@') verbatim = true;
    j++;
  }
  const q = text[j];
  if (q !== '"' && q !== "'") return -1;
  if (j > i && q === "'") return -1;
  for (let k = j + 1; k < text.length; k++) {
    const d = text[k];
    if (verbatim && d === '"') {
      if (text[k + 1] === '"') {
        k++;
        continue;
      }
      return k + 1;
    }
    if (!verbatim && d === '\\') {
      k++;
      continue;
    }
    if (d === q) return k + 1;
    if (!verbatim && d === '\n') return k;
  }
  return text.length;
}

/** The offset of the `}` matching the `{` at `open`, skipping C# strings and comments; -1 if none. */
export function matchBrace(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const skipped = skipCsToken(text, i);
    if (skipped > i) {
      i = skipped - 1;
      continue;
    }
    const c = text[i];
    if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i;
  }
  return -1;
}

/** Razor comments `@* … *@` blanked (an unclosed one runs to the end, as Razor reads it). */
function blankComments(chars: string[], text: string): void {
  for (let i = text.indexOf('@*'); i >= 0; i = text.indexOf('@*', i + 2)) {
    const end = text.indexOf('*@', i + 2);
    const stop = end < 0 ? text.length : end + 2;
    blank(chars, i, stop);
    i = stop - 2;
  }
}

/** The code blocks, outside Razor comments; a block without its `}` ends the scan for blocks. */
function findBlocks(text: string, masked: string): { blocks: CodeBlock[]; unclosed: UnclosedBlock[] } {
  const blocks: CodeBlock[] = [];
  const unclosed: UnclosedBlock[] = [];
  BLOCK_START.lastIndex = 0;
  for (let m = BLOCK_START.exec(masked); m; m = BLOCK_START.exec(masked)) {
    const start = m.index + m[1]!.length;
    const open = m.index + m[0].length - 1;
    const keyword = m[2] as 'code' | 'functions';
    const close = matchBrace(text, open);
    if (close < 0) {
      unclosed.push({ keyword, start });
      break;
    }
    blocks.push({ keyword, start, open, close });
    BLOCK_START.lastIndex = close + 1;
  }
  return { blocks, unclosed };
}

/** The attributes of a start tag from `from` to its `>` (quotes respected); `end` is after the `>`. */
function readAttributes(text: string, from: number): { attributes: TagAttribute[]; end: number } {
  const attributes: TagAttribute[] = [];
  let i = from;
  const n = text.length;
  while (i < n) {
    while (i < n && /\s/.test(text[i]!)) i++;
    if (i >= n) break;
    if (text[i] === '>') return { attributes, end: i + 1 };
    if (text[i] === '/' && text[i + 1] === '>') return { attributes, end: i + 2 };
    if (text[i] === '<') return { attributes, end: i };
    const nameStart = i;
    while (i < n && !/[\s=>]/.test(text[i]!) && !(text[i] === '/' && text[i + 1] === '>')) i++;
    const name = text.slice(nameStart, i);
    if (name.length === 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < n && /[ \t]/.test(text[j]!)) j++;
    if (text[j] !== '=') {
      attributes.push({ name, value: null, offset: nameStart });
      continue;
    }
    j++;
    while (j < n && /[ \t]/.test(text[j]!)) j++;
    const q = text[j];
    if (q === '"' || q === "'") {
      const close = text.indexOf(q, j + 1);
      const stop = close < 0 ? n : close;
      attributes.push({ name, value: text.slice(j + 1, stop), offset: nameStart });
      i = stop + 1;
    } else {
      const valueStart = j;
      while (j < n && !/[\s>]/.test(text[j]!)) j++;
      attributes.push({ name, value: text.slice(valueStart, j), offset: nameStart });
      i = j;
    }
  }
  return { attributes, end: n };
}

/** Every start tag of the markup (any case: the caller decides which are components). */
function findTags(markup: string): Tag[] {
  const tags: Tag[] = [];
  TAG_NAME.lastIndex = 0;
  for (let m = TAG_NAME.exec(markup); m; m = TAG_NAME.exec(markup)) {
    const { attributes, end } = readAttributes(markup, m.index + m[0].length);
    tags.push({ name: m[1]!, start: m.index, end, attributes });
    TAG_NAME.lastIndex = Math.max(end, m.index + m[0].length);
  }
  return tags;
}

/** Scans a Razor file's text: code blocks, directives, tags. Linear in the text's length. */
export function scanRazor(text: string): RazorScan {
  const chars = [...text.split('')];
  blankComments(chars, text);
  const withoutComments = chars.join('');
  const { blocks, unclosed } = findBlocks(text, withoutComments);
  for (const b of blocks) blank(chars, b.start, b.close + 1);
  for (const u of unclosed) blank(chars, u.start, text.length);
  const markup = chars.join('');
  const directives: Directive[] = [];
  DIRECTIVE.lastIndex = 0;
  for (let m = DIRECTIVE.exec(markup); m; m = DIRECTIVE.exec(markup)) {
    directives.push({ keyword: m[1]!, argument: m[2]!.trim(), start: m.index + m[0].indexOf('@'), end: m.index + m[0].length });
  }
  return { blocks, unclosed, directives, tags: findTags(markup), markup };
}
