/**
 * Token estimate used for the result budget: ceil(characters / 3.5). Code averages about 3.5
 * characters per token with BPE tokenizers of current LLMs (whitespace runs and identifiers
 * split into several tokens); a fixed estimator keeps budgets deterministic and fast.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 3.5);
}

/**
 * Expands selected children inside their parent's chunk text. A child with a body appears
 * there collapsed (`header { /* N lines collapsed *\/ }`) and is replaced by its own chunk
 * text, re-indented to the line it stands on; a child without a body (a field, a property)
 * already appears in full. `merged[i]` tells whether child i is now part of the code; a child
 * that cannot be located is not (the caller returns it on its own).
 */
export function expandChildren(parentCode: string, children: readonly { code: string }[]): { code: string; merged: boolean[] } {
  const lines = parentCode.split('\n');
  const used = new Set<number>();
  const merged = children.map((child) => {
    const childLines = child.code.split('\n');
    const head = childLines[0]!.trim();
    if (head === '') return false;
    if (childLines.length === 1 && !head.includes('collapsed */') && parentCode.includes(head)) return true;
    // The header as written up to the body (its first line), without the opening brace.
    const key = head.replace(/\s*\{.*$/, '').trim();
    if (key === '') return false;
    let found = -1;
    for (let i = 0; i < lines.length; i++) {
      if (used.has(i)) continue;
      const l = lines[i]!;
      if (l.includes('collapsed */') && l.trim().startsWith(key)) {
        found = i;
        break;
      }
    }
    if (found < 0) return parentCode.includes(child.code);
    used.add(found);
    const indent = /^\s*/.exec(lines[found]!)![0];
    // Child chunk lines after the first keep their original indentation relative to the file.
    lines[found] = [indent + head, ...childLines.slice(1)].join('\n');
    return true;
  });
  return { code: lines.join('\n'), merged };
}
