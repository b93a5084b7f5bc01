import type { Diagnostic } from '@ca/schema';
import { cap, MAX_NODES_PER_FILE, type DocPart, type ScanResult } from './model.js';
import { isSecretPath, REDACTED, redactJson } from './secrets.js';
import type { TextMap } from './text.js';

/** Malformed JSON, at a character index. */
class JsonSyntax extends Error {
  constructor(
    message: string,
    readonly at: number,
  ) {
    super(message);
  }
}

/**
 * A tolerant JSON reader that keeps offsets: JSON with comments (`//`, `/* *\/`) and trailing
 * commas (tsconfig, VS Code settings) reads; anything else malformed stops it with the position.
 * It only finds where values start and end — no values are built.
 */
class JsonCursor {
  i = 0;
  constructor(readonly text: string) {}

  /** Skips whitespace and comments. */
  skip(): void {
    const t = this.text;
    for (;;) {
      while (this.i < t.length && /\s/.test(t[this.i]!)) this.i++;
      if (t.startsWith('//', this.i)) {
        const nl = t.indexOf('\n', this.i);
        this.i = nl < 0 ? t.length : nl + 1;
      } else if (t.startsWith('/*', this.i)) {
        const close = t.indexOf('*/', this.i + 2);
        if (close < 0) throw new JsonSyntax('unclosed /* comment', this.i);
        this.i = close + 2;
      } else return;
    }
  }

  /** A string starting at the cursor; returns its decoded-enough text (escapes kept as written but `\"`). */
  string(): string {
    const t = this.text;
    if (t[this.i] !== '"') throw new JsonSyntax(`expected a string, found ${this.what()}`, this.i);
    const start = this.i;
    let out = '';
    for (this.i++; this.i < t.length; this.i++) {
      const c = t[this.i]!;
      if (c === '"') {
        this.i++;
        return out;
      }
      if (c === '\n') break;
      if (c === '\\') {
        const n = t[++this.i];
        out += n === 'n' ? '\n' : n === 't' ? '\t' : (n ?? '');
        continue;
      }
      out += c;
    }
    throw new JsonSyntax('unterminated string', start);
  }

