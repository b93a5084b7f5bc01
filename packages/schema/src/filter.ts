/**
 * The filter language shared by the CLI (`--filter`, `ca find`), the MCP tools and the library:
 * `field:value` terms combined with `and`, `or`, `not` and parentheses. This module parses and
 * validates (pure, no I/O); @ca/store compiles the tree to SQL and @ca/retrieve applies it
 * inside every search channel. Grammar, fields and semantics: docs/decisions/019-filter-language.md.
 *
 * ```
 * expr    := or
 * or      := and ('or' and)*
 * and     := unary (['and'] unary)*        -- juxtaposition is `and`
 * unary   := 'not' unary | primary
 * primary := '(' expr ')' | FIELD ':' VALUE
 * ```
 * Keywords are case-insensitive. A value is a run of characters up to white space or a `)` it
 * did not open (`path:src/@(a|b)/**` keeps its own parentheses), or a quoted string
 * (`name:"a b"`, `'…'`, with `\` escaping the quote).
 */
import { CaError } from './errors.js';
import { globProblem } from './glob.js';
import { LANGUAGES, NODE_KINDS, type Language, type NodeKind } from './model.js';

/** The fields of a term, as written (aliases resolved: `language` → `lang`, `package` → `project`). */
export const FILTER_FIELDS = ['lang', 'kind', 'path', 'name', 'project', 'is', 'returns', 'type', 'label'] as const;
export type FilterField = (typeof FILTER_FIELDS)[number];

/** Values of `is:`. */
export const FILTER_FLAGS = ['test', 'generated', 'public'] as const;
export type FilterFlag = (typeof FILTER_FLAGS)[number];

/** One `field:value` term; `position` is the 0-based offset of the term in the expression. */
export type FilterTerm =
  | { readonly op: 'term'; readonly field: 'lang'; readonly value: Language; readonly position: number }
  | { readonly op: 'term'; readonly field: 'kind'; readonly value: NodeKind; readonly position: number }
  | { readonly op: 'term'; readonly field: 'is'; readonly value: FilterFlag; readonly position: number }
  | {
      readonly op: 'term';
      readonly field: 'path' | 'name' | 'project' | 'returns' | 'type' | 'label';
      /** A glob (see glob.ts), validated; for `label`, a label name. */
      readonly value: string;
      readonly position: number;
    };

/** A parsed, validated filter expression. */
export type FilterNode =
  | FilterTerm
  | { readonly op: 'and' | 'or'; readonly args: readonly FilterNode[] }
  | { readonly op: 'not'; readonly arg: FilterNode };

const FIELD_ALIASES: Readonly<Record<string, FilterField>> = {
  lang: 'lang',
  language: 'lang',
  kind: 'kind',
  path: 'path',
  name: 'name',
  project: 'project',
  package: 'project',
  is: 'is',
  returns: 'returns',
  type: 'type',
  label: 'label',
};

const LANGUAGE_ALIASES: Readonly<Record<string, Language>> = {
  ts: 'ts',
  tsx: 'ts',
  typescript: 'ts',
  js: 'js',
  jsx: 'js',
  javascript: 'js',
  cs: 'cs',
  csharp: 'cs',
  'c#': 'cs',
};

const KEYWORDS = new Set(['and', 'or', 'not']);
/** Longest filter expression accepted (a pasted file is a mistake, not a filter). */
const MAX_FILTER_CHARS = 4096;
/** Deepest nesting of parentheses and `not` (the parser recurses). */
const MAX_DEPTH = 64;

type Token =
  | { readonly type: '(' | ')' | 'and' | 'or' | 'not' | 'end'; readonly position: number; readonly text: string }
  | { readonly type: 'term'; readonly position: number; readonly text: string; readonly field: string; readonly value: string; readonly valuePosition: number; readonly quoted: boolean }
  | { readonly type: 'word'; readonly position: number; readonly text: string };

