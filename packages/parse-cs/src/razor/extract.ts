import {
  endpointKey,
  endpointName,
  formatEndpointSignature,
  symbolKey,
  unresolvedKey,
  type Confidence,
  type Diagnostic,
  type EdgeType,
  type ExtractedEdge,
  type ExtractedNode,
  type FileIndex,
} from '@ca/schema';
import { normalizeTemplate } from '../endpoints/template.js';
import type { ExtractResult } from '../extract.js';
import { countLines, utf8Offsets } from '../text.js';
import { componentName, razorNamespace, razorPageRoute, type RazorProject } from './names.js';
import { scanRazor, type CodeBlock, type Directive, type RazorScan, type Tag } from './scan.js';

/** Recorded on every Razor file's semantic state: what this pass is and is not (decision 041). */
export const RAZOR_SYNTACTIC_REASON = 'syntactic: Razor generator not run';

/** One Razor file to extract. */
export interface RazorInput {
  readonly path: string;
  readonly text: string;
  readonly project: RazorProject | null;
  /** Runs the C# syntactic extraction over a C# text (the code blocks wrapped in their class). */
  readonly extractCs: (csText: string) => ExtractResult;
}

const CS_KEYWORDS = new Set(['new', 'await', 'async', 'return', 'typeof', 'nameof', 'default', 'this', 'base', 'if', 'for', 'foreach', 'while', 'switch', 'using', 'var']);
const IDENTIFIER = /^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$/;

/**
 * The C# text the code blocks become: `namespace N { partial class C {` and the `@inject`
 * properties on the first line (no line break, so lines stay the file's; the injected names
 * resolve as members inside the blocks), then the file with everything outside its blocks
 * blanked, then `}}`. Non-ASCII characters outside the blocks become as many spaces as their
 * UTF-8 bytes, so a byte offset in the C# text minus the prefix's length is one in the file.
 */
function wrapCode(text: string, blocks: readonly CodeBlock[], ns: string, name: string, injected: string): { cs: string; prefixBytes: number } {
  const open = ns ? `namespace ${ns} { partial class ${name} {` : `partial class ${name} {`;
  const prefix = `${open}${injected}`;
  const parts: string[] = [];
  let pos = 0;
  // Whole lines outside the blocks become `//` comments, so no whitespace run spans many lines
  // (the chunk builder trims headers with a regular expression that is quadratic on one).
  const blankOut = (s: string, lineStart: boolean) =>
    s.replace(/[^\r\n]*/g, (line, offset: number) => {
      const bytes = Buffer.byteLength(line);
      const whole = (offset > 0 || lineStart) && offset + line.length < s.length;
      return whole && bytes >= 2 ? `//${' '.repeat(bytes - 2)}` : ' '.repeat(bytes);
    });
  for (const b of blocks) {
    parts.push(blankOut(text.slice(pos, b.open + 1), pos === 0 || text[pos - 1] === '\n'), text.slice(b.open + 1, b.close), ' ');
    pos = b.close + 1;
  }
  parts.push(blankOut(text.slice(pos), pos === 0 || text[pos - 1] === '\n'));
  return { cs: `${prefix}${parts.join('')}\n}${ns ? '}' : ''}`, prefixBytes: Buffer.byteLength(prefix) };
}

/** Builds nodes and edges; one instance per file. */
class RazorBuilder {
  readonly nodes: ExtractedNode[] = [];
  readonly edges: ExtractedEdge[] = [];
  readonly diagnostics: Diagnostic[] = [];
  private readonly byteAt: (i: number) => number;
  private readonly lineStarts: number[] = [0];
  private readonly members = new Map<string, string>();
  private nextId = 0;
  private readonly keyCounts = new Map<string, number>();
  private readonly edgeSigs = new Set<string>();
  private readonly byId = new Map<string, ExtractedNode>();
  private readonly injected: { type: string; name: string }[] = [];
  readonly fileId: string;
  readonly componentId: string;
  readonly qualifiedName: string;
  readonly key: string;
  hasError = false;