  /** Skips one value starting at the cursor; returns its end (exclusive). */
  value(): number {
    this.skip();
    const t = this.text;
    const c = t[this.i];
    if (c === '"') {
      this.string();
      return this.i;
    }
    if (c === '{' || c === '[') {
      this.container(c);
      return this.i;
    }
    const m = /^(?:-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(t.slice(this.i, this.i + 64));
    if (!m) throw new JsonSyntax(`expected a value, found ${this.what()}`, this.i);
    this.i += m[0].length;
    return this.i;
  }

  /** Skips an object or array (iteratively: deep nesting cannot overflow the stack). */
  private container(open: string): void {
    const t = this.text;
    const stack: string[] = [open === '{' ? '}' : ']'];
    const start = this.i;
    this.i++;
    while (stack.length > 0) {
      this.skip();
      const c = t[this.i];
      if (c === undefined) throw new JsonSyntax(`unclosed ${open === '{' ? 'object' : 'array'}`, start);
      if (c === '}' || c === ']') {
        if (c !== stack[stack.length - 1]) throw new JsonSyntax(`expected ${stack[stack.length - 1]}, found ${c}`, this.i);
        stack.pop();
        this.i++;
        continue;
      }
      if (c === ',') {
        this.i++;
        continue;
      }
      if (stack[stack.length - 1] === '}') {
        this.string();
        this.skip();
        if (t[this.i] !== ':') throw new JsonSyntax(`expected : after a key, found ${this.what()}`, this.i);
        this.i++;
        this.skip();
      }
      const v = t[this.i];
      if (v === '{' || v === '[') {
        stack.push(v === '{' ? '}' : ']');
        this.i++;
      } else this.value();
    }
  }

  what(): string {
    const c = this.text[this.i];
    return c === undefined ? 'the end of the file' : JSON.stringify(c);
  }
}

/** `appsettings.json`, `appsettings.Development.json`: .NET configuration files, split one level deeper. */
export function isAppSettings(path: string): boolean {
  return /^appsettings(\..+)?\.json$/i.test(path.slice(path.lastIndexOf('/') + 1));
}

interface Member {
  readonly key: string;
  readonly valueStart: number;
  readonly valueEnd: number;
}

/** The members of the object at the cursor, each with its value's range; the cursor ends after `}`. */
function members(cur: JsonCursor, onMember: (m: Member) => boolean): void {
  const t = cur.text;
  if (t[cur.i] !== '{') throw new JsonSyntax(`expected {, found ${cur.what()}`, cur.i);
  const open = cur.i;
  cur.i++;
  for (;;) {
    cur.skip();
    if (t[cur.i] === '}') {
      cur.i++;
      return;
    }
    if (cur.i >= t.length) throw new JsonSyntax('unclosed object', open);
    const key = cur.string();
    cur.skip();
    if (t[cur.i] !== ':') throw new JsonSyntax(`expected : after "${key}", found ${cur.what()}`, cur.i);
    cur.i++;
    cur.skip();
    const valueStart = cur.i;
    const valueEnd = cur.value();
    if (!onMember({ key, valueStart, valueEnd })) return;
    cur.skip();
    if (t[cur.i] === ',') cur.i++;
    else if (t[cur.i] !== '}') throw new JsonSyntax(`expected , or } after the value of "${key}", found ${cur.what()}`, cur.i);
  }
}

/** How deep `appsettings*.json` objects are split (a deeper object stays one leaf node). */
export const MAX_CONFIG_DEPTH = 16;

/** A key's chunk: its path and value, the value withheld for a secret path and secrets nested in it replaced. */
function keyChunk(qualifiedName: string, path: readonly string[], value: string): string {
  return cap(`${qualifiedName}: ${isSecretPath(path) ? REDACTED : redactJson(value)}`);
}

/**
 * JSON as `config` nodes: one per top-level key (span = the key's value), and for
 * `appsettings*.json` one per key of every object below it too, down to the leaves
 * (`Logging:LogLevel:Default`; arrays stay one node) — the keys C# reads
 * (`Configuration["Features:Search:Enabled"]`) are nodes a read can point at. Qualified names
 * join keys with `:`, the .NET configuration path syntax (keys may hold dots). Values of
 * secret-looking keys are never stored (`secrets.ts`). A top-level array or scalar yields no
 * keys. Malformed JSON keeps the keys read before the fault (`partial`) and says where it is.
 */
export function scanJson(map: TextMap, path: string): ScanResult {
  const text = map.text;
  const cur = new JsonCursor(text);
  const parts: DocPart[] = [];
  const diagnostics: Diagnostic[] = [];
  const deep = isAppSettings(path);
  const add = (key: string, containers: readonly string[], parent: number, start: number, end: number): boolean => {
    if (parts.length >= MAX_NODES_PER_FILE) {
      diagnostics.push({ severity: 'warning', code: 'too_many_keys', message: `more than ${MAX_NODES_PER_FILE} keys: the rest are not split`, line: map.lineOf(start) });
      return false;
    }
    const segments = [...containers, key];
    const qualifiedName = segments.join(':');
    parts.push({ kind: 'config', name: key, containers, parent, start, end, chunk: keyChunk(qualifiedName, segments, text.slice(start, end)), signature: qualifiedName, qualifiedName });
    return true;
  };
  // The members of the object at `at` (an appsettings section), each a node under `parent`, recursively.
  const splitObject = (at: number, containers: readonly string[], parent: number): boolean => {
    const inner = new JsonCursor(text);
    inner.i = at;
    let more = true;
    members(inner, (c) => {
      more = add(c.key, containers, parent, c.valueStart, c.valueEnd);
      if (more && text[c.valueStart] === '{' && containers.length + 1 < MAX_CONFIG_DEPTH) more = splitObject(c.valueStart, [...containers, c.key], parts.length - 1);
      return more;
    });
    return more;
  };
  let status: ScanResult['status'] = 'ok';
  try {
    cur.skip();
    if (text.charCodeAt(cur.i) === 0xfeff) cur.i++;
    if (text[cur.i] === '{') {
      members(cur, (m) => {
        if (!add(m.key, [], -1, m.valueStart, m.valueEnd)) return false;
        return deep && text[m.valueStart] === '{' ? splitObject(m.valueStart, [m.key], parts.length - 1) : true;
      });
      cur.skip();
      if (cur.i < text.length && diagnostics.length === 0) throw new JsonSyntax(`unexpected ${cur.what()} after the top-level object`, cur.i);
    } else if (cur.i < text.length) {
      cur.value();
    }
    if (diagnostics.length > 0) status = 'partial';
  } catch (e) {
    if (!(e instanceof JsonSyntax)) throw e;
    const line = map.lineOf(Math.min(e.at, Math.max(0, text.length - 1)));
    diagnostics.push({ severity: 'error', code: 'malformed_json', message: `malformed JSON at line ${line}: ${e.message}`, line });
    status = parts.length > 0 ? 'partial' : 'error';
  }
  return { parts, fileChunk: parts.filter((p) => p.parent < 0).map((p) => p.name).join('\n'), diagnostics, status };
}
