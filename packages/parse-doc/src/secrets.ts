/**
 * Secret-looking configuration values stay out of the index: a key whose name (or whose section,
 * `ConnectionStrings`) says it holds a credential gets a chunk without its value, and the values of
 * such keys nested in a stored chunk are replaced. Over-redacting (`TokenLifetime`) costs a few
 * search words; under-redacting would put a password into the index and its full-text table.
 */

/** Key names that hold credentials: passwords, secrets, tokens, keys, connection strings. */
const SECRET_KEY = /pass(?:word|wd|phrase)|pwd|secret|token|credential|connection[-_]?string|(?:api|access|private|signing|account|instrumentation|encryption|master|shared|client)[-_]?key|^key$|[-_.]key$|sas[-_]?url|^dsn$/i;

/** What a redacted value is stored as. */
export const REDACTED = '[redacted]';

/** Whether a key (one segment of a configuration path) names a secret. */
export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

/** Whether a configuration path (`ConnectionStrings:Orders`, `Jwt:Key`) holds a secret value. */
export function isSecretPath(segments: readonly string[]): boolean {
  if (segments.length > 0 && /^connectionstrings$/i.test(segments[0]!)) return true;
  return segments.some(isSecretKey);
}

/** JSON text with the string, number or literal value of every secret-looking key replaced. */
export function redactJson(text: string): string {
  return text.replace(/"((?:[^"\\\n]|\\.)*)"(\s*:\s*)("(?:[^"\\\n]|\\.)*"|-?\d[\d.eE+-]*|true|false|null)/g, (all, key: string, colon: string) =>
    isSecretKey(key) ? `"${key}"${colon}"${REDACTED}"` : all,
  );
}

/** YAML text with the inline value of every secret-looking `key: value` line replaced. */
export function redactYaml(text: string): string {
  return text.replace(/^(\s*-?\s*["']?([\w.-]+)["']?\s*:[ \t]+)(?![|>]\s*$)(\S.*)$/gm, (all, head: string, key: string) => (isSecretKey(key) ? `${head}${REDACTED}` : all));
}
