/**
 * Identifier splitting shared by indexing (FTS split column) and query analysis,
 * so that both sides tokenize the same way.
 */

const WORD = /[A-Za-z0-9]+/g;

/**
 * Splits one identifier into lower-case words: camelCase, PascalCase, snake_case,
 * kebab-case, dotted and `::` qualified names, `$`/`@` prefixes.
 * `getUserById` → `['get','user','by','id']`; `HTMLParser2` → `['html','parser','2']`.
 */
export function splitIdentifier(identifier: string): string[] {
  const out: string[] = [];
  for (const m of identifier.matchAll(WORD)) {
    const part = m[0];
    // Boundaries: lower→Upper, Upper→Upper+lower (HTMLParser → HTML Parser), letter↔digit.
    const pieces = part
      .replace(/([a-z])([A-Z])/g, '$1 $2')
      .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
      .replace(/([A-Za-z])([0-9])/g, '$1 $2')
      .replace(/([0-9])([A-Za-z])/g, '$1 $2')
      .split(' ');
    for (const p of pieces) if (p) out.push(p.toLowerCase());
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
  for (const m of slice.matchAll(IDENTIFIER_IN_TEXT)) {
    const split = splitIdentifierText(m[0]);
    if (split !== '') parts.push(split);
  }
  return parts.join(' ');
}

/** Path tokens for the FTS path column: `src/auth/AuthService.ts` → `src auth auth service authservice ts`. */
export function pathTokens(path: string): string {
  return splitText(path.replace(/[\\/.\-]/g, ' '));
}
