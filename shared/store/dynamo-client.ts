import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { logger } from '../observability/logger.js';
import { settings } from '../settings.js';
import { applyStoreBackpressure, StoreGate } from './store-backpressure.js';
import { recordedClient } from './recording/sdk-recording-middleware.js';
import { KeyedSha256, withFastProperties } from './sdk-call-costs.js';
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
