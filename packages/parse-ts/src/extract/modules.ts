/**
 * Module facts: ES imports and exports, `require` calls and CommonJS export assignments, recorded
 * into {@link FileFacts} (import bindings and edges, export names, exported locals, re-exports).
 */
import type { Node as TsNode } from 'web-tree-sitter';
import type { FileFacts } from './model.js';
import { resolveModulePath } from '../text.js';
import { stripQuotes } from './syntax.js';

/** `import … from 'x'`, `import 'x'`, `import x = require('x')`. */
export function importStatement(facts: FileFacts, node: TsNode): void {
  const text = facts.text;
  const line = node.startPosition.row + 1;
  const source = node.childForFieldName('source');
  for (const child of node.namedChildren) {
    if (child === null) continue;
    if (child.type === 'import_require_clause') {
      const id = child.namedChildren.find((c) => c?.type === 'identifier');
      const src = child.childForFieldName('source');
      if (id && src) facts.addImport(text.slice(id.startIndex, id.endIndex), stripQuotes(text.slice(src.startIndex, src.endIndex)), '*', line);
      return;
    }
  }
  if (source === null) return;
  const specifier = stripQuotes(text.slice(source.startIndex, source.endIndex));
  const clause = node.namedChildren.find((c) => c?.type === 'import_clause');
  if (!clause) {
    facts.addImport('', specifier, '*', line); // side-effect import
    return;
  }
  for (const part of clause.namedChildren) {
    if (part === null) continue;
    if (part.type === 'identifier') facts.addImport(text.slice(part.startIndex, part.endIndex), specifier, 'default', line);
    else if (part.type === 'namespace_import') {
      const id = part.namedChildren.find((c) => c?.type === 'identifier');
      if (id) facts.addImport(text.slice(id.startIndex, id.endIndex), specifier, '*', line);
    } else if (part.type === 'named_imports') namedImports(facts, part, specifier);
  }
}

/** `{ a, b as c }` of an import clause. */
function namedImports(facts: FileFacts, part: TsNode, specifier: string): void {
  const text = facts.text;
  for (const spec of part.namedChildren) {
    if (spec === null || spec.type !== 'import_specifier') continue;
    const nameNode = spec.childForFieldName('name');
    const alias = spec.childForFieldName('alias');
    if (nameNode === null) continue;
    const imported = stripQuotes(text.slice(nameNode.startIndex, nameNode.endIndex));
    const local = alias ? text.slice(alias.startIndex, alias.endIndex) : imported;
    facts.addImport(local, specifier, imported, spec.startPosition.row + 1);
  }
}

/**
 * An `export` statement without a declaration or value: `export … from` (re-export),
 * `export { a, b as c }`, or else `export = X`.
 */
export function exportWithoutDeclaration(facts: FileFacts, node: TsNode): void {
  if (exportClause(facts, node)) return;
  // `export = X;`
  const id = node.namedChildren.find((c) => c?.type === 'identifier');
  if (id) {
    facts.addExport('default');
    facts.exportedLocals.push(facts.text.slice(id.startIndex, id.endIndex));
  }
}

/** `export … from` (re-export) and `export { a, b as c }`. Returns true when the statement is fully handled. */
function exportClause(facts: FileFacts, node: TsNode): boolean {
  const text = facts.text;
  const source = node.childForFieldName('source');
  const specifier = source ? stripQuotes(text.slice(source.startIndex, source.endIndex)) : null;
  let clause: TsNode | null = null;
  let nsExport: TsNode | null = null;
  for (const c of node.namedChildren) {
    if (c?.type === 'export_clause') clause = c;
    else if (c?.type === 'namespace_export') nsExport = c;
  }
  if (specifier !== null && (clause === null || nsExport !== null)) {
    starExport(facts, node, specifier, nsExport);
    return true;
  }
  if (clause === null) return false;
  const modulePath = specifier !== null ? resolveModulePath(facts.path, specifier) : null;
  const names: string[] = [];
  for (const spec of clause.namedChildren) {
    if (spec === null || spec.type !== 'export_specifier') continue;
    const nameNode = spec.childForFieldName('name');
    const alias = spec.childForFieldName('alias');
    if (nameNode === null) continue;
    const local = stripQuotes(text.slice(nameNode.startIndex, nameNode.endIndex));
    const exported = alias ? stripQuotes(text.slice(alias.startIndex, alias.endIndex)) : local;
    facts.addExport(exported);
    names.push(exported);
    if (specifier !== null) {
      facts.addImport(exported, specifier, local, spec.startPosition.row + 1, false); // re-exports bind no local name
    } else facts.exportedLocals.push(local);
  }
  if (specifier !== null && modulePath !== null && names.length > 0) facts.reExports.push({ modulePath, names });
  return true;
}

