#!/usr/bin/env node
// Swallowing catch clauses (issue 29, "Errors"): a catch whose error is neither used nor rethrown
// hides a failure unless someone wrote down why that is right. This check fails on every catch
// clause in packages/*/src, apps/*/src and tools/ scripts that
//   - does not reference its error variable (or has none),
//   - has no `throw` of its own (outside nested functions), and
//   - carries no comment saying why: a `//` or `/* */` comment of at least three words inside the
//     block or on the line of the `catch` keyword.
// A catch that wraps should hand the cause on (`new CaError(code, message, { cause: e })`), which
// uses the variable and so passes.
//
//   node tools/check-catches.mjs     (`pnpm lint` runs it)
//
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(import.meta.url), '../..');
const require = createRequire(join(ROOT, 'packages/parse-ts/package.json'));
const ts = require('typescript');

/** The fewest words a why-comment has: "ignore" or "noop" names no reason. */
const MIN_COMMENT_WORDS = 3;

function scriptKind(path) {
  if (path.endsWith('.tsx')) return ts.ScriptKind.TSX;
  if (/\.(mjs|js|cjs)$/.test(path)) return ts.ScriptKind.JS;
  return ts.ScriptKind.TS;
}

/** Comments (their text) between `start` and `end` of `text`, found by the TypeScript scanner. */
function commentsIn(text, start, end) {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text);
  scanner.resetTokenState(start);
  const out = [];
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken && scanner.getTokenStart() < end; kind = scanner.scan()) {
    if (kind === ts.SyntaxKind.SingleLineCommentTrivia || kind === ts.SyntaxKind.MultiLineCommentTrivia) out.push(scanner.getTokenText());
  }
  return out;
}

function saysWhy(comment) {
  const body = comment.replace(/^\/\/|^\/\*|\*\/$/g, '').replace(/eslint-disable\S*|@ts-\S+/g, '');
  return body.split(/\s+/).filter((w) => /\w/.test(w)).length >= MIN_COMMENT_WORDS;
}

/** True when `block` contains a throw statement that is its own (not inside a nested function). */
function throws(block) {
  let found = false;
  const visit = (node) => {
    if (found || ts.isFunctionLike(node) || ts.isClassLike(node)) return;
    if (ts.isThrowStatement(node)) found = true;
    else ts.forEachChild(node, visit);
  };
  ts.forEachChild(block, visit);
  return found;
}

/** True when an identifier named like the catch variable occurs in `block`. */
function usesVariable(clause) {
  const decl = clause.variableDeclaration;
  if (!decl) return false;
  const names = new Set();
  const collect = (n) => {
    if (ts.isIdentifier(n)) names.add(n.text);
    else ts.forEachChild(n, collect);
  };
  collect(decl.name);
  let used = false;
  const visit = (node) => {
    if (used) return;
    if (ts.isIdentifier(node) && names.has(node.text)) used = true;
    else ts.forEachChild(node, visit);
  };
  visit(clause.block);
  return used;
}

/**
 * Every catch clause of one source text with its verdict: `used`, `throws`, `comment` (a why-comment
 * is present) and `swallows` (neither used nor rethrown). A clause is a violation when it swallows
 * without a comment.
 */
export function catchesIn(text, fileName = 'source.ts') {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, scriptKind(fileName));
  const out = [];
  const visit = (node) => {
    if (ts.isCatchClause(node)) {
      const catchStart = node.getStart(sf);
      const line = sf.getLineAndCharacterOfPosition(catchStart).line;
      const lineStart = sf.getPositionOfLineAndCharacter(line, 0);
      const used = usesVariable(node);
      const rethrows = throws(node.block);
      const comment = commentsIn(text, lineStart, node.block.getEnd()).some(saysWhy);
      const swallows = !used && !rethrows;
      out.push({ line: line + 1, used, throws: rethrows, comment, swallows, violation: swallows && !comment });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

function* sourceFiles(dir, pattern) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (name === 'node_modules' || name === 'dist') continue;
    if (statSync(p).isDirectory()) yield* sourceFiles(p, pattern);
    else if (pattern.test(name) && !name.endsWith('.d.ts')) yield p;
  }
}

/** The files the rule covers under `root`: product sources and the tools' scripts (not their tests). */
export function coveredFiles(root) {
  const files = [];
  for (const group of ['packages', 'apps']) {
    for (const member of readdirSync(join(root, group)).sort()) {
      const src = join(root, group, member, 'src');
      if (statSync(src, { throwIfNoEntry: false })?.isDirectory()) files.push(...sourceFiles(src, /\.(ts|tsx|mts|js|mjs)$/));
    }
  }
  const tools = join(root, 'tools');
  if (statSync(tools, { throwIfNoEntry: false })?.isDirectory()) {
    for (const file of sourceFiles(tools, /\.(mjs|js)$/)) if (!relative(tools, file).startsWith('test/')) files.push(file);
  }
  return files;
}

/**
 * Checks every covered file under `root`. Returns `{ catches, swallowing, violations }` where
 * `violations` lists `{ file, line }` of swallowing catches without a why-comment.
 */
export function checkCatches(root) {
  let catches = 0;
  let swallowing = 0;
  const violations = [];
  for (const file of coveredFiles(root)) {
    const rel = relative(root, file).split('\\').join('/');
    for (const c of catchesIn(readFileSync(file, 'utf8'), file)) {
      catches++;
      if (c.swallows) swallowing++;
      if (c.violation) violations.push({ file: rel, line: c.line });
    }
  }
  return { catches, swallowing, violations };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { catches, swallowing, violations } = checkCatches(ROOT);
  for (const v of violations) console.error(`${v.file}:${v.line}: catch swallows its error without a // why comment`);
  console.log(`${catches} catch clauses, ${swallowing} swallow the error, ${violations.length} of them without a why-comment`);
  if (violations.length > 0) process.exit(1);
}
