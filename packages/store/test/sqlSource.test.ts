import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// A check over the store's source: SQL text is built from fixed fragments only. Every value a
// query depends on (a label, a path, a name) is a bound parameter; what may be interpolated into
// a SQL template is text the store's own code fixes: constants, the label-scope helpers called
// with literal columns, `?` placeholder lists, and the few reviewed fragment variables below.

const SRC = join(dirname(fileURLToPath(import.meta.url)), '..', 'src');

/** Literal text that reads as SQL (upper-case keywords, as the store writes them). */
const SQL_TEXT = /^\s*(SELECT|INSERT|UPDATE|DELETE|WITH|CREATE|DROP|ALTER|PRAGMA)\b|\b(FROM|JOIN|WHERE|VALUES|LIMIT|GROUP BY|ORDER BY|EXISTS|SET)\b/;

/** The label-scope helpers (labelScope.ts): fixed text once their arguments are literals. */
const SCOPE_HELPERS = new Set(['inLabelJoin', 'inLabelJoinByLabel', 'inLabelExists', 'inLabelSet', 'labelIdSql', 'labelEntriesCondition']);

/**
 * Fragment variables interpolated by name, per file, each reviewed: they hold SQL built by the
 * store's own code from fixed text (and bind their values to a parameter list), never a value.
 */
const REVIEWED_FRAGMENTS: Readonly<Record<string, readonly string[]>> = {
  // `column(...)` checks its argument is an identifier; `alias` goes through it first.
  'labelScope.ts': ['column(fileId)', 'column(alias)', 'alias'],
  // `where`: filterSql()'s conditions (values pushed to params); `typeSql`: a `?` list.
  'reader.ts': ['where', 'typeSql'],
  // `where`/`condition`/`joins`: compiled filter conditions and the joins they need (params bound).
  'filterSql.ts': ['where', 'condition', 'joins'],
  // `base`/`afterSql`: the find query's FROM…WHERE (filterSql, params bound) and keyset condition.
  'queries.ts': ['base', 'afterSql', 'where'],
  // `from`: a `FROM …` fragment of this file; `near`/`typeColumn`: column names chosen by code.
  'graph.ts': ['from', 'near', 'typeColumn'],
  // `table`: 'edges' or 'superseded_edges' (a loop over two literals); `eligible`: a fixed condition.
  'semanticStore.ts': ['table', 'eligible'],
  // `extra`: column lists passed by this file's statements.
  'writer.ts': ['extra'],
  // `name`/`type`: a migration's column names and types, literals of the migration; `table`/`where`
  // of `fillFts`: one of two FTS table names (a typed union) and a fixed condition on the documentation languages.
  'migrations.ts': ['name', 'type', 'table', 'where'],
  // `m.dims`: the vector width in a `CREATE VIRTUAL TABLE … float[N]` (DDL takes no parameters).
  'vectors.ts': ['m.dims'],
  // `width`: the vector width of the recreated vec0 table, a whole number checked beside it.
  'artifact.ts': ['width'],
  // `where`: filterSql()'s conditions (values pushed to params); `from`: this file's `FROM … WHERE …`.
  'exportNodes.ts': ['where', 'from'],
};

