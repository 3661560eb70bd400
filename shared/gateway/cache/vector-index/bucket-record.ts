/**
 * One slot of a bucket item, as binary: the entry key, its expiry and its sign code (sign-code.ts).
 *
 *   [key form: 0xFF = 32 bytes of a 64-hex-digit key, else the key's UTF-8 length (≤ 254)] [key]
 *   [expiry, epoch ms, float64 big-endian] [sign code]
 *
 * Response-cache keys are SHA-256 hex, so they take 32 bytes instead of 64: a slot of a 1,536-dimension
 * embedding is 171 bytes (228 in base64 on the wire).
 */
export interface BucketRecord {
  key: string;
  expiresAt: number;
  /** The sign code, a view into the record. */
  code: Uint8Array;
}

const HEX_KEY = 0xff;
const EXPIRY_BYTES = 8;
const HEX_64 = /^[0-9a-f]{64}$/;

export function encodeRecord(key: string, expiresAt: number, code: Uint8Array): Uint8Array {
  const hex = HEX_64.test(key);
  const keyBytes = hex ? Buffer.from(key, 'hex') : Buffer.from(key, 'utf8');
  if (!hex && keyBytes.byteLength > 254) throw new RangeError('a vector-index key is at most 254 bytes');
  const record = new Uint8Array(1 + keyBytes.byteLength + EXPIRY_BYTES + code.byteLength);
  record[0] = hex ? HEX_KEY : keyBytes.byteLength;
  record.set(keyBytes, 1);
  new DataView(record.buffer).setFloat64(1 + keyBytes.byteLength, expiresAt);
  record.set(code, 1 + keyBytes.byteLength + EXPIRY_BYTES);
  return record;
}

/** The record, or undefined for bytes that are not one (a slot written by another layout). */
export function decodeRecord(bytes: Uint8Array): BucketRecord | undefined {
  if (bytes.byteLength < 1) return undefined;
  const hex = bytes[0] === HEX_KEY;
  const keyLength = hex ? 32 : bytes[0];
  const codeStart = 1 + keyLength + EXPIRY_BYTES;
  if (bytes.byteLength <= codeStart) return undefined;
  const keyBytes = Buffer.from(bytes.buffer, bytes.byteOffset + 1, keyLength);
  return {
    key: hex ? keyBytes.toString('hex') : keyBytes.toString('utf8'),
    expiresAt: new DataView(bytes.buffer, bytes.byteOffset).getFloat64(1 + keyLength),
    code: bytes.subarray(codeStart),
  };
}

export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.byteLength === b.byteLength && Buffer.compare(a, b) === 0;
}
