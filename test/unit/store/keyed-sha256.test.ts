import { createHash, createHmac } from 'node:crypto';
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import { describe, expect, it } from 'vitest';
import { KeyedSha256 } from '../../../shared/store/sdk-call-costs.js';

const bytes = (text: string) => new TextEncoder().encode(text);
const hex = (data: Uint8Array) => Buffer.from(data).toString('hex');

async function digestOf(hash: { update(data: Uint8Array): void; digest(): Promise<Uint8Array> }, data: string): Promise<string> {
  hash.update(bytes(data));
  return hex(await hash.digest());
}

describe('KeyedSha256 (the store client SigV4 hash with cached HMAC keys)', () => {
  it('hashes as SHA-256 and, keyed, as HMAC-SHA256, whatever the key is given as', async () => {
    expect(await digestOf(new KeyedSha256(), 'payload')).toBe(createHash('sha256').update('payload').digest('hex'));
    const key = bytes('AWS4secret');
    const expected = createHmac('sha256', Buffer.from(key)).update('string to sign').digest('hex');
    expect(await digestOf(new KeyedSha256('AWS4secret'), 'string to sign')).toBe(expected);
    expect(await digestOf(new KeyedSha256(key), 'string to sign')).toBe(expected);
    expect(await digestOf(new KeyedSha256(key.buffer as ArrayBuffer), 'string to sign')).toBe(expected);
    // A view into a larger buffer is keyed by its own bytes only.
    const padded = new Uint8Array([9, 9, ...key, 9]);
    expect(await digestOf(new KeyedSha256(padded.subarray(2, 2 + key.length)), 'string to sign')).toBe(expected);
  });

  it('keys by content: bytes changed in place sign with the new key, not a cached one', async () => {
    const key = bytes('first-key-bytes!');
    const first = await digestOf(new KeyedSha256(key), 'data');
    key.set(bytes('other-key-bytes!'));
    expect(await digestOf(new KeyedSha256(key), 'data')).not.toBe(first);
    expect(await digestOf(new KeyedSha256(key), 'data')).toBe(createHmac('sha256', 'other-key-bytes!').update('data').digest('hex'));
  });

  it('behaves as the SDK hash: a plain hash goes on after a digest, an HMAC is finished until reset', async () => {
    const plain = new KeyedSha256();
    plain.update(bytes('a'));
    await plain.digest();
    plain.update(bytes('b'));
    expect(hex(await plain.digest())).toBe(createHash('sha256').update('ab').digest('hex'));
    const keyed = new KeyedSha256('key');
    keyed.update(bytes('a'));
    await keyed.digest();
    expect(() => keyed.update(bytes('b'))).toThrow(/already finished/);
    keyed.reset();
    expect(await digestOf(keyed, 'b')).toBe(createHmac('sha256', 'key').update('b').digest('hex'));
  });

  it('signs a DynamoDB request exactly as the SDK hash does', async () => {
    const request = {
      method: 'POST',
      protocol: 'https:',
      hostname: 'dynamodb.eu-west-1.amazonaws.com',
      path: '/',
      headers: { host: 'dynamodb.eu-west-1.amazonaws.com', 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.GetItem' },
      body: JSON.stringify({ TableName: 'gw-cache', Key: { pk: { S: 'WS#w#ENTRY#k' }, sk: { S: 'ENTRY' } } }),
    };
    const signer = (sha256: typeof Sha256 | typeof KeyedSha256) =>
      new SignatureV4({ service: 'dynamodb', region: 'eu-west-1', sha256, credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', sessionToken: 'token' } });
    const signingDate = new Date('2026-11-27T12:00:00Z');
    for (let i = 0; i < 2; i++) {
      // Twice: the second signature comes from the cached signing key.
      const ours = await signer(KeyedSha256).sign({ ...request, headers: { ...request.headers } }, { signingDate });
      const sdk = await signer(Sha256).sign({ ...request, headers: { ...request.headers } }, { signingDate });
      expect(ours.headers.authorization).toBe(sdk.headers.authorization);
      expect(ours.headers['x-amz-content-sha256'] ?? null).toBe(sdk.headers['x-amz-content-sha256'] ?? null);
    }
  });
});