/** A usage error pointing at `position` (0-based) of `expression`, shown 1-based as a column. */
export function filterError(expression: string, position: number, message: string): CaError {
  return new CaError('invalid_query', `invalid filter at column ${position + 1}: ${message}`, {
    context: { expression, position },
  });
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    if (ch === '(') {
      tokens.push({ type: '(', position: i, text: '(' });
      i++;
      continue;
    }
    if (ch === ')') {
      tokens.push({ type: ')', position: i, text: ')' });
      i++;
      continue;
    }
    const start = i;
    // A field name, or a keyword / bare word.
    while (i < text.length && /[A-Za-z_-]/.test(text[i]!)) i++;
    if (text[i] === ':' && i > start) {
      const field = text.slice(start, i);
      i++;
      const valuePosition = i;
      const q = text[i];
      if (q === '"' || q === "'") {
        let value = '';
        i++;
        let closed = false;
        while (i < text.length) {
          const c = text[i]!;
          if (c === '\\' && (text[i + 1] === q || text[i + 1] === '\\')) {
            value += text[i + 1];
            i += 2;
            continue;
          }
          if (c === q) {
            closed = true;
            i++;
            break;
          }
          value += c;
          i++;
        }
        if (!closed) throw filterError(text, valuePosition, `unclosed quote ${q}`);
        tokens.push({ type: 'term', position: start, text: text.slice(start, i), field, value, valuePosition: valuePosition + 1, quoted: true });
        continue;
      }
      // An unquoted value: up to white space, or a `)` the value did not open.
      let inner = 0;
      while (i < text.length && !/\s/.test(text[i]!)) {
        if (text[i] === '(') inner++;
        else if (text[i] === ')') {
          if (inner === 0) break;
          inner--;
        }
        i++;
      }
      tokens.push({ type: 'term', position: start, text: text.slice(start, i), field, value: text.slice(valuePosition, i), valuePosition, quoted: false });
      continue;
    }
    // Not a term: a keyword or a stray word, up to white space or a parenthesis.
    while (i < text.length && !/[\s()]/.test(text[i]!)) i++;
    if (i === start) i++;
    const word = text.slice(start, i);
    const lower = word.toLowerCase();
    if (KEYWORDS.has(lower)) tokens.push({ type: lower as 'and' | 'or' | 'not', position: start, text: word });
    else tokens.push({ type: 'word', position: start, text: word });
  }
  tokens.push({ type: 'end', position: text.length, text: '' });
  return tokens;
}

const FIELD_LIST = 'lang, kind, path, name, project (package), is, returns, type, label';

/**
 * Parses and validates a filter expression. Errors are `invalid_query` CaErrors whose message
 * names the column of the problem (unbalanced parentheses, an operator without an operand, an
 * unknown field or value, an invalid glob) and whose context carries `position` (0-based).
 */
