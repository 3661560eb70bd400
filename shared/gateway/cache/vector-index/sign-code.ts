/**
 * The compact vector a bucket stores per entry: one sign bit per rotated coordinate (rotation.ts) and one
 * 16-bit factor, 130 bytes for 1,024 bits whatever the embedding's dimension. A lookup compares the query's
 * rotated coordinates, kept as floats, with the bits (an asymmetric estimate, as RaBitQ does): with the unit
 * query part w and the entry's bits b (±1), cos ≈ ⟨w, b⟩ / (√m · c), where c = Σ|x_i| / (√m · |x|) is how
 * well the bits stand for the entry's own coordinates (≈ 0.8). The estimate is unbiased with a spread of about
 * √(1 − cos²) · 0.75 / √m (≈ 0.007 at cos 0.95 for m = 1,024): enough to rank candidates and to skip those that
 * cannot reach the threshold, not to decide a hit; the winner's exact check is the entry's int8 vector.
 */
export const MAX_CODE_BITS = 1024;
const FACTOR_BYTES = 2;

/** Code bits used for an embedding of this padded length: all its coordinates, at most MAX_CODE_BITS. */
export function codeBits(paddedLength: number): number {
  return Math.max(8, Math.min(MAX_CODE_BITS, paddedLength) - (Math.min(MAX_CODE_BITS, paddedLength) % 8));
}

export function codeBytes(bits: number): number {
  return FACTOR_BYTES + bits / 8;
}

/** Encodes the first `bits` rotated coordinates: the factor (uint16, big-endian), then the bits. */
export function encodeSignCode(rotated: Float64Array, bits: number): Uint8Array {
  const code = new Uint8Array(codeBytes(bits));
  let absolute = 0;
  let squares = 0;
  for (let i = 0; i < bits; i++) {
    const value = rotated[i];
    absolute += Math.abs(value);
    squares += value * value;
    if (value >= 0) code[FACTOR_BYTES + (i >> 3)] |= 1 << (i & 7);
  }
  const factor = squares > 0 ? absolute / Math.sqrt(bits * squares) : 1;
  const stored = Math.max(1, Math.min(65_535, Math.round(factor * 65_535)));
  code[0] = stored >> 8;
  code[1] = stored & 0xff;
  return code;
}

/** The query side: its first `bits` rotated coordinates scaled to unit length. */
export function queryPart(rotated: Float64Array, bits: number): Float64Array {
  const part = rotated.slice(0, bits);
  let norm = 0;
  for (const value of part) norm += value * value;
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < bits; i++) part[i] /= norm;
  return part;
}

/** The estimated cosine of the query (its `queryPart`) with the entry a code stands for; NaN for a mismatched code. */
export function estimateCosine(query: Float64Array, code: Uint8Array, offset = 0, length = code.byteLength - offset): number {
  const bits = query.length;
  if (length !== codeBytes(bits)) return Number.NaN;
  const factor = ((code[offset] << 8) | code[offset + 1]) / 65_535;
  let positive = 0;
  let total = 0;
  for (let i = 0; i < bits; i++) {
    const value = query[i];
    total += value;
    if (code[offset + FACTOR_BYTES + (i >> 3)] & (1 << (i & 7))) positive += value;
  }
  return (2 * positive - total) / (Math.sqrt(bits) * factor);
}