/** `export * from './x'` and `export * as ns from './x'`. */
function starExport(facts: FileFacts, node: TsNode, specifier: string, nsExport: TsNode | null): void {
  const line = node.startPosition.row + 1;
  if (nsExport === null) {
    facts.addImport('*', specifier, '*', line, false);
    const modulePath = resolveModulePath(facts.path, specifier);
    if (modulePath !== null) facts.reExports.push({ modulePath, names: '*' });
    return;
  }
  const id = nsExport.namedChildren.find((c) => c !== null && (c.type === 'identifier' || c.type === 'string'));
  if (id) {
    const name = stripQuotes(facts.text.slice(id.startIndex, id.endIndex));
    facts.addImport(name, specifier, '*', line, false); // `export * as ns` binds no local name
    facts.addExport(name);
  }
}

/** `require('x')`: bound to a variable, destructured, or bare (a side-effect import). */
export function requireCall(facts: FileFacts, call: TsNode, specifier: string): void {
  const text = facts.text;
  const line = call.startPosition.row + 1;
  const parent = call.parent;
  if (parent !== null && parent.type === 'variable_declarator') {
    const nameNode = parent.childForFieldName('name');
    if (nameNode?.type === 'identifier') {
      facts.addImport(text.slice(nameNode.startIndex, nameNode.endIndex), specifier, '*', line);
      return;
    }
    if (nameNode?.type === 'object_pattern') {
      for (const p of nameNode.namedChildren) {
        if (p === null) continue;
        if (p.type === 'shorthand_property_identifier_pattern') {
          const n = text.slice(p.startIndex, p.endIndex);
          facts.addImport(n, specifier, n, line);
        } else if (p.type === 'pair_pattern') {
          const key = p.childForFieldName('key');
          const value = p.childForFieldName('value');
          if (key && value?.type === 'identifier') {
            facts.addImport(text.slice(value.startIndex, value.endIndex), specifier, stripQuotes(text.slice(key.startIndex, key.endIndex)), line);
          }
        }
      }
      return;
    }
  }
  facts.addImport('', specifier, '*', line);
}

/** `module.exports = …` / `exports.x = …`: export names and exported locals. */
export function commonJsExport(facts: FileFacts, assign: TsNode): void {
  const text = facts.text;
  const left = assign.childForFieldName('left');
  const right = assign.childForFieldName('right');
  if (left === null || right === null || left.type !== 'member_expression') return;
  const target = text.slice(left.startIndex, left.endIndex).replace(/\s+/g, '');
  if (target === 'module.exports') {
    facts.addExport('default');
    if (right.type === 'identifier') facts.exportedLocals.push(text.slice(right.startIndex, right.endIndex));
    if (right.type === 'object') exportedObject(facts, right);
  } else {
    const m = /^(?:module\.)?exports\.([\p{L}$_][\p{L}\p{N}$_]*)$/u.exec(target);
    if (m) {
      facts.addExport(m[1]!);
      if (right.type === 'identifier') facts.exportedLocals.push(text.slice(right.startIndex, right.endIndex));
    }
  }
}

/** The members of `module.exports = { … }`. */
function exportedObject(facts: FileFacts, object: TsNode): void {
  const text = facts.text;
  for (const p of object.namedChildren) {
    if (p === null) continue;
    if (p.type === 'shorthand_property_identifier') {
      const n = text.slice(p.startIndex, p.endIndex);
      facts.addExport(n);
      facts.exportedLocals.push(n);
    } else if (p.type === 'pair' || p.type === 'method_definition') {
      const key = p.childForFieldName(p.type === 'pair' ? 'key' : 'name');
      if (key) facts.addExport(stripQuotes(text.slice(key.startIndex, key.endIndex)));
      const value = p.type === 'pair' ? p.childForFieldName('value') : null;
      if (value?.type === 'identifier') facts.exportedLocals.push(text.slice(value.startIndex, value.endIndex));
    }
  }
}