export function parseFilter(expression: string): FilterNode {
  if (expression.length > MAX_FILTER_CHARS) throw filterError(expression, MAX_FILTER_CHARS, `the filter is longer than ${MAX_FILTER_CHARS} characters`);
  if (expression.trim() === '') throw filterError(expression, 0, 'the filter is empty');
  const tokens = tokenize(expression);
  let at = 0;
  const peek = (): Token => tokens[at]!;
  const next = (): Token => tokens[at++]!;
  const describe = (t: Token): string => (t.type === 'end' ? 'the end of the filter' : `"${t.text}"`);

  const needOperand = (op: Token, t: Token): never => {
    if (op.type === 'not') throw filterError(expression, op.position, `"not" needs an operand, found ${describe(t)}`);
    throw filterError(expression, op.position, `"${op.text}" needs an operand on each side, found ${describe(t)} after it`);
  };
  const startsOperand = (t: Token): boolean => t.type === '(' || t.type === 'not' || t.type === 'term' || t.type === 'word';

  const parseOr = (depth: number): FilterNode => {
    const args = [parseAnd(depth)];
    while (peek().type === 'or') {
      const op = next();
      if (!startsOperand(peek())) needOperand(op, peek());
      args.push(parseAnd(depth));
    }
    return args.length === 1 ? args[0]! : { op: 'or', args };
  };
  const parseAnd = (depth: number): FilterNode => {
    const args = [parseUnary(depth)];
    for (;;) {
      const t = peek();
      if (t.type === 'and') {
        next();
        if (!startsOperand(peek())) needOperand(t, peek());
        args.push(parseUnary(depth));
      } else if (startsOperand(t)) {
        args.push(parseUnary(depth));
      } else break;
    }
    return args.length === 1 ? args[0]! : { op: 'and', args };
  };
  const parseUnary = (depth: number): FilterNode => {
    if (depth > MAX_DEPTH) throw filterError(expression, peek().position, `nested deeper than ${MAX_DEPTH} levels`);
    const t = peek();
    if (t.type === 'not') {
      next();
      if (!startsOperand(peek())) needOperand(t, peek());
      return { op: 'not', arg: parseUnary(depth + 1) };
    }
    return parsePrimary(depth);
  };
  const parsePrimary = (depth: number): FilterNode => {
    const t = next();
    switch (t.type) {
      case '(': {
        if (peek().type === ')') throw filterError(expression, t.position, 'empty parentheses');
        if (peek().type === 'end') throw filterError(expression, t.position, 'unbalanced parentheses: this ( is never closed');
        const inner = parseOr(depth + 1);
        const close = next();
        if (close.type !== ')') {
          if (close.type === 'end') throw filterError(expression, t.position, 'unbalanced parentheses: this ( is never closed');
          throw filterError(expression, close.position, `expected ) or an operator, found ${describe(close)}`);
        }
        return inner;
      }
      case 'term':
        return termOf(expression, t);
      case 'word':
        throw filterError(expression, t.position, `expected FIELD:VALUE, found "${t.text}" (fields: ${FIELD_LIST})`);
      case ')':
        throw filterError(expression, t.position, 'unbalanced parentheses: this ) has no (');
      case 'and':
      case 'or':
        throw filterError(expression, t.position, `"${t.text}" needs an operand on each side`);
      default:
        throw filterError(expression, t.position, `expected a term, found ${describe(t)}`);
    }
  };

  const root = parseOr(0);
  const rest = peek();
  if (rest.type === ')') throw filterError(expression, rest.position, 'unbalanced parentheses: this ) has no (');
  if (rest.type !== 'end') throw filterError(expression, rest.position, `unexpected ${describe(rest)}`);
  return root;
}

function termOf(expression: string, t: Extract<Token, { type: 'term' }>): FilterTerm {
  const field = FIELD_ALIASES[t.field.toLowerCase()];
  if (!field) throw filterError(expression, t.position, `unknown field "${t.field}" (fields: ${FIELD_LIST})`);
  const value = t.value;
  const position = t.position;
  if (value === '') throw filterError(expression, t.valuePosition, `"${t.field}:" needs a value`);
  switch (field) {
    case 'lang': {
      const lang = LANGUAGE_ALIASES[value.toLowerCase()];
      if (!lang) throw filterError(expression, t.valuePosition, `unknown language "${value}" (languages: ${LANGUAGES.join(', ')})`);
      return { op: 'term', field, value: lang, position };
    }
    case 'kind': {
      const kind = value.toLowerCase();
      if (!(NODE_KINDS as readonly string[]).includes(kind)) throw filterError(expression, t.valuePosition, `unknown kind "${value}" (kinds: ${NODE_KINDS.join(', ')})`);
      return { op: 'term', field, value: kind as NodeKind, position };
    }
    case 'is': {
      const flag = value.toLowerCase();
      if (!(FILTER_FLAGS as readonly string[]).includes(flag)) throw filterError(expression, t.valuePosition, `unknown value "is:${value}" (is:${FILTER_FLAGS.join(', is:')})`);
      return { op: 'term', field, value: flag as FilterFlag, position };
    }
    case 'label':
      if (!/^[\w./@+-]+$/.test(value)) throw filterError(expression, t.valuePosition, `invalid label name "${value}"`);
      return { op: 'term', field, value, position };
    default: {
      const problem = globProblem(value);
      // Inside quotes, offsets are off by the escapes the tokenizer removed; the value's start is exact.
      if (problem) throw filterError(expression, t.valuePosition + (t.quoted ? 0 : problem.offset), `invalid glob "${value}": ${problem.message}`);
      return { op: 'term', field, value, position };
    }
  }
}