/** Names declared `const NAME = <fixed>` in the file (a fragment computed from fixed parts). */
function fixedConstants(src: ts.SourceFile, reviewed: readonly string[]): Set<string> {
  const out = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (ts.isVariableStatement(node) || ts.isVariableDeclarationList(node)) {
      const list = ts.isVariableStatement(node) ? node.declarationList : node;
      if ((list.flags & ts.NodeFlags.Const) !== 0) {
        for (const d of list.declarations) {
          if (ts.isIdentifier(d.name) && d.initializer && isFixed(d.initializer, src, out, reviewed)) out.add(d.name.text);
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(src);
  return out;
}

/** Whether `e` is SQL text fixed by the code (no value of the caller's can reach it). */
function isFixed(e: ts.Expression, src: ts.SourceFile, constants: ReadonlySet<string>, reviewed: readonly string[]): boolean {
  if (ts.isParenthesizedExpression(e)) return isFixed(e.expression, src, constants, reviewed);
  if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e) || ts.isNumericLiteral(e)) return true;
  if (reviewed.includes(e.getText(src))) return true;
  if (ts.isIdentifier(e)) return /^[A-Z][A-Z0-9_]*$/.test(e.text) || constants.has(e.text);
  if (ts.isElementAccessExpression(e)) return ts.isIdentifier(e.expression) && /^[A-Z][A-Z0-9_]*$/.test(e.expression.text);
  if (ts.isConditionalExpression(e)) return isFixed(e.whenTrue, src, constants, reviewed) && isFixed(e.whenFalse, src, constants, reviewed);
  if (ts.isTemplateExpression(e)) return e.templateSpans.every((s) => isFixed(s.expression, src, constants, reviewed));
  if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.PlusToken) {
    return isFixed(e.left, src, constants, reviewed) && isFixed(e.right, src, constants, reviewed);
  }
  if (ts.isCallExpression(e)) {
    const callee = e.expression;
    // A labelScope helper with literal arguments.
    if (ts.isIdentifier(callee) && SCOPE_HELPERS.has(callee.text)) return e.arguments.every((a) => ts.isStringLiteral(a));
    // `xs.map(() => '?').join(',')`: one placeholder per value.
    if (ts.isPropertyAccessExpression(callee) && callee.name.text === 'join' && e.arguments.every((a) => ts.isStringLiteral(a))) {
      const inner = callee.expression;
      if (ts.isCallExpression(inner) && ts.isPropertyAccessExpression(inner.expression) && inner.expression.name.text === 'map') {
        const fn = inner.arguments[0];
        return fn !== undefined && ts.isArrowFunction(fn) && ts.isStringLiteral(fn.body) && fn.body.text === '?';
      }
    }
  }
  return false;
}

/** Interpolations of non-fixed text into SQL in `source` (one line each: `file:line: expression`). */
export function sqlInterpolations(fileName: string, source: string, reviewed: readonly string[] = []): string[] {
  const src = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true);
  const constants = fixedConstants(src, reviewed);
  const out: string[] = [];
  const report = (node: ts.Node, why: string) =>
    out.push(`${fileName}:${src.getLineAndCharacterOfPosition(node.getStart(src)).line + 1}: ${why} ${node.getText(src).replace(/\s+/g, ' ')}`);
  const visit = (node: ts.Node): void => {
    if (ts.isTemplateExpression(node)) {
      const text = node.head.text + node.templateSpans.map((s) => s.literal.text).join('');
      if (SQL_TEXT.test(text)) {
        let before = node.head.text;
        for (const span of node.templateSpans) {
          // A value inside a SQL string literal (`'${x}'`, `'%${x}'`) is never fixed text.
          if (/'%?$/.test(before)) report(span.expression, 'quoted:');
          else if (!isFixed(span.expression, src, constants, reviewed)) report(span.expression, 'interpolated:');
          before = span.literal.text;
        }
      }
    }
    if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
      const sides = [node.left, node.right];
      const sqlSide = sides.some((s) => (ts.isStringLiteral(s) || ts.isNoSubstitutionTemplateLiteral(s)) && SQL_TEXT.test(s.text));
      if (sqlSide) for (const s of sides) if (!isFixed(s, src, constants, reviewed)) report(s, 'concatenated:');
    }
    ts.forEachChild(node, visit);
  };
  visit(src);
  return out;
}

