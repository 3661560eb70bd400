import { createHash, createHmac, createSecretKey, type Hash, type Hmac, type KeyObject } from 'node:crypto';
import type { Checksum, SourceData } from '@smithy/types';

/*
 * What an AWS SDK v3 client costs gw per call beyond the call itself, cut once per client (issue #34,
 * bench/results/issue-34/store-call.md). The store client uses both (dynamo-client.ts).
 */

/**
 * The SHA-256 SigV4 signs each store call with (the client's `sha256`), as the SDK's own but with each HMAC key
 * made into a KeyObject once: Node 24 (Lambda's runtime) builds one internally for every `createHmac` given raw
 * bytes, ~11 µs against ~2 µs from a KeyObject, and every call makes two HMACs (the signature, and the hash of the
 * credentials that finds the cached signing key). Outputs are the same bytes (test/unit/store/keyed-sha256.test.ts).
 */
export class KeyedSha256 implements Checksum {
  readonly digestLength = 32;
  private hash: Hash | Hmac;
  private finished = false;

  constructor(private readonly secret?: SourceData) {
    this.hash = this.start();
  }

  update(data: Uint8Array): void {
    if (this.finished) throw new Error('Attempted to update an already finished hash.');
    this.hash.update(data);
  }

  async digest(): Promise<Uint8Array> {
    // An HMAC can be digested once; a plain hash is copied first so it can go on (as the SDK's does).
    let bytes: Buffer;
    if (this.secret === undefined) bytes = (this.hash as Hash).copy().digest();
    else {
      this.finished = true;
      bytes = this.hash.digest();
    }
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  reset(): void {
    this.hash = this.start();
    this.finished = false;
  }

  private start(): Hash | Hmac {
    return this.secret === undefined ? createHash('sha256') : createHmac('sha256', hmacKeyOf(this.secret));
  }
}

/**
 * KeyObjects by key content (not by identity, so bytes changed in place can never sign with a stale key). A
 * client signs with two keys a day (its secret, the day's signing key), more when credentials rotate: the cache is
 * emptied when it passes HMAC_KEYS_MAX.
 */
const hmacKeys = new Map<string, KeyObject>();
const HMAC_KEYS_MAX = 16;

function hmacKeyOf(secret: SourceData): KeyObject {
  const bytes = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : ArrayBuffer.isView(secret) ? Buffer.from(secret.buffer, secret.byteOffset, secret.byteLength) : Buffer.from(secret);
  const id = bytes.toString('base64');
  let key = hmacKeys.get(id);
  if (!key) {
    if (hmacKeys.size >= HMAC_KEYS_MAX) hmacKeys.clear();
    key = createSecretKey(bytes);
    hmacKeys.set(id, key);
  }
  return key;
}

/**
 * The SDK builds a client's config by adding ~50 properties to one object in steps (Object.assign), which leaves
 * it in V8's dictionary mode, and its middlewares copy that object with a spread several times per call
 * (`{ ...config, ...context }` in serialisation and deserialisation, `{ ...config }` in endpoint resolution): ~10 µs
 * each from a dictionary, ~1 µs from an object with fast properties. V8 turns an object into one with fast
 * properties when it becomes a prototype that is read through, so the config is made one (of a throwaway object)
 * once, after the client is complete. Nothing about the object changes but its layout in memory.
 */
export function withFastProperties(config: object): number {
  function Probe() {}
  Probe.prototype = config;
  const probe = new (Probe as unknown as new () => { region?: unknown })();
  // Reads through the instance: V8 migrates a prototype when an inline cache of a read through it misses, and gives
  // a function inline caches only after some work (a dozen reads were not always enough on Node 20 and 24).
  let found = 0;
  for (let i = 0; i < 200; i++) if (probe.region !== undefined) found++;
  return found;
}
