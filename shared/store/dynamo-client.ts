import { createHash, createHmac, createSecretKey, type Hash, type Hmac, type KeyObject } from 'node:crypto';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { Checksum, SourceData } from '@smithy/types';
import { logger } from '../observability/logger.js';
import { settings } from '../settings.js';
import { applyStoreBackpressure, StoreGate } from './store-backpressure.js';
import { recordedClient } from './recording/sdk-recording-middleware.js';
import { storeHttpsAgentOptions } from './store-tls.js';
import { traceAwsClient } from '../observability/tracer.js';

let documentClient: DynamoDBDocumentClient | undefined;

/**
 * The SDK's logger middleware builds a redacted copy of every command's input and output for `logger.info`,
 * even for its default no-op logger (~1 % of the gateway's CPU in a profile). It calls `logger.info` only if it
 * exists, so a logger without it skips that work. Its errors stay silent as with the default logger: they
 * carry the failed command's input (items), and the callers log each failure they handle without it.
 */
const SDK_LOGGER_WITHOUT_INFO = {
  debug: () => undefined,
  warn: (...content: unknown[]) => logger.warn('DynamoDB client warning', { content }),
  error: () => undefined,
} as unknown as NonNullable<DynamoDBClientConfig['logger']>;

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

/** Store calls in flight per process; more wait their turn (up to 10 s, then 503). */
const STORE_GATE = new StoreGate(128, 10_000);

/**
 * One DynamoDB client per process, with keep-alive sockets, so a warm Lambda pays no TLS handshake per call.
 * The endpoint comes from settings: the embedded store locally, AWS by default.
 */
export function dynamoDocumentClient(): DynamoDBDocumentClient {
  documentClient ??= createStoreClient();
  return documentClient;
}

/**
 * A new store client as `dynamoDocumentClient` builds it (`overrides` on top of its configuration; `fastConfig:
 * false` leaves out withFastProperties): for the store-call profile's A/B runs (bench/profile/store-call.ts); gw
 * itself uses the one per process.
 */
export function createStoreClient(overrides: Partial<DynamoDBClientConfig> = {}, { fastConfig = true } = {}): DynamoDBDocumentClient {
  const { AWS_REGION, GW_DYNAMODB_ENDPOINT } = settings();
  const client = new DynamoDBClient({
    region: AWS_REGION,
    endpoint: GW_DYNAMODB_ENDPOINT,
    // Throttling and timeouts are retried with jittered backoff; adaptive mode also slows this client down
    // while DynamoDB throttles it, instead of spending every attempt at once.
    maxAttempts: 5,
    retryMode: 'adaptive',
    logger: SDK_LOGGER_WITHOUT_INFO,
    sha256: KeyedSha256,
    requestHandler: new NodeHttpHandler({
      // As many sockets as the gate lets commands through (store-backpressure.ts): none waits for a socket.
      httpAgent: new HttpAgent({ keepAlive: true, maxSockets: STORE_GATE.limit }),
      httpsAgent: new HttpsAgent({ keepAlive: true, maxSockets: STORE_GATE.limit, ...storeHttpsAgentOptions(settings()) }),
      connectionTimeout: 2_000,
      requestTimeout: 5_000,
    }),
    ...overrides,
  });
  applyStoreBackpressure(client, STORE_GATE);
  // Test-only: records each command's table for the grant check (a no-op unless tests switch it on).
  recordedClient(client, 'dynamodb');
  // X-Ray subsegments per DynamoDB call inside a traced Lambda (shared/observability/tracer.ts); a no-op elsewhere.
  const document = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true },
  });
  if (fastConfig) withFastProperties(client.config);
  return traceAwsClient(document);
}

/**
 * The SDK builds a client's config by adding ~50 properties to one object in steps (Object.assign), which leaves
 * it in V8's dictionary mode, and its middlewares copy that object with a spread several times per call
 * (`{ ...config, ...context }` in serialisation and deserialisation, `{ ...config }` in endpoint resolution): ~10 µs
 * each from a dictionary, ~1 µs from an object with fast properties. V8 turns an object into one with fast
 * properties when it becomes a prototype that is read through, so the config is made one (of a throwaway object)
 * once, after the client is complete. Nothing about the object changes but its layout in memory.
 */
function withFastProperties(config: object): number {
  function Probe() {}
  Probe.prototype = config;
  const probe = new (Probe as unknown as new () => { region?: unknown })();
  // Reads through the instance: V8 migrates a prototype when an inline cache of a read through it misses, and gives
  // a function inline caches only after some work (a dozen reads were not always enough on Node 20 and 24).
  let found = 0;
  for (let i = 0; i < 200; i++) if (probe.region !== undefined) found++;
  return found;
}
