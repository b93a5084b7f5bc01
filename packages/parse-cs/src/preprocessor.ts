import type { Diagnostic } from '@ca/schema';

/** Result of {@link applyPreprocessor}. */
export interface PreprocessResult {
  /** The text with inactive branches and directive lines blanked; same length and line breaks as the input. */
  readonly text: string;
  /** Number of lines inside inactive branches (directive lines not counted). */
  readonly inactiveLines: number;
  readonly diagnostics: Diagnostic[];
}

interface Frame {
  /** Whether the enclosing region is active. */
  readonly parentActive: boolean;
  /** Whether some branch of this #if chain has already been taken. */
  taken: boolean;
  /** Whether the current branch is active. */
  active: boolean;
  sawElse: boolean;
  readonly line: number;
}

const DIRECTIVE = /^[ \t\f\v\u00a0\ufeff]*#[ \t]*([a-z]+)\b(.*)$/;

/**
 * Evaluates C# conditional compilation (`#if/#elif/#else/#endif`, `#define/#undef`) and blanks
 * the inactive branches plus every directive line. Each UTF-16 code unit other than `\r`/`\n`
 * becomes a space, so line numbers and string offsets (hence the UTF-8 offsets the adapter
 * computes from the original text) are unchanged.
 */
export function applyPreprocessor(text: string, symbols: ReadonlySet<string>): PreprocessResult {
  const defined = new Set(symbols);
  const diagnostics: Diagnostic[] = [];
  const stack: Frame[] = [];
  const out: string[] = [];
  let inactiveLines = 0;
  let changed = false;
  let pos = 0;
  let lineNo = 0;
  const len = text.length;
  while (pos <= len) {
    lineNo++;
    let end = text.indexOf('\n', pos);
    if (end < 0) end = len;
    const line = text.slice(pos, end);
    const active = stack.length === 0 || stack[stack.length - 1]!.active;
    const m = line.includes('#') ? DIRECTIVE.exec(line.endsWith('\r') ? line.slice(0, -1) : line) : null;
    let blank = false;
    if (m) {
      const name = m[1]!;
      const arg = stripComment(m[2]!).trim();
      switch (name) {
        case 'if': {
          const value = active ? evaluate(arg, defined, diagnostics, lineNo) : false;
          stack.push({ parentActive: active, taken: value, active: active && value, sawElse: false, line: lineNo });
          blank = true;
          break;
        }
        case 'elif':
        case 'else': {
          const top = stack[stack.length - 1];
          if (!top || top.sawElse) {
            diagnostics.push({ severity: 'warning', code: 'preprocessor_unbalanced', message: `#${name} without matching #if`, line: lineNo });
          } else if (name === 'else') {
            top.sawElse = true;
            top.active = top.parentActive && !top.taken;
            top.taken = true;
          } else {
            const value = top.parentActive && !top.taken ? evaluate(arg, defined, diagnostics, lineNo) : false;
            top.active = value;
            if (value) top.taken = true;
          }
          blank = true;
          break;
        }
        case 'endif':
          if (!stack.pop()) {
            diagnostics.push({ severity: 'warning', code: 'preprocessor_unbalanced', message: '#endif without matching #if', line: lineNo });
          }
          blank = true;
          break;
        case 'define':
        case 'undef':
          if (active && /^[A-Za-z_][A-Za-z0-9_]*$/.test(arg)) {
            if (name === 'define') defined.add(arg);
            else defined.delete(arg);
          }
          blank = true;
          break;
        case 'region':
        case 'endregion':
        case 'pragma':
        case 'nullable':
        case 'line':
        case 'error':
        case 'warning':
          // Trivia for a syntactic pass; blanking keeps the grammar from tripping on them.
          blank = true;
          break;
        default:
          blank = !active;
      }
    } else if (!active) {
      blank = true;
      inactiveLines++;
    }
    if (blank) {
      changed = true;
      out.push(line.endsWith('\r') ? ' '.repeat(line.length - 1) + '\r' : ' '.repeat(line.length));
    } else {
      out.push(line);
    }
    if (end === len) break;
    pos = end + 1;
  }
  for (const f of stack) {
    diagnostics.push({ severity: 'warning', code: 'preprocessor_unbalanced', message: '#if without matching #endif', line: f.line });
  }
  return { text: changed ? out.join('\n') : text, inactiveLines, diagnostics };
}

function stripComment(s: string): string {
  const i = s.indexOf('//');
  return i >= 0 ? s.slice(0, i) : s;
}

type Tok = { t: 'id'; v: string } | { t: 'op'; v: string };

function tokenize(expr: string): Tok[] | null {
  const toks: Tok[] = [];
  const re = /\s*(?:([A-Za-z_][A-Za-z0-9_]*)|(&&|\|\||==|!=|!|\(|\)))/y;
  let i = 0;
  while (i < expr.length) {
    if (/^\s*$/.test(expr.slice(i))) break;
    re.lastIndex = i;
    const m = re.exec(expr);
    if (!m) return null;
    toks.push(m[1] !== undefined ? { t: 'id', v: m[1] } : { t: 'op', v: m[2]! });
    i = re.lastIndex;
  }
  return toks;
}

/**
 * Evaluates a preprocessing expression. Precedence (low → high): `||`, `&&`, `==`/`!=`, `!`.
 * Iterative shunting-yard so that deeply nested parentheses cannot overflow the stack.
 */
