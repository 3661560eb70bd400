import { createHash, randomBytes } from 'node:crypto';

const KEY_PREFIX = 'gwk_';

/** True for a key gw issued (by its prefix), so it can be told apart from a provider key in the same header. */
export function isGatewayKeyShaped(value: string): boolean {
  return value.startsWith(KEY_PREFIX) && value.length > KEY_PREFIX.length;
}

/** A new raw API key: a recognisable prefix and 192 bits of randomness. Shown once, never stored. */
export function generateRawApiKey(): string {
  return KEY_PREFIX + randomBytes(24).toString('base64url');
}

export function hashApiKey(rawKey: string): string {
  return createHash('sha256').update(rawKey, 'utf8').digest('hex');
}

/** Enough of a key to recognise it in a list, too little to use it. */
export function maskApiKey(rawKey: string): string {
  return `${rawKey.slice(0, KEY_PREFIX.length + 4)}…${rawKey.slice(-4)}`;
}
