/**
 * Identifier splitting shared by indexing (FTS split column) and query analysis,
 * so that both sides tokenize the same way.
 */

const enum CharClass {
  Other,
  Lower,
  Upper,
  Digit,
}

function classOf(code: number): CharClass {
  if (code >= 97 && code <= 122) return CharClass.Lower;
  if (code >= 65 && code <= 90) return CharClass.Upper;
  if (code >= 48 && code <= 57) return CharClass.Digit;
  return CharClass.Other;
}

/**
 * Splits one identifier into lower-case words: camelCase, PascalCase, snake_case,
 * kebab-case, dotted and `::` qualified names, `$`/`@` prefixes.
 * `getUserById` → `['get','user','by','id']`; `HTMLParser2` → `['html','parser','2']`.
 * A single pass over the characters (this runs for every identifier of every indexed body).
 */
export function splitIdentifier(identifier: string): string[] {
  const out: string[] = [];
  let start = -1;
  const n = identifier.length;
  for (let i = 0; i <= n; i++) {
    const c = i < n ? classOf(identifier.charCodeAt(i)) : CharClass.Other;
    if (c === CharClass.Other) {
      if (start >= 0) out.push(identifier.slice(start, i).toLowerCase());
      start = -1;
      continue;
    }
    if (start < 0) {
      start = i;
      continue;
    }
    const prev = classOf(identifier.charCodeAt(i - 1));
    const next = i + 1 < n ? classOf(identifier.charCodeAt(i + 1)) : CharClass.Other;
    const boundary =
      (prev === CharClass.Lower && c === CharClass.Upper) || // getUser
      (prev === CharClass.Upper && c === CharClass.Upper && next === CharClass.Lower) || // HTMLParser
      (prev === CharClass.Digit) !== (c === CharClass.Digit); // letter↔digit
    if (boundary) {
      out.push(identifier.slice(start, i).toLowerCase());
      start = i;
    }
  }
  return out;
}

/**
 * The text indexed in the split-identifier column for one identifier: its words, then each
 * dotted/`::` segment joined without separators when it has more than one word.
 * `getUserById` → `get user by id getuserbyid`;
 * `AuthService.Authenticate` → `auth service authenticate authservice`.
 */
export function splitIdentifierText(identifier: string): string {
  const words = splitIdentifier(identifier);
  const joined: string[] = [];
  for (const segment of identifier.split(/\.|::|\//)) {
    const segWords = splitIdentifier(segment);
    if (segWords.length > 1) joined.push(segWords.join(''));
  }
  return [...words, ...joined].join(' ');
}

const IDENTIFIER_IN_TEXT = /[A-Za-z_$@][A-Za-z0-9_$]*(?:(?:\.|::)[A-Za-z_$@][A-Za-z0-9_$]*)*/g;

/**
 * Splits free text (a symbol body, a comment) into the split-identifier form used by the
 * FTS body column: every identifier's words plus the joined form of each multi-word
 * segment (`this.rateLimiter` → `this rate limiter ratelimiter`), lower case.
 */
export function splitText(text: string, maxChars = 200_000): string {
  const parts: string[] = [];
  const slice = text.length > maxChars ? text.slice(0, maxChars) : text;
  const seen = new Map<string, string>();
  for (const m of slice.matchAll(IDENTIFIER_IN_TEXT)) {
    // Bodies repeat identifiers a lot: split each distinct one once.
    let split = seen.get(m[0]);
    if (split === undefined) {
      split = splitIdentifierText(m[0]);
      seen.set(m[0], split);
    }
    if (split !== '') parts.push(split);
  }
  return parts.join(' ');
}

/** The per-node text of the FTS columns that need splitting (computed off the writer thread). */
export interface FtsText {
  readonly split: string;
  readonly body: string;
}

/** FTS text of one node: split qualified name (+ kind) and the split body and doc. */
export function ftsTextOf(node: { readonly qualifiedName: string; readonly kind: string; readonly chunkText: string; readonly doc: string | null }): FtsText {
  const kindWord = node.kind === 'file' || node.kind === 'module' ? '' : ` ${node.kind}`;
  return {
    split: `${splitIdentifierText(node.qualifiedName)}${kindWord}`.trim(),
    body: `${splitText(node.chunkText)} ${node.doc ? splitText(node.doc) : ''}`.trim(),
  };
}

/** Path tokens for the FTS path column: `src/auth/AuthService.ts` → `src auth auth service authservice ts`. */
export function pathTokens(path: string): string {
  return splitText(path.replace(/[\\/.\-]/g, ' '));
}
