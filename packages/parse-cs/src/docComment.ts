import { decodeEntities } from './xml.js';

/**
 * Converts the raw text of `///` (or `/** … *\/`) comment lines into plain text:
 * the `<summary>` first, then one line per `<param>` (`name: text`), `<typeparam>`,
 * `<returns>` (`Returns: text`), `<remarks>` (`Remarks: text`), `<exception>`
 * (`Throws Type: text`). `<see cref="X"/>` → `X`, `<paramref name="x"/>` → `x`,
 * `<see langword="null"/>` → `null`; other tags are dropped, entities decoded.
 */
export function docCommentToText(raw: string): string | null {
  const body = raw
    .split('\n')
    .map((l) =>
      l
        .replace(/^\s*\/\/\/ ?/, '')
        .replace(/^\s*\/\*\*/, '')
        .replace(/\*\/\s*$/, '')
        .replace(/^\s*\* ?/, ''),
    )
    .join('\n');
  const inline = (s: string): string =>
    decodeEntities(
      s
        .replace(/<see\s+(?:cref|href)\s*=\s*"(?:[A-Z]:)?([^"]*)"\s*\/>/g, '$1')
        .replace(/<see\s+(?:cref|href)\s*=\s*"(?:[A-Z]:)?([^"]*)"\s*>([\s\S]*?)<\/see>/g, (_a, c: string, t: string) => (t.trim() ? t : c))
        .replace(/<see\s+langword\s*=\s*"([^"]*)"\s*\/>/g, '$1')
        .replace(/<(?:paramref|typeparamref)\s+name\s*=\s*"([^"]*)"\s*\/>/g, '$1')
        .replace(/<seealso[^>]*\/>/g, '')
        .replace(/<[^>]+>/g, ''),
    )
      .replace(/\s+/g, ' ')
      .trim();
  const lines: string[] = [];
  const summary = /<summary>([\s\S]*?)<\/summary>/.exec(body);
  if (summary) lines.push(inline(summary[1]!));
  for (const m of body.matchAll(/<(param|typeparam)\s+name\s*=\s*"([^"]*)"\s*>([\s\S]*?)<\/\1>/g)) {
    lines.push(`${m[2]}: ${inline(m[3]!)}`);
  }
  const returns = /<returns>([\s\S]*?)<\/returns>/.exec(body);
  if (returns) lines.push(`Returns: ${inline(returns[1]!)}`);
  const remarks = /<remarks>([\s\S]*?)<\/remarks>/.exec(body);
  if (remarks) lines.push(`Remarks: ${inline(remarks[1]!)}`);
  for (const m of body.matchAll(/<exception\s+cref\s*=\s*"(?:[A-Z]:)?([^"]*)"\s*>([\s\S]*?)<\/exception>/g)) {
    lines.push(`Throws ${m[1]}: ${inline(m[2]!)}`);
  }
  if (lines.length === 0) {
    const plain = inline(body);
    if (plain) lines.push(plain);
  }
  const out = lines.filter((l) => l.trim() !== '').join('\n');
  return out === '' ? null : out;
}
