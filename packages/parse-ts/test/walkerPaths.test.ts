/**
 * Paths of the TypeScript walker that the extraction dumps of decision 028 (the fixtures, hono,
 * excalidraw) do not reach: with either rule broken on purpose — component wrappers unwrapped
 * one level only, or `&&` dropped from the JSX return wrappers — all three dumps stayed
 * byte-identical. These cases pin them with hand-derived kinds.
 */
import { describe, expect, it } from 'vitest';
import { parseText } from './helpers.js';

describe('walker paths the real-repository dumps miss', () => {
  it('component wrappers are unwrapped up to three levels; JSX returned through && or ?: makes a component', async () => {
    const index = await parseText(
      'src/paths.tsx',
      [
        "import React, { memo, forwardRef } from 'react';",
        // Two wrappers: the arrow inside is the value, a wrapped function → component.
        'export const Card = memo(forwardRef((props, ref) => null));',
        // Three wrappers, the last around a function expression → component.
        'export const Deep = React.memo(React.forwardRef(memo(function Inner() { return null; })));',
        // Four wrappers: after three the value is still a call (`memo(() => null)`), no function →
        // an exported variable.
        'export const TooDeep = memo(memo(memo(memo(() => null))));',
        // JSX as the right operand of `&&` in a return → the function returns JSX → component.
        'export function Maybe(p: { on: boolean }) { return p.on && <b />; }',
        // JSX in a conditional → component.
        'export function Either(p: { on: boolean }) { return p.on ? <b /> : null; }',
        // No JSX anywhere → a plain function.
        'export function Sum(a: number) { return a + 1; }',
      ].join('\n'),
    );
    expect(index.nodes.map((n) => `${n.kind} ${n.name}`)).toEqual([
      'file paths.tsx',
      'component Card',
      'component Deep',
      'variable TooDeep',
      'component Maybe',
      'component Either',
      'function Sum',
    ]);
  });
});
