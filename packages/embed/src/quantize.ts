/**
 * int8 copy of a vector, scaled so its largest component maps to ±127. Per-vector scaling
 * keeps ~5x more precision than a fixed ×127 (components of a normalised 384-d vector rarely
 * exceed 0.25) and changes only the length, so compare quantized vectors by cosine, not L2.
 * A zero vector stays zero.
 */
export function quantizeInt8(v: Float32Array): Int8Array {
  let maxAbs = 0;
  for (const x of v) maxAbs = Math.max(maxAbs, Math.abs(x));
  const out = new Int8Array(v.length);
  if (maxAbs === 0 || !Number.isFinite(maxAbs)) return out;
  const scale = 127 / maxAbs;
  // Round half away from zero (Math.round rounds -63.5 to -63): symmetric for ± components.
  for (let i = 0; i < v.length; i++) {
    const x = v[i]! * scale;
    out[i] = Math.sign(x) * Math.round(Math.abs(x));
  }
  return out;
}

/**
 * Sign bits, 1 for a component > 0, packed 8 per byte least-significant bit first: the layout
 * of sqlite-vec's `vec_quantize_binary` / `bit[N]` columns, so these bytes fit such a column.
 */
export function toBinary(v: Float32Array): Uint8Array {
  const out = new Uint8Array(Math.ceil(v.length / 8));
  for (let i = 0; i < v.length; i++) if (v[i]! > 0) out[i >> 3]! |= 1 << (i & 7);
  return out;
}
