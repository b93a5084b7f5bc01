/**
 * Globs of the filter language (`path:`, `name:`, `project:`, `returns:`, `type:`) and the
 * syntax check of the configuration's gitignore-style patterns. One small dialect written here
 * rather than a library: picomatch and ignore both accept `[unclosed` or `a{b` silently (the
 * first matches nothing, the second treats it literally), while a user's typo must be an error
 * that says where it is.
 *
 * Syntax: `*` (any characters but `/` in paths), `**` (any number of path segments), `?` (one
 * character), `[abc]`, `[a-z]`, `[!a]` / `[^a]` (classes), `{a,b}` (alternatives, nested), `\x`
 * (a literal x). Semantics per use in `globToRegExp`.
 */

/** A syntax error in a glob: what is wrong and where (0-based offset in the pattern). */
export interface GlobProblem {
  readonly message: string;
  readonly offset: number;
}

/**
 * How a glob is matched:
 * - `path`: against a repo-relative POSIX path, the gitignore way — a pattern without a `/`
 *   (other than a trailing one) matches a file or folder name at any depth (`*.tsx`, `tests`);
 *   one with a `/` is anchored at the repository root (`src/auth/**`, a leading `/` allowed);
 *   a pattern naming a folder selects everything under it (`src/auth`); `*` never crosses a `/`.
 * - `text`: against a whole name or type text, case-insensitively; `*` matches anything
 *   (dots and slashes included).
 */
export type GlobMode = 'path' | 'text';

/** The first syntax problem of a filter glob, or null when it is valid. */
export function globProblem(pattern: string): GlobProblem | null {
  return scan(pattern, true).problem;
}

/**
 * The first syntax problem of a gitignore-style pattern (`indexing.include/exclude/keep`):
 * character classes and escapes are checked; braces are literal in gitignore syntax.
 */
export function gitignorePatternProblem(pattern: string): GlobProblem | null {
  return scan(pattern, false).problem;
}

/** True when a pattern has glob syntax (anything but literal characters). */
export function hasGlobSyntax(pattern: string): boolean {
  return /[*?[\]{}\\]/.test(pattern);
}

/**
 * A regular expression matching what `pattern` selects in `mode` (see `GlobMode`). Throws a
 * plain Error carrying the problem when the glob is invalid; callers validate first
 * (`globProblem`) to report the position.
 */
export function globToRegExp(pattern: string, mode: GlobMode): RegExp {
  if (mode === 'text') {
    const { source, problem } = scan(pattern, true, 'text');
    if (problem) throw new Error(problem.message);
    return new RegExp(`^(?:${source})$`, 'i');
  }
  let p = pattern;
  const directoryOnly = p.length > 1 && p.endsWith('/');
  if (directoryOnly) p = p.slice(0, -1);
  const anchored = p.includes('/');
  if (p.startsWith('/')) p = p.slice(1);
  const { source, problem } = scan(p, true, 'path');
  if (problem) throw new Error(problem.message);
  const tail = directoryOnly ? '/.*' : '(?:/.*)?';
  return new RegExp(anchored ? `^(?:${source})${tail}$` : `(?:^|/)(?:${source})${tail}$`);
}

const REGEX_SPECIAL = /[.*+?^${}()|[\]\\]/;

function literal(ch: string): string {
  return REGEX_SPECIAL.test(ch) ? `\\${ch}` : ch;
}

/**
 * One pass over a pattern: its regular expression source (for `mode`) and its first problem.
 * `braces`: whether `{a,b}` is syntax (filter globs) or literal (gitignore patterns).
 */
function scan(pattern: string, braces: boolean, mode: GlobMode = 'text'): { source: string; problem: GlobProblem | null } {
  if (pattern === '') return { source: '', problem: { message: 'empty pattern', offset: 0 } };
  const star = mode === 'path' ? '[^/]*' : '.*';
  const one = mode === 'path' ? '[^/]' : '.';
  let out = '';
  /** Offsets of the open braces, innermost last. */
  const open: number[] = [];
  let i = 0;
  while (i < pattern.length) {
    const ch = pattern[i]!;
    if (ch === '\\') {
      if (i + 1 >= pattern.length) return { source: out, problem: { message: 'a trailing \\ escapes nothing', offset: i } };
      out += literal(pattern[i + 1]!);
      i += 2;
      continue;
    }
    if (ch === '*') {
      let j = i;
      while (pattern[j] === '*') j++;
      if (j - i >= 2 && mode === 'path') {
        // `**` spans segments: `a/**/b` also matches `a/b`, a leading `**/` any depth, a trailing `/**` anything below.
        const before = i === 0 || pattern[i - 1] === '/';
        const after = j === pattern.length || pattern[j] === '/';
        if (before && after) {
          if (pattern[j] === '/') {
            out += '(?:.*/)?';
            j++;
          } else if (out.endsWith('/')) {
            out = `${out.slice(0, -1)}(?:/.*)?`;
          } else {
            out += '.*';
          }
        } else {
          out += star;
        }
      } else {
        out += j - i >= 2 ? '.*' : star;
      }
      i = j;
      continue;
    }
    if (ch === '?') {
      out += one;
      i++;
      continue;
    }
    if (ch === '[') {
      const cls = scanClass(pattern, i, mode);
      if ('problem' in cls) return { source: out, problem: cls.problem };
      out += cls.source;
      i = cls.end;
      continue;
    }
    if (braces && ch === '{') {
      open.push(i);
      out += '(?:';
      i++;
      continue;
    }
    if (braces && ch === '}') {
      if (open.length === 0) return { source: out, problem: { message: 'unmatched }', offset: i } };
      open.pop();
      out += ')';
      i++;
      continue;
    }
    if (braces && ch === ',' && open.length > 0) {
      out += '|';
      i++;
      continue;
    }
    if (!braces && ch === ']') {
      out += '\\]';
      i++;
      continue;
    }
    if (braces && ch === ']') return { source: out, problem: { message: 'unmatched ] (a literal ] is written \\])', offset: i } };
    out += literal(ch);
    i++;
  }
  if (open.length > 0) return { source: out, problem: { message: 'unclosed {', offset: open[open.length - 1]! } };
  return { source: out, problem: null };
}

