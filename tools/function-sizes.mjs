#!/usr/bin/env node
// Function sizes in the product's source (issue 29: "no function outside tests over 200 lines").
// Walks every .ts/.tsx/.mts file under packages/*/src and apps/*/src with the TypeScript parser and
// measures each function-like node (declarations, methods, constructors, accessors, arrow functions
// and function expressions) in source lines, from its first to its last line. A nested function is
// counted inside its parent too: the parent is what a reader has to hold.
//
//   node tools/function-sizes.mjs [--top 10] [--max 200] [--json]
//
// Prints the largest --top functions; exits 1 when any is over --max lines.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const ROOT = resolve(import.meta.dirname, '..');
const require = createRequire(join(ROOT, 'packages/parse-ts/package.json'));
const ts = require('typescript');
const { values } = parseArgs({ options: { top: { type: 'string', default: '10' }, max: { type: 'string', default: '200' }, json: { type: 'boolean', default: false } } });

function* sourceFiles(dir) {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) yield* sourceFiles(path);
    else if (/\.(ts|tsx|mts)$/.test(entry) && !entry.endsWith('.d.ts')) yield path;
  }
}

function roots() {
  const out = [];
  for (const group of ['packages', 'apps']) {
    for (const name of readdirSync(join(ROOT, group))) {
      const src = join(ROOT, group, name, 'src');
      try {
        if (statSync(src).isDirectory()) out.push(src);
      } catch {
        // a package without src/ (e.g. data only) has no functions to measure
      }
    }
  }
  return out;
}

function nameOf(node, sf) {
  if (node.name) return node.name.getText(sf);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent)) return parent.name.getText(sf);
  if (parent && ts.isPropertyAssignment(parent)) return parent.name.getText(sf);
  if (parent && ts.isCallExpression(parent)) return `(callback of ${parent.expression.getText(sf).slice(0, 40)})`;
  return '(anonymous)';
}

const functions = [];
for (const root of roots()) {
  for (const file of sourceFiles(root)) {
    const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node) => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
        const end = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
        functions.push({ file: relative(ROOT, file), line: start + 1, name: nameOf(node, sf), lines: end - start + 1 });
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
}
functions.sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file));
const max = Number(values.max);
const over = functions.filter((f) => f.lines > max);
const top = functions.slice(0, Number(values.top));
if (values.json) console.log(JSON.stringify({ functions: functions.length, max, over, top }, null, 1));
else {
  for (const f of top) console.log(`${String(f.lines).padStart(5)}  ${f.name}  ${f.file}:${f.line}`);
  console.log(`${functions.length} functions; ${over.length} over ${max} lines`);
}
process.exit(over.length > 0 ? 1 : 0);