  constructor(
    readonly input: RazorInput,
    readonly scan: RazorScan,
  ) {
    const { path, text } = input;
    this.byteAt = utf8Offsets(text);
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) this.lineStarts.push(i + 1);
    const declared = this.directive('namespace')?.argument.replace(/;$/, '').trim() || null;
    const ns = razorNamespace(path, input.project, declared);
    const name = componentName(path);
    this.qualifiedName = ns ? `${ns}.${name}` : name;
    this.key = symbolKey({ language: 'cs', scope: { kind: 'global' }, containers: ns ? ns.split('.') : [], name, kind: 'class' });
    const lineCount = Math.max(1, countLines(text));
    const whole = { startLine: 1, endLine: lineCount, startByte: 0, endByte: this.byteAt(text.length) };
    this.fileId = this.add({
      kind: 'file',
      name: path.slice(path.lastIndexOf('/') + 1),
      qualifiedName: path,
      symbolKey: symbolKey({ language: 'cs', scope: { kind: 'file', path }, containers: [], name: '', kind: 'file' }),
      parentLocalId: null,
      span: whole,
      signature: '',
      chunkText: '',
    });
    this.componentId = this.add({
      kind: 'component',
      name,
      qualifiedName: this.qualifiedName,
      symbolKey: this.key,
      parentLocalId: this.fileId,
      span: whole,
      signature: `component ${name}`,
      chunkText: text,
      modifiers: ['public', 'partial'],
      isPublicApi: true,
    });
  }

  /** 1-based line of a text offset. */
  lineOf(offset: number): number {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }

  spanOf(start: number, end: number): ExtractedNode['span'] {
    return { startLine: this.lineOf(start), endLine: this.lineOf(Math.max(start, end - 1)), startByte: this.byteAt(start), endByte: this.byteAt(end) };
  }

  directive(keyword: string): Directive | undefined {
    return this.scan.directives.find((d) => d.keyword === keyword);
  }

  add(n: Omit<ExtractedNode, 'localId' | 'disambiguator' | 'parameterCount' | 'returnType' | 'modifiers' | 'isPublicApi' | 'doc'> & Partial<ExtractedNode>): string {
    const localId = `r${this.nextId++}`;
    const disambiguator = this.keyCounts.get(n.symbolKey) ?? 0;
    this.keyCounts.set(n.symbolKey, disambiguator + 1);
    const node: ExtractedNode = { parameterCount: null, returnType: null, modifiers: [], isPublicApi: false, doc: null, ...n, localId, disambiguator };
    this.nodes.push(node);
    this.byId.set(localId, node);
    return localId;
  }

  edge(source: string, type: EdgeType, name: string, line: number, confidence: Confidence, localId?: string, key?: string): void {
    const target = localId !== undefined ? { key: key!, name, localId } : { key: unresolvedKey(name), name };
    const sig = `${source}|${type}|${target.key}|${name}|${line}`;
    if (this.edgeSigs.has(sig)) return;
    this.edgeSigs.add(sig);
    this.edges.push({ sourceLocalId: source, type, confidence, target, line });
  }

  /** The code blocks' members, from the C# extractor over the wrapped text, re-parented to the component. */
  codeMembers(): void {
    const { text } = this.input;
    if (this.scan.blocks.length === 0) return;
    const ns = this.qualifiedName.includes('.') ? this.qualifiedName.slice(0, this.qualifiedName.lastIndexOf('.')) : '';
    const injected = this.injected.map((i) => ` ${i.type} ${i.name} { get; set; }`).join('');
    const { cs, prefixBytes } = wrapCode(text, this.scan.blocks, ns, componentName(this.input.path), injected);
    const result = this.input.extractCs(cs);
    if (result.hasError) {
      this.hasError = true;
      this.diagnostics.push({ severity: 'warning', code: 'razor_code_syntax', message: 'a @code block has C# syntax errors: its members were read as far as the parser could' });
    }
    const classNode = result.nodes.find((n) => n.symbolKey === this.key && n.kind === 'class');
    const remap = new Map<string, string>();
    for (const n of result.nodes) {
      if (n.kind === 'file' || n.kind === 'namespace') remap.set(n.localId, this.fileId);
    }
    if (classNode) remap.set(classNode.localId, this.componentId);
    const fromPrefix = new Set<string>();
    for (const n of result.nodes) {
      // The `@inject` properties declared in the prefix are the directive's nodes already (with their edges).
      const injectedId = n.span.startByte < prefixBytes && n.kind === 'property' ? this.members.get(n.name) : undefined;
      if (injectedId === undefined) continue;
      remap.set(n.localId, injectedId);
      fromPrefix.add(n.localId);
    }
    const shift = (b: number) => Math.max(0, b - prefixBytes);
    for (const n of result.nodes) {
      if (remap.has(n.localId)) continue;
      const parent = n.parentLocalId === null ? this.componentId : (remap.get(n.parentLocalId) ?? n.parentLocalId);
      const id = this.add({ ...n, parentLocalId: parent === this.fileId ? this.componentId : parent, span: { ...n.span, startByte: shift(n.span.startByte), endByte: shift(n.span.endByte) } });
      remap.set(n.localId, id);
      if (parent === this.componentId || parent === this.fileId) this.members.set(n.name, id);
    }
    for (const e of result.edges) {
      const source = remap.get(e.sourceLocalId) ?? this.componentId;
      if (e.type === 'contains' || fromPrefix.has(e.sourceLocalId)) continue;
      const localId = e.target.localId !== undefined ? remap.get(e.target.localId) : undefined;
      this.edges.push({ ...e, sourceLocalId: source, target: localId !== undefined ? { ...e.target, localId } : { key: e.target.key, name: e.target.name } });
    }
  }

  /** `@page`, `@inject`, `@inherits`, `@implements`, `@model`, `@layout`. */
  directives(): void {
    const razorPage = this.input.path.toLowerCase().endsWith('.cshtml');
    for (const d of this.scan.directives) {
      const line = this.lineOf(d.start);
      const arg = d.argument.replace(/;$/, '').trim();
      if (d.keyword === 'page') this.page(d, arg, razorPage, line);
      else if (d.keyword === 'inject') this.inject(d, arg, line);
      else if (d.keyword === 'inherits' && arg) this.edge(this.componentId, 'inherits', arg, line, 'probable');
      else if (d.keyword === 'implements' && arg) for (const i of splitTypes(arg)) this.edge(this.componentId, 'implements', i, line, 'probable');
      else if ((d.keyword === 'model' || d.keyword === 'layout') && arg) this.edge(this.componentId, 'references', arg, line, 'probable');
    }
  }

  private page(d: Directive, arg: string, razorPage: boolean, line: number): void {
    const literal = /^"([^"]*)"/.exec(arg);
    if (!razorPage && !literal) return;
    const raw = razorPage ? razorPageRoute(this.input.path, this.input.project, literal?.[1] || null) : literal![1]!;
    const { template, problem } = normalizeTemplate(raw);
    // A Razor Page answers every method: its model's OnGet/OnPost… handlers are picked inside it.
    const method = razorPage ? 'ANY' : 'GET';
    const name = endpointName(method, template);
    const id = this.add({
      kind: 'endpoint',
      name,
      qualifiedName: name,
      symbolKey: endpointKey(method, template),
      parentLocalId: this.fileId,
      span: this.spanOf(d.start, d.end),
      signature: formatEndpointSignature({ method, template, params: [], approximate: problem }),
      chunkText: this.input.text.slice(d.start, d.end),
    });
    this.edge(id, 'handles', this.qualifiedName, line, 'exact', this.componentId, this.key);
  }

  private inject(d: Directive, arg: string, line: number): void {
    const m = /^(.+?)\s+@?([A-Za-z_]\w*)$/.exec(arg);
    if (!m) {
      this.diagnostics.push({ severity: 'warning', code: 'razor_directive', message: `@inject without a type and a name: "${arg.slice(0, 80)}"`, line });
      return;
    }
    const [, type, name] = m as unknown as [string, string, string];
    const id = this.add({
      kind: 'property',
      name,
      qualifiedName: `${this.qualifiedName}.${name}`,
      symbolKey: symbolKey({ language: 'cs', scope: { kind: 'global' }, containers: this.qualifiedName.split('.'), name, kind: 'property' }),
      parentLocalId: this.componentId,
      span: this.spanOf(d.start, d.end),
      signature: `[Inject] ${type} ${name}`,
      returnType: type,
      modifiers: ['private'],
      chunkText: this.input.text.slice(d.start, d.end),
      attributes: ['Inject'],
    });
    this.members.set(name, id);
    this.injected.push({ type, name });
    this.edge(id, 'references', type.replace(/<.*$/, ''), line, 'probable');
  }

  /** Component tags (`<OrderList Items="…">`), their parameters and every event handler attribute. */
  markup(): void {
    const component = this.input.path.toLowerCase().endsWith('.razor');
    for (const tag of this.scan.tags) {
      const isComponent = component && /^[A-Z]/.test(tag.name.slice(tag.name.lastIndexOf('.') + 1));
      const line = this.lineOf(tag.start);
      if (isComponent) this.componentUse(tag, line);
      for (const a of tag.attributes) {
        if (a.value === null) continue;
        const handler = /^@on[a-z]+$/i.test(a.name) || (isComponent && /^On[A-Z]\w*$/.test(a.name));
        if (handler) this.handlerCalls(a.value, this.lineOf(a.offset));
      }
    }
  }

  private componentUse(tag: Tag, line: number): void {
    this.edge(this.componentId, 'references', tag.name, line, 'probable');
    for (const a of tag.attributes) {
      // Directive attributes (`@bind`, `@ref`, `@key`, `@onclick`) belong to the compiler, not the component.
      if (a.name.startsWith('@') || !/^[A-Za-z_]\w*$/.test(a.name)) continue;
      this.edge(this.componentId, 'references', `${tag.name}.${a.name}`, this.lineOf(a.offset), 'probable');
    }
  }

  /** `Save`, `@Save`, `() => Save(x)`, `@(async e => await SaveAsync(e))`: each method named is called. */
  private handlerCalls(value: string, line: number): void {
    let v = value.trim();
    if (v.startsWith('@(') && v.endsWith(')')) v = v.slice(2, -1).trim();
    else if (v.startsWith('@')) v = v.slice(1);
    const names = IDENTIFIER.test(v) ? [v] : [...v.matchAll(/([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\s*\(/g)].map((m) => m[1]!).filter((n) => !CS_KEYWORDS.has(n));
    for (const name of names) {
      const local = this.members.get(name);
      const node = local !== undefined ? this.byId.get(local) : undefined;
      if (node) this.edge(this.componentId, 'calls', name, line, 'probable', node.localId, node.symbolKey);
      else this.edge(this.componentId, 'calls', name, line, 'approximate');
    }
  }

  unclosed(): void {
    for (const u of this.scan.unclosed) {
      this.hasError = true;
      this.diagnostics.push({
        severity: 'error',
        code: 'razor_unbalanced_block',
        message: `@${u.keyword} block at line ${this.lineOf(u.start)} has no closing "}": its members are not indexed, the markup before it is`,
        line: this.lineOf(u.start),
      });
    }
  }
}

/** `IDisposable, IAsyncDisposable` → both names (commas inside `<…>` kept). */
function splitTypes(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const c of text) {
    if (c === '<') depth++;
    else if (c === '>') depth--;
    if (c === ',' && depth === 0) {
      out.push(cur.trim());
      cur = '';
    } else cur += c;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

/**
 * Extracts one `.razor` or `.cshtml` file: the file node, its component (named by the file, in
 * the namespace the Razor SDK gives it), the code blocks' members with their spans in the file,
 * `@inject` properties, `@page` endpoints, base types, component usages with their parameters and
 * event handler calls. Syntactic: name matches are `probable` (decision 041).
 */
export function extractRazor(input: RazorInput): FileIndex {
  const scan = scanRazor(input.text);
  const b = new RazorBuilder(input, scan);
  b.unclosed();
  b.directives();
  b.codeMembers();
  b.markup();
  return {
    path: input.path,
    language: 'cs',
    parseStatus: b.hasError ? 'partial' : 'ok',
    generated: false,
    lineCount: countLines(input.text),
    nodes: b.nodes,
    edges: b.edges,
    diagnostics: b.diagnostics,
    exports: [b.qualifiedName],
    reExports: [],
  };
}
