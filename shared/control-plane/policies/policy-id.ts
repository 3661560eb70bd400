import { randomBytes } from 'node:crypto';

// Monotonic state: ids made in the same millisecond count up in the 12-bit rand_a field (RFC 9562, method 1),
// so the ids of one process always sort in creation order.
let lastMillis = -1;
let sequence = 0;
const MAX_SEQUENCE = 0xfff;

/**
 * A new policy id: a UUIDv7 (RFC 9562), 48 bits of Unix milliseconds, a 12-bit sequence, then random bits. Time
 * order makes the store's sort keys list policies in creation order; Node 20 has no built-in v7 generator.
 */
export function newPolicyId(now: number = Date.now()): string {
  if (now > lastMillis) {
    lastMillis = now;
    // Start low in the sequence so many ids can follow within the same millisecond.
    sequence = randomBytes(2).readUInt16BE(0) & 0x7ff;
  } else if (++sequence > MAX_SEQUENCE) {
    lastMillis += 1;
    sequence = 0;
  }
  const bytes = randomBytes(16);
  bytes.writeUIntBE(lastMillis, 0, 6);
  bytes[6] = 0x70 | (sequence >> 8);
  bytes[7] = sequence & 0xff;
  bytes[8] = 0x80 | (bytes[8] & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

export function looksLikeUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}