/** A character class starting at `start` (`[`): its source and where it ends, or its problem. */
function scanClass(pattern: string, start: number, mode: GlobMode): { source: string; end: number } | { problem: GlobProblem } {
  let i = start + 1;
  let negate = false;
  if (pattern[i] === '!' || pattern[i] === '^') {
    negate = true;
    i++;
  }
  let body = '';
  let first = true;
  for (; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === ']' && !first) {
      if (body === '') return { problem: { message: 'empty character class', offset: start } };
      // A class never matches the path separator, as `*` and `?` do not.
      const source = negate ? `[^${body}${mode === 'path' ? '/' : ''}]` : `[${body}]`;
      return { source, end: i + 1 };
    }
    if (ch === ']' && first) return { problem: { message: 'empty character class', offset: start } };
    first = false;
    if (ch === '\\') {
      if (i + 1 >= pattern.length) break;
      body += `\\${pattern[i + 1]}`;
      i++;
      continue;
    }
    if (ch === '-' && body !== '' && pattern[i + 1] !== undefined && pattern[i + 1] !== ']') {
      const from = pattern[i - 1]!;
      const to = pattern[i + 1]!;
      if (to < from) return { problem: { message: `invalid range ${from}-${to} in character class`, offset: i - 1 } };
      body += '-';
      continue;
    }
    body += ch === '[' || ch === '^' || ch === '-' ? `\\${ch}` : ch;
  }
  return { problem: { message: 'unclosed character class [', offset: start } };
}

/** Most alternatives `globToLike` expands braces into (past it the glob is matched by regular expression). */
const MAX_LIKE_ALTERNATIVES = 16;

/**
 * A `text` glob as SQL LIKE patterns (ORed; `\` escapes), or null when it needs a regular
 * expression (character classes, too many brace alternatives). SQLite's LIKE is
 * case-insensitive for ASCII, like the glob; it runs in SQLite itself, far faster than a
 * function called back per row (docs/benchmarks.md, "Figures behind choices in the code").
 */
export function globToLike(pattern: string): string[] | null {
  if (globProblem(pattern)) return null;
  const out: string[] = [];
  const expand = (p: string): boolean => {
    // The first brace group (outermost), expanded one alternative at a time.
    let depth = 0;
    let open = -1;
    for (let i = 0; i < p.length; i++) {
      const c = p[i]!;
      if (c === '\\') {
        i++;
        continue;
      }
      if (c === '{') {
        if (depth++ === 0) open = i;
      } else if (c === '}' && --depth === 0) {
        const alternatives: string[] = [];
        let start = open + 1;
        let d = 0;
        for (let j = open + 1; j < i; j++) {
          const x = p[j]!;
          if (x === '\\') j++;
          else if (x === '{') d++;
          else if (x === '}') d--;
          else if (x === ',' && d === 0) {
            alternatives.push(p.slice(start, j));
            start = j + 1;
          }
        }
        alternatives.push(p.slice(start, i));
        return alternatives.every((a) => expand(p.slice(0, open) + a + p.slice(i + 1)));
      }
    }
    if (out.length >= MAX_LIKE_ALTERNATIVES) return false;
    let like = '';
    for (let i = 0; i < p.length; i++) {
      const c = p[i]!;
      if (c === '[') return false;
      if (c === '\\') {
        const x = p[++i]!;
        like += x === '%' || x === '_' || x === '\\' ? `\\${x}` : x;
      } else if (c === '*') like += '%';
      else if (c === '?') like += '_';
      else like += c === '%' || c === '_' ? `\\${c}` : c;
    }
    out.push(like);
    return true;
  };
  return expand(pattern) ? out : null;
}

/**
 * The longest run of literal characters every match of a `text` glob contains (outside
 * classes and braces), or '' when there is none: a cheap `LIKE '%run%'` narrows the rows a
 * regular expression then checks.
 */
export function globLiteral(pattern: string): string {
  let best = '';
  let run = '';
  const cut = () => {
    if (run.length > best.length) best = run;
    run = '';
  };
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\' && i + 1 < pattern.length) run += pattern[++i]!;
    else if (c === '*' || c === '?') cut();
    else if (c === '[' || c === '{') {
      cut();
      const close = c === '[' ? ']' : '}';
      let depth = 0;
      for (; i < pattern.length; i++) {
        if (pattern[i] === '\\') i++;
        else if (pattern[i] === c) depth++;
        else if (pattern[i] === close && --depth === 0) break;
      }
    } else run += c;
  }
  cut();
  return best;
}
