import { describe, expect, it } from 'vitest';
import { quantizeInt8, toBinary } from '../src/index.js';
import { cosine } from './helpers.js';

describe('quantizeInt8', () => {
  it('scales the largest component to ±127 and rounds', () => {
    expect([...quantizeInt8(Float32Array.of(0.5, -0.25, 0.1, 0))]).toEqual([127, -64, 25, 0]);
    expect([...quantizeInt8(Float32Array.of(-0.2, 0.1))]).toEqual([-127, 64]);
  });

  it('keeps a zero vector zero', () => {
    expect([...quantizeInt8(new Float32Array(3))]).toEqual([0, 0, 0]);
  });

  it('preserves direction closely on a realistic 384-d vector', () => {
    const v = new Float32Array(384).map((_, i) => Math.sin(i * 1.7) * 0.08);
    expect(cosine(quantizeInt8(v), v)).toBeGreaterThan(0.999);
  });
});

describe('toBinary', () => {
  it('packs sign bits least-significant bit first (sqlite-vec bit[] layout)', () => {
    // components 0..9: + - + + - - - + | + -  → byte0 bits 0,2,3,7 = 0b10001101, byte1 bit 0 = 1
    const v = Float32Array.of(0.1, -0.1, 0.2, 0.3, -0.5, 0, -0.1, 0.9, 0.4, -0.2);
    expect([...toBinary(v)]).toEqual([0b10001101, 0b00000001]);
    expect(toBinary(new Float32Array(384)).length).toBe(48);
  });
});
