import { cap, MAX_NODES_PER_FILE, type DocPart, type ScanResult } from './model.js';
import { trimEnd, type TextMap } from './text.js';

/** An ATX heading: up to three spaces, 1–6 `#`, then a space (or the end of the line). */
const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
/** A code fence opener: three or more backticks or tildes. */
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
/** A setext underline (`===` level 1, `---` level 2) under a paragraph line. */
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;

interface Heading {
  readonly level: number;
  readonly title: string;
  /** 1-based line of the heading (its first line for a setext heading). */
  readonly line: number;
  /** 1-based line of the heading's last line (the underline of a setext heading). */
  readonly lastLine: number;
}

/**
 * The headings of a Markdown text outside fenced code blocks: ATX (`## Title`) and setext
 * (`Title` over `===`/`---`). A fence closes on a fence of the same character at least as long;
 * an unclosed fence runs to the end (CommonMark), so `#` lines inside it are never headings.
 */
export function markdownHeadings(lines: readonly string[]): Heading[] {
  const out: Heading[] = [];
  let fence: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const f = FENCE.exec(line);
    if (fence !== null) {
      if (f && f[1]![0] === fence[0] && f[1]!.length >= fence.length && line.trim() === f[1]) fence = null;
      continue;
    }
    if (f) {
      fence = f[1]!;
      continue;
    }
    const atx = ATX.exec(line);
    if (atx) {
      out.push({ level: atx[1]!.length, title: (atx[2] ?? '').trim(), line: i + 1, lastLine: i + 1 });
      continue;
    }
    const next = lines[i + 1];
    const prevBlank = i === 0 || lines[i - 1]!.trim() === '';
    // A one-line paragraph under which `---`/`===` stands; a `---` after a blank line is a rule.
    if (next !== undefined && line.trim() !== '' && prevBlank && /^ {0,3}\S/.test(line) && SETEXT.test(next) && !/^\s*[-*+>]\s/.test(line)) {
      out.push({ level: next.trim()[0] === '=' ? 1 : 2, title: line.trim(), line: i + 1, lastLine: i + 2 });
      i++;
    }
  }
  return out;
}

/**
 * Markdown as sections: one `doc` node per heading, nested by level (a `###` inside the `##`
 * before it), its span from the heading to the line before the next heading of the same or a
 * higher level (trailing blank lines left out). A section's chunk is its heading and its own text
 * up to its first subsection (subsections are chunks of their own); the file's chunk is the text
 * before the first heading.
 */
export function scanMarkdown(map: TextMap): ScanResult {
  const text = map.text;
  const lines = text.split('\n').map((l) => l.replace(/\r$/, ''));
  const headings = markdownHeadings(lines);
  const parts: DocPart[] = [];
  const stack: { level: number; part: number; name: string }[] = [];
  const diagnostics = [];
  let status: ScanResult['status'] = 'ok';
  for (let h = 0; h < headings.length; h++) {
    if (parts.length >= MAX_NODES_PER_FILE) {
      diagnostics.push({ severity: 'warning' as const, code: 'too_many_sections', message: `more than ${MAX_NODES_PER_FILE} sections: the rest of the file is not split`, line: headings[h]!.line });
      status = 'partial';
      break;
    }
    const head = headings[h]!;
    while (stack.length > 0 && stack[stack.length - 1]!.level >= head.level) stack.pop();
    let endHeading = headings.length;
    for (let k = h + 1; k < headings.length; k++) {
      if (headings[k]!.level <= head.level) {
        endHeading = k;
        break;
      }
    }
    const start = map.lineStart(head.line);
    const end = trimEnd(text, start, endHeading < headings.length ? map.lineStart(headings[endHeading]!.line) : text.length);
    const ownEnd = trimEnd(text, start, h + 1 < headings.length ? map.lineStart(headings[h + 1]!.line) : text.length);
    const name = head.title === '' ? `(untitled h${head.level})` : head.title;
    const containers = stack.map((s) => s.name);
    parts.push({
      kind: 'doc',
      name,
      containers,
      parent: stack.length > 0 ? stack[stack.length - 1]!.part : -1,
      start,
      end: Math.min(Math.max(end, ownEnd), text.length),
      chunk: cap(text.slice(start, ownEnd)),
      signature: `${'#'.repeat(head.level)} ${name}`,
      qualifiedName: [...containers, name].join(' > '),
    });
    stack.push({ level: head.level, part: parts.length - 1, name });
  }
  const preambleEnd = headings.length > 0 ? map.lineStart(headings[0]!.line) : text.length;
  return { parts, fileChunk: text.slice(0, trimEnd(text, 0, preambleEnd)), diagnostics, status };
}
