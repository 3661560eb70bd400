/**
 * int8 quantisation with one float32 scale per vector: 1,536 dimensions take 1,540 bytes instead of 6,144.
 * Each component is rounded to the nearest of 255 steps of `max |x| / 127`, so its error is at most half a
 * step; for unit vectors of a few hundred dimensions or more the cosine of two dequantised vectors is within
 * about 1e-3 of the exact one (test/unit/gateway/cache/semantic-quantise.test.ts measures it).
 */
const SCALE_BYTES = 4;

export function quantise(vector: Float32Array): Uint8Array {
  let max = 0;
  for (const value of vector) max = Math.max(max, Math.abs(value));
  const scale = max / 127 || 1;
  const bytes = new Uint8Array(SCALE_BYTES + vector.length);
  new DataView(bytes.buffer).setFloat32(0, scale, true);
  const codes = new Int8Array(bytes.buffer, SCALE_BYTES);
  for (let i = 0; i < vector.length; i++) codes[i] = Math.max(-127, Math.min(127, Math.round(vector[i] / scale)));
  return bytes;
}

/** The unit-length vector a quantised one stands for (re-normalised, so similarity stays one dot product). */
export function dequantise(bytes: Uint8Array): Float32Array {
  if (bytes.byteLength <= SCALE_BYTES) return new Float32Array(0);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const scale = view.getFloat32(0, true);
  const vector = new Float32Array(bytes.byteLength - SCALE_BYTES);
  let norm = 0;
  for (let i = 0; i < vector.length; i++) {
    vector[i] = view.getInt8(SCALE_BYTES + i) * scale;
    norm += vector[i] * vector[i];
  }
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < vector.length; i++) vector[i] /= norm;
  return vector;
}

export function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
}
