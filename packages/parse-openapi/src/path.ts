/**
 * An OpenAPI path in the normal form the C# endpoints are named by (decision 037): leading `/`,
 * no trailing `/`, `//` collapsed, literal segments lower-cased, a space written `%20`, and
 * parameters as `{name}` (a constraint, default or optional marker dropped, as the C# side drops
 * them; OpenAPI paths do not write them, but generated documents sometimes carry ASP.NET's).
 */
export function normalizeOperationPath(raw: string): string {
  const segments = raw
    .split('/')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => {
      const p = /^\{\s*(\**)([^}:=?]*)([^}]*)\}$/.exec(s);
      if (p) return `{${p[1] !== '' ? '*' : ''}${p[2]!.trim()}${/\?\s*$/.test(p[3]!) ? '?' : ''}}`;
      return s.toLowerCase().replace(/\s/g, '%20');
    });
  return `/${segments.join('/')}`;
}