describe('SQL text in packages/store/src', () => {
  it('interpolates no value: only constants, label-scope helpers, placeholder lists and reviewed fragments', () => {
    const files = readdirSync(SRC).filter((n) => n.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(20);
    const violations = files.flatMap((name) => sqlInterpolations(name, readFileSync(join(SRC, name), 'utf8'), REVIEWED_FRAGMENTS[name] ?? []));
    expect(violations).toEqual([]);
  });

  it('catches a planted label (and any other value) pasted into SQL text, quoted, escaped or concatenated', () => {
    // The shape the reader's label join had before: the label name pasted into the SQL, escaped.
    const planted = [
      'class R {',
      '  inLabel(): string {',
      "    return `JOIN label_files lf ON lf.file_id = n.file_id AND lf.label_id = (SELECT id FROM labels WHERE name = '${this.label.replace(/'/g, \"''\")}')`;",
      '  }',
      '  byPath(path: string, label: string) {',
      '    const sql = `SELECT * FROM files f WHERE f.path = ${path}`;',
      "    const other = 'SELECT id FROM labels WHERE name = ' + label;",
      "    const fine = `SELECT * FROM nodes n ${inLabelJoin('n.file_id')} WHERE n.kind IN (${[1, 2].map(() => '?').join(',')})`;",
      '    const bad = `SELECT * FROM nodes n ${inLabelJoin(label)}`;',
      '  }',
      '}',
    ].join('\n');
    expect(sqlInterpolations('planted.ts', planted)).toEqual([
      `planted.ts:3: quoted: this.label.replace(/'/g, "''")`,
      'planted.ts:6: interpolated: path',
      'planted.ts:7: concatenated: label',
      'planted.ts:9: interpolated: inLabelJoin(label)',
    ]);
    // A reviewed fragment name is allowed only in the file it is reviewed for.
    expect(sqlInterpolations('planted.ts', 'const q = `SELECT 1 FROM t WHERE 1 = 1 ${where}`;')).toEqual(['planted.ts:1: interpolated: where']);
    expect(sqlInterpolations('planted.ts', 'const q = `SELECT 1 FROM t WHERE 1 = 1 ${where}`;', ['where'])).toEqual([]);
  });
});

// A list bound as one parameter (`json_each(?)`) that drives a join must come first: SQLite cannot
// estimate a list's size, so with a plain JOIN it may start from the other table instead. The
// tie ordering of BM25 hits (`orderTies`) did: it read every file of the label and each file's
// nodes to place ~40 ids (120–150 ms of a 100K index's ~160 ms BM25 search; 8 ms with CROSS JOIN).
/** `file:line: text` of each `json_each(?) <alias>` followed by a join that is not a CROSS JOIN. */
function unforcedListJoins(name: string, text: string): string[] {
  const out: string[] = [];
  const re = /json_each\(\?\)\s+(?:AS\s+)?[a-z_]+\s+((?:LEFT\s+|INNER\s+|CROSS\s+)?JOIN)\b/gi;
  for (const m of text.matchAll(re)) {
    if (/^CROSS\s+JOIN$/i.test(m[1]!)) continue;
    out.push(`${name}:${text.slice(0, m.index).split('\n').length}: ${m[0].replace(/\s+/g, ' ')}`);
  }
  return out;
}

describe('lists bound as one parameter in packages/store/src', () => {
  it('drive their joins with CROSS JOIN', () => {
    const files = readdirSync(SRC).filter((n) => n.endsWith('.ts'));
    expect(files.flatMap((name) => unforcedListJoins(name, readFileSync(join(SRC, name), 'utf8')))).toEqual([]);
  });

  it('finds a planted plain join, left join and aliased join, and passes the forced ones', () => {
    const planted = [
      'const a = `SELECT n.id FROM json_each(?) t JOIN nodes n ON n.id = t.value`;',
      'const b = `SELECT n.id FROM json_each(?) AS t LEFT JOIN nodes n ON n.id = t.value`;',
      'const c = `SELECT n.id FROM json_each(?) t CROSS JOIN nodes n ON n.id = t.value`;',
      'const d = `SELECT n.id FROM nodes n WHERE n.id IN (SELECT value FROM json_each(?))`;',
    ].join('\n');
    expect(unforcedListJoins('planted.ts', planted)).toEqual(['planted.ts:1: json_each(?) t JOIN', 'planted.ts:2: json_each(?) AS t LEFT JOIN']);
  });
});
