/**
 * ASP.NET Core route templates in the normal form endpoint nodes are named by: leading `/`, no
 * trailing `/`, `//` collapsed, literal segments lower-cased (routing matches them
 * case-insensitively), parameters without constraints or defaults (`{id:int}` and `{id=5}` →
 * `{id}`), optional (`{id?}`) and catch-all (`{*path}`, `{**path}` → `{*path}`) markers kept.
 */

/** A normalised template, and why it is not exact when the text could not be read as a template. */
export interface NormalizedTemplate {
  readonly template: string;
  readonly problem: string | null;
}

/** Templates longer than this are cut: no real route is this long, and names must stay small. */
export const MAX_TEMPLATE_CHARS = 2048;

/** One parameter's text between its braces → `{name}`, `{name?}` or `{*name}`. */
function normalizeParameter(inner: string): string {
  let body = inner.trim();
  let catchAll = false;
  if (body.startsWith('*')) {
    catchAll = true;
    body = body.replace(/^\*+/, '');
  }
  // The name ends at the first constraint (`:`), default (`=`) or optional (`?`) marker.
  const nameEnd = body.search(/[:=?]/);
  // A parameter name never holds a slash or a space; dropping them keeps the form idempotent.
  const name = (nameEnd < 0 ? body : body.slice(0, nameEnd)).replace(/[\s/]+/g, '');
  // A default makes the parameter optional in matching, but the agreed name shows it plain;
  // `=` inside a constraint's arguments (`regex(a=b)`) is no default.
  const rest = (nameEnd < 0 ? '' : body.slice(nameEnd)).replace(/\([^)]*\)/g, '');
  const optional = !rest.includes('=') && rest.endsWith('?');
  if (catchAll) return `{*${name}}`;
  return optional ? `{${name}?}` : `{${name}}`;
}

/**
 * Reads one segment: literal text lower-cased, parameters normalised, `{{`/`}}` kept as the
 * escaped braces they are. Returns null when a brace is unbalanced.
 */
function normalizeSegment(segment: string): string | null {
  let out = '';
  let k = 0;
  while (k < segment.length) {
    const c = segment[k]!;
    if (c === '{' && segment[k + 1] === '{') {
      out += '{{';
      k += 2;
    } else if (c === '}' && segment[k + 1] === '}') {
      out += '}}';
      k += 2;
    } else if (c === '{') {
      const end = parameterEnd(segment, k + 1);
      if (end < 0) return null;
      out += normalizeParameter(segment.slice(k + 1, end));
      k = end + 1;
    } else if (c === '}') {
      return null;
    } else {
      // A space cannot be part of a name's single token; it matches `%20` in a request path.
      out += /\s/.test(c) ? '%20' : c.toLowerCase();
      k++;
    }
  }
  return out;
}

/** The index of the `}` closing a parameter opened before `from` (`}}` inside is escaped), or -1. */
function parameterEnd(segment: string, from: number): number {
  for (let k = from; k < segment.length; k++) {
    const c = segment[k]!;
    if (c === '}' && segment[k + 1] === '}') k++;
    else if (c === '{' && segment[k + 1] === '{') k++;
    else if (c === '}') return k;
    else if (c === '{') return -1;
  }
  return -1;
}

/**
 * Splits a template into segments at the slashes outside parameters (a constraint such as
 * `regex(^a/b$)` may contain one).
 */
function segmentsOf(text: string): string[] {
  const out: string[] = [];
  let cur = '';
  let depth = 0;
  for (let k = 0; k < text.length; k++) {
    const c = text[k]!;
    if (c === '{' && text[k + 1] === '{') {
      cur += '{{';
      k++;
      continue;
    }
    if (c === '}' && text[k + 1] === '}' && depth === 0) {
      cur += '}}';
      k++;
      continue;
    }
    if (c === '{') depth++;
    else if (c === '}' && depth > 0) depth--;
    if (c === '/' && depth === 0) {
      out.push(cur);
      cur = '';
    } else {
      cur += c;
    }
  }
  out.push(cur);
  return out;
}

/**
 * Normalises a route template. Never throws: a template with an unbalanced brace keeps its
 * text (lower-cased, slashes tidied) and says so in `problem`. Idempotent.
 */
export function normalizeTemplate(raw: string): NormalizedTemplate {
  let text = raw;
  let problem: string | null = null;
  if (text.length > MAX_TEMPLATE_CHARS) {
    text = text.slice(0, MAX_TEMPLATE_CHARS);
    problem = `route template longer than ${MAX_TEMPLATE_CHARS} characters, cut`;
  }
  text = text.trim().replace(/^~(?=\/)/, '');
  const out: string[] = [];
  for (const s of segmentsOf(text)) {
    const n = s.length > 0 ? normalizeSegment(s) : '';
    if (n === null) {
      // Read as a template it fails: keep the text, segment by segment, and say why.
      const fallback = text.split('/').filter((x) => x.length > 0).map((x) => x.toLowerCase().replace(/\s/g, '%20'));
      return { template: `/${fallback.join('/')}`, problem: problem ?? `unbalanced brace in route template "${raw.length > 80 ? `${raw.slice(0, 80)}…` : raw}"` };
    }
    if (n.length > 0) out.push(n);
  }
  return { template: `/${out.join('/')}`, problem };
}

/** Whether an action's template replaces its controller's prefix (`/x` or `~/x`). */
export function isRootedTemplate(template: string): boolean {
  return /^\s*(?:~\/|\/)/.test(template);
}

/** The controller prefix and an action template combined as ASP.NET combines them (unnormalised). */
export function combineTemplates(prefix: string, template: string): string {
  if (isRootedTemplate(template)) return template;
  if (template.length === 0) return prefix;
  if (prefix.length === 0) return template;
  return `${prefix}/${template}`;
}

/**
 * Replaces `[controller]`, `[action]` and `[area]` (case-insensitive; `[[`/`]]` are escaped
 * brackets). A token without a value is left as written and reported.
 */
export function replaceTokens(template: string, values: Readonly<Record<string, string | null>>): { text: string; missing: string[] } {
  const missing: string[] = [];
  const text = template.replace(/\[\[|\]\]|\[([^[\]]*)\]/g, (whole: string, token: string | undefined) => {
    if (token === undefined) return whole === '[[' ? '[' : ']';
    const value = values[token.toLowerCase()];
    if (value === undefined || value === null) {
      missing.push(token);
      return whole;
    }
    return value;
  });
  return { text, missing };
}
