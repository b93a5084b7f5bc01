import type { Diagnostic } from '@ca/schema';
import { cap, MAX_NODES_PER_FILE, type DocPart, type ScanResult } from './model.js';
import { isSecretKey, REDACTED, redactYaml } from './secrets.js';
import type { TextMap } from './text.js';

/** A top-level key line: a plain or quoted key at column 0, a colon, then a space or the end. */
const KEY_LINE = /^(?:"((?:[^"\\]|\\.)*)"|'((?:[^']|'')*)'|([^\s#\-?:,[\]{}&*!|>'"%@`][^:#]*?|-[^\s:#][^:#]*?))[ \t]*:(?:[ \t]+|$)/;
/** Lines that are never keys nor values of one: comments, document markers and directives. */
const NEUTRAL = /^(?:#|---(?:\s|$)|\.\.\.(?:\s|$)|%)/;

/**
 * YAML as `config` nodes, one per top-level key, found by indentation (no YAML library: only where
 * the keys are is needed): a key at column 0 owns the lines under it until the next line at column
 * 0; its span is the value (from the first character after `key:`, or the first line below it, to
 * its last non-blank character). Several documents (`---`) each contribute their keys. A line at
 * column 0 that is not a key, comment, marker or list item — or a tab in indentation — makes the
 * file malformed: the keys before it are kept (`partial`) and the line is named.
 */
export function scanYaml(map: TextMap): ScanResult {
  const text = map.text;
  const lines = text.split('\n');
  const parts: DocPart[] = [];
  const diagnostics: Diagnostic[] = [];
  let open: { name: string; valueStart: number | null; valueEnd: number } | null = null;
  let status: ScanResult['status'] = 'ok';
  const close = () => {
    if (open === null) return;
    const { name, valueStart, valueEnd } = open;
    open = null;
    const start = valueStart ?? valueEnd;
    parts.push({ kind: 'config', name, containers: [], parent: -1, start, end: Math.max(start, valueEnd), chunk: cap(`${name}: ${isSecretKey(name) ? REDACTED : redactYaml(text.slice(start, valueEnd))}`), signature: name, qualifiedName: name });
  };
  let lineStart = 0;
  for (let n = 0; n < lines.length; n++, lineStart += lines[n - 1]!.length + 1) {
    const raw = lines[n]!.replace(/\r$/, '');
    if (raw.trim() === '') continue;
    const fault = (message: string) => {
      diagnostics.push({ severity: 'error', code: 'malformed_yaml', message: `malformed YAML at line ${n + 1}: ${message}`, line: n + 1 });
    };
    if (/^ *\t/.test(raw) && !/^\s*#/.test(raw)) {
      fault('a tab in indentation (YAML indents with spaces)');
      break;
    }
    const indented = raw[0] === ' ';
    if (indented || (raw.startsWith('- ') && open !== null) || raw === '-') {
      // A line of the open key's value (a list at column 0 belongs to the key above it).
      if (open !== null) {
        const first = lineStart + raw.length - raw.trimStart().length;
        (open as { valueStart: number | null }).valueStart ??= first;
        (open as { valueEnd: number }).valueEnd = lineStart + raw.trimEnd().length;
      }
      continue;
    }
    if (NEUTRAL.test(raw)) {
      if (!raw.startsWith('#')) close();
      continue;
    }
    const m = KEY_LINE.exec(raw);
    if (!m) {
      if (raw.startsWith('- ') || raw.startsWith('[') || raw.startsWith('{') || raw.startsWith('|') || raw.startsWith('>')) continue; // a top-level sequence or flow value: no keys
      fault(`expected "key:" at column 1, found ${JSON.stringify(raw.length > 40 ? `${raw.slice(0, 40)}…` : raw)}`);
      break;
    }
    close();
    if (parts.length >= MAX_NODES_PER_FILE) {
      diagnostics.push({ severity: 'warning', code: 'too_many_keys', message: `more than ${MAX_NODES_PER_FILE} keys: the rest are not split`, line: n + 1 });
      break;
    }
    const name = m[1] ?? (m[2] !== undefined ? m[2].replace(/''/g, "'") : m[3]!.trim());
    const rest = raw.slice(m[0].length).replace(/[ \t]+#.*$/, '').trimEnd();
    const valueStart = rest === '' || rest.startsWith('#') ? null : lineStart + m[0].length;
    open = { name, valueStart, valueEnd: valueStart === null ? lineStart + m[0].trimEnd().length : valueStart + rest.length };
  }
  close();
  if (diagnostics.length > 0) status = parts.length > 0 || diagnostics.every((d) => d.severity === 'warning') ? 'partial' : 'error';
  return { parts, fileChunk: parts.map((p) => p.name).join('\n'), diagnostics, status };
}