function evaluate(expr: string, defined: ReadonlySet<string>, diagnostics: Diagnostic[], line: number): boolean {
  const fail = (): boolean => {
    diagnostics.push({ severity: 'warning', code: 'preprocessor_expression', message: `cannot evaluate #if expression "${expr}"; treated as false`, line });
    return false;
  };
  const toks = tokenize(expr);
  if (!toks || toks.length === 0) return fail();
  const prec: Record<string, number> = { '||': 1, '&&': 2, '==': 3, '!=': 3, '!': 4 };
  const values: boolean[] = [];
  const ops: string[] = [];
  const apply = (op: string): boolean => {
    if (op === '!') {
      if (values.length < 1) return false;
      values.push(!values.pop()!);
      return true;
    }
    if (values.length < 2) return false;
    const b = values.pop()!;
    const a = values.pop()!;
    values.push(op === '||' ? a || b : op === '&&' ? a && b : op === '==' ? a === b : a !== b);
    return true;
  };
  let expectOperand = true;
  for (const tok of toks) {
    if (tok.t === 'id') {
      if (!expectOperand) return fail();
      values.push(tok.v === 'true' ? true : tok.v === 'false' ? false : defined.has(tok.v));
      expectOperand = false;
    } else if (tok.v === '(' || tok.v === '!') {
      if (!expectOperand) return fail();
      ops.push(tok.v);
    } else if (tok.v === ')') {
      if (expectOperand) return fail();
      while (ops.length > 0 && ops[ops.length - 1] !== '(') if (!apply(ops.pop()!)) return fail();
      if (ops.pop() !== '(') return fail();
    } else {
      if (expectOperand) return fail();
      const p = prec[tok.v]!;
      // Binary operators are left-associative; unary `!` binds tighter than all of them.
      while (ops.length > 0 && ops[ops.length - 1] !== '(' && prec[ops[ops.length - 1]!]! >= p) {
        if (!apply(ops.pop()!)) return fail();
      }
      ops.push(tok.v);
      expectOperand = true;
    }
  }
  if (expectOperand) return fail();
  while (ops.length > 0) {
    const op = ops.pop()!;
    if (op === '(' || !apply(op)) return fail();
  }
  return values.length === 1 ? values[0]! : fail();
}

const NET_CORE_VERSIONS = ['1.0', '1.1', '2.0', '2.1', '2.2', '3.0', '3.1'];
const NET_STANDARD_VERSIONS = ['1.0', '1.1', '1.2', '1.3', '1.4', '1.5', '1.6', '2.0', '2.1'];
const NET_FRAMEWORK_VERSIONS = ['20', '35', '40', '45', '451', '452', '46', '461', '462', '47', '471', '472', '48', '481'];

/**
 * The preprocessor symbols the .NET SDK defines for a target framework moniker, as documented
 * for MSBuild (`net8.0` → `NET`, `NET8_0`, `NET8_0_OR_GREATER`…`NET5_0_OR_GREATER`,
 * `NETCOREAPP`, `NETCOREAPP3_1_OR_GREATER`…`NETCOREAPP1_0_OR_GREATER`). `_OR_GREATER` symbols
 * never cross families (net8.0 gets no `NETSTANDARD*`). OS-specific TFMs (`net8.0-windows`)
 * add the platform name (`WINDOWS`). Unknown monikers give `[]`.
 */
export function frameworkSymbols(targetFramework: string): string[] {
  const tfm = targetFramework.trim().toLowerCase();
  const [base = '', platform] = tfm.split('-', 2);
  const out: string[] = [];
  const ver = (v: string): string => v.replace('.', '_');
  let m: RegExpExecArray | null;
  if ((m = /^net(\d+)\.(\d+)$/.exec(base)) && Number(m[1]) >= 5) {
    const major = Number(m[1]);
    out.push('NET', `NET${major}_${m[2]}`);
    for (let v = major; v >= 5; v--) out.push(`NET${v}_0_OR_GREATER`);
    out.push('NETCOREAPP');
    for (const v of [...NET_CORE_VERSIONS].reverse()) out.push(`NETCOREAPP${ver(v)}_OR_GREATER`);
  } else if ((m = /^netcoreapp(\d+\.\d+)$/.exec(base))) {
    const idx = NET_CORE_VERSIONS.indexOf(m[1]!);
    if (idx < 0) return [];
    out.push('NETCOREAPP', `NETCOREAPP${ver(m[1]!)}`);
    for (let i = idx; i >= 0; i--) out.push(`NETCOREAPP${ver(NET_CORE_VERSIONS[i]!)}_OR_GREATER`);
  } else if ((m = /^netstandard(\d+\.\d+)$/.exec(base))) {
    const idx = NET_STANDARD_VERSIONS.indexOf(m[1]!);
    if (idx < 0) return [];
    out.push('NETSTANDARD', `NETSTANDARD${ver(m[1]!)}`);
    for (let i = idx; i >= 0; i--) out.push(`NETSTANDARD${ver(NET_STANDARD_VERSIONS[i]!)}_OR_GREATER`);
  } else if ((m = /^net(\d{2,3})$/.exec(base))) {
    const idx = NET_FRAMEWORK_VERSIONS.indexOf(m[1]!);
    if (idx < 0) return [];
    out.push('NETFRAMEWORK', `NET${m[1]}`);
    for (let i = idx; i >= 0; i--) out.push(`NET${NET_FRAMEWORK_VERSIONS[i]}_OR_GREATER`);
  } else {
    return [];
  }
  if (platform) {
    const name = /^[a-z]+/.exec(platform)?.[0];
    if (name) out.push(name.toUpperCase());
  }
  return out;
}

/** Configuration symbols assumed for a syntactic pass: a Release build (no `DEBUG`). */
export const CONFIGURATION_SYMBOLS: readonly string[] = ['RELEASE', 'TRACE'];

/** Symbols used when the caller gives none: a Release build of `net8.0`. */
export const DEFAULT_PREPROCESSOR_SYMBOLS: readonly string[] = [...frameworkSymbols('net8.0'), ...CONFIGURATION_SYMBOLS];