/**
 * The canonical text of a filter: what a user would type to get the same tree (terms as
 * `field:value`, values quoted when they need it, every `and`/`or` group in parentheses).
 * Two filters with the same canonical text select the same symbols (cache keys, answers).
 */
export function formatFilter(node: FilterNode): string {
  switch (node.op) {
    case 'term': {
      const v = node.value;
      return `${node.field}:${/^[^\s()"']+$/.test(v) ? v : `"${v.replace(/["\\]/g, (c) => `\\${c}`)}"`}`;
    }
    case 'not':
      return `not ${formatFilter(node.arg)}`;
    default:
      return `(${node.args.map(formatFilter).join(` ${node.op} `)})`;
  }
}

/** The conjunction of filters (nulls skipped); null when none is given. */
export function andFilters(...nodes: readonly (FilterNode | null | undefined)[]): FilterNode | null {
  const present = nodes.filter((n): n is FilterNode => n !== null && n !== undefined);
  if (present.length === 0) return null;
  if (present.length === 1) return present[0]!;
  return { op: 'and', args: present.flatMap((n) => (n.op === 'and' ? n.args : [n])) };
}

/** The terms of a filter, in order (to check which fields it uses). */
export function filterTerms(node: FilterNode): FilterTerm[] {
  switch (node.op) {
    case 'term':
      return [node];
    case 'not':
      return filterTerms(node.arg);
    default:
      return node.args.flatMap(filterTerms);
  }
}

/**
 * The filter of the older separate options (`--lang`, `--kind`, `--path`): languages ORed,
 * kinds ORed, the path glob validated; null when none is given.
 */
export function filterFromOptions(options: { languages?: readonly Language[]; kinds?: readonly NodeKind[]; pathGlob?: string }): FilterNode | null {
  const any = (terms: FilterNode[]): FilterNode | null => (terms.length === 0 ? null : terms.length === 1 ? terms[0]! : { op: 'or', args: terms });
  const langs = any((options.languages ?? []).map((value) => ({ op: 'term', field: 'lang', value, position: 0 }) as const));
  const kinds = any((options.kinds ?? []).map((value) => ({ op: 'term', field: 'kind', value, position: 0 }) as const));
  let path: FilterNode | null = null;
  if (options.pathGlob !== undefined && options.pathGlob !== '') {
    const problem = globProblem(options.pathGlob);
    if (problem) throw new CaError('invalid_query', `invalid --path glob "${options.pathGlob}": ${problem.message} at column ${problem.offset + 1}`);
    path = { op: 'term', field: 'path', value: options.pathGlob, position: 0 };
  }
  return andFilters(langs, kinds, path);
}

/**
 * What a user types for a project: a package.json `name` as it is, a `.csproj` by its file name
 * without the extension (`src/Polly.Core/Polly.Core.csproj` → `Polly.Core`); null for the
 * repository root (no project file above it).
 */
export function projectDisplayName(project: string): string | null {
  if (project === '' || project === '.') return null;
  const m = /([^/]+)\.(cs|fs|vb)proj$/i.exec(project);
  return m ? m[1]! : project;
}
