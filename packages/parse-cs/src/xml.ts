/**
 * A small tolerant XML reader for project files (.csproj, .slnx, Directory.Build.props).
 * It builds an element tree and rejects only structural damage (unclosed or mismatched
 * tags, text outside the root); DTDs, processing instructions and namespaces are ignored.
 */

export interface XmlElement {
  readonly name: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly children: XmlElement[];
  text: string;
}

/** Thrown for malformed XML; the message says where and why. */
export class XmlSyntaxError extends Error {
  constructor(message: string, readonly line: number) {
    super(`${message} (line ${line})`);
  }
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

export function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (all, e: string) => {
    if (e.startsWith('#x')) return String.fromCodePoint(parseInt(e.slice(2), 16));
    if (e.startsWith('#')) return String.fromCodePoint(parseInt(e.slice(1), 10));
    return ENTITIES[e] ?? all;
  });
}

const NAME = /[A-Za-z_:][-A-Za-z0-9_:.]*/y;
const ATTR = /\s*([A-Za-z_:][-A-Za-z0-9_:.]*)\s*=\s*("([^"]*)"|'([^']*)')/y;

/** Parses a document and returns its root element. Iterative: nesting depth is unbounded. */
export function parseXml(text: string): XmlElement {
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const stack: XmlElement[] = [];
  let root: XmlElement | null = null;
  let i = 0;
  const lineAt = (at: number): number => {
    let n = 1;
    for (let k = 0; k < at && k < src.length; k++) if (src.charCodeAt(k) === 10) n++;
    return n;
  };
  const fail = (msg: string, at: number): never => {
    throw new XmlSyntaxError(msg, lineAt(at));
  };
  while (i < src.length) {
    const lt = src.indexOf('<', i);
    const chunk = src.slice(i, lt < 0 ? src.length : lt);
    if (chunk.trim() !== '') {
      const top = stack[stack.length - 1];
      if (!top) fail('text outside the root element', i);
      else top.text += decodeEntities(chunk);
    }
    if (lt < 0) break;
    i = lt;
    if (src.startsWith('<!--', i)) {
      const end = src.indexOf('-->', i + 4);
      if (end < 0) fail('unterminated comment', i);
      i = end + 3;
    } else if (src.startsWith('<![CDATA[', i)) {
      const end = src.indexOf(']]>', i + 9);
      if (end < 0) fail('unterminated CDATA section', i);
      const top = stack[stack.length - 1];
      if (top) top.text += src.slice(i + 9, end);
      i = end + 3;
    } else if (src.startsWith('<?', i)) {
      const end = src.indexOf('?>', i + 2);
      if (end < 0) fail('unterminated processing instruction', i);
      i = end + 2;
    } else if (src.startsWith('<!', i)) {
      const end = src.indexOf('>', i + 2);
      if (end < 0) fail('unterminated declaration', i);
      i = end + 1;
    } else if (src.startsWith('</', i)) {
      NAME.lastIndex = i + 2;
      const m = NAME.exec(src);
      if (!m) fail('malformed closing tag', i);
      const name = m![0];
      const end = src.indexOf('>', NAME.lastIndex);
      if (end < 0 || src.slice(NAME.lastIndex, end).trim() !== '') fail(`malformed closing tag </${name}`, i);
      const top = stack.pop();
      if (!top) fail(`closing tag </${name}> without an open element`, i);
      else if (top.name !== name) fail(`closing tag </${name}> does not match <${top.name}>`, i);
      i = end + 1;
    } else {
      NAME.lastIndex = i + 1;
      const m = NAME.exec(src);
      if (!m) fail('malformed tag', i);
      const el: XmlElement = { name: m![0], attributes: {}, children: [], text: '' };
      let j = NAME.lastIndex;
      for (;;) {
        ATTR.lastIndex = j;
        const a = ATTR.exec(src);
        if (!a) break;
        (el.attributes as Record<string, string>)[a[1]!] = decodeEntities(a[3] ?? a[4] ?? '');
        j = ATTR.lastIndex;
      }
      while (j < src.length && /\s/.test(src[j]!)) j++;
      let selfClosing = false;
      if (src.startsWith('/>', j)) {
        selfClosing = true;
        j += 2;
      } else if (src[j] === '>') {
        j += 1;
      } else {
        fail(`malformed tag <${el.name}`, i);
      }
      const parent = stack[stack.length - 1];
      if (parent) parent.children.push(el);
      else if (root) fail(`second root element <${el.name}>`, i);
      else root = el;
      if (!selfClosing) stack.push(el);
      i = j;
    }
  }
  if (stack.length > 0) fail(`element <${stack[stack.length - 1]!.name}> is not closed`, src.length);
  if (!root) fail('no root element', 0);
  return root!;
}

/** All descendants (document order) with the given local name, case-insensitive. */
export function descendants(root: XmlElement, name: string): XmlElement[] {
  const out: XmlElement[] = [];
  const want = name.toLowerCase();
  const stack: XmlElement[] = [...root.children].reverse();
  while (stack.length > 0) {
    const el = stack.pop()!;
    if (localName(el.name).toLowerCase() === want) out.push(el);
    for (let k = el.children.length - 1; k >= 0; k--) stack.push(el.children[k]!);
  }
  return out;
}

export function localName(name: string): string {
  const c = name.indexOf(':');
  return c >= 0 ? name.slice(c + 1) : name;
}

/** Attribute lookup ignoring case, as MSBuild does. */
export function attr(el: XmlElement, name: string): string | undefined {
  const want = name.toLowerCase();
  for (const [k, v] of Object.entries(el.attributes)) if (k.toLowerCase() === want) return v;
  return undefined;
}
