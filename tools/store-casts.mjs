#!/usr/bin/env node
// Counts, per file of a source folder (default packages/store/src): casts (`x as T`, `as const`
// excluded) and inline row types: an object type literal written inside a cast's type
// (`.get() as { n: number }`, `.all() as Array<{ id: number }>`) or in the type argument of a typed
// read (`selectAll<{ id: number }>(…)`); nested literals count once.
// Usage: node tools/store-casts.mjs [folder]
import ts from 'typescript';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2] ?? 'packages/store/src';
let casts = 0;
let inline = 0;
for (const name of readdirSync(dir).filter((n) => n.endsWith('.ts')).sort()) {
  const src = ts.createSourceFile(name, readFileSync(join(dir, name), 'utf8'), ts.ScriptTarget.Latest, true);
  let c = 0;
  let i = 0;
  const literalsIn = (type) => {
    if (ts.isTypeLiteralNode(type)) return 1;
    let n = 0;
    ts.forEachChild(type, (k) => (n += literalsIn(k)));
    return n;
  };
  const visit = (node) => {
    if (ts.isAsExpression(node) && node.type.getText(src) !== 'const') {
      c++;
      i += literalsIn(node.type);
    }
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && /^select[A-Z]/.test(node.expression.text)) {
      for (const t of node.typeArguments ?? []) i += literalsIn(t);
    }
    ts.forEachChild(node, visit);
  };
  visit(src);
  casts += c;
  inline += i;
  if (c > 0 || i > 0) console.log(`${name}\tcasts ${c}\tinline row types ${i}`);
}
console.log(`total\tcasts ${casts}\tinline row types ${inline}`);
