import { Transform } from 'node:stream';
import type { Readable } from 'node:stream';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';

/** What a metered client has sent and received since its last reset. */
export interface StoreMeter {
  /** HTTP requests to the store: every SDK call, retries included. */
  roundTrips: number;
  /** Bytes of response bodies, as they came off the wire (DynamoDB JSON, binary as base64). */
  responseBytes: number;
  /** The operation of each request, in order (`BatchGetItem`, `PutItem`, …). */
  operations: string[];
  reset(): void;
}

/**
 * A real DynamoDB document client whose HTTP handler counts round trips and response bytes, for tests and
 * the semantic-scale bench: what a lookup costs is measured on the wire, not inferred from the code.
 */
export function meteredDocumentClient(endpoint: string, region = 'us-east-1'): { client: DynamoDBDocumentClient; meter: StoreMeter; destroy(): void } {
  const meter: StoreMeter = {
    roundTrips: 0,
    responseBytes: 0,
    operations: [],
    reset() {
      meter.roundTrips = 0;
      meter.responseBytes = 0;
      meter.operations = [];
    },
  };
  const inner = new NodeHttpHandler();
  const counting = Object.create(inner) as NodeHttpHandler;
  counting.handle = async (request, options) => {
    meter.roundTrips += 1;
    meter.operations.push(String(request.headers['x-amz-target'] ?? '').replace(/^DynamoDB_\d+\./, ''));
    const result = await inner.handle(request, options);
    const body = result.response.body as Readable | undefined;
    if (body && typeof body.pipe === 'function') {
      result.response.body = body.pipe(
        new Transform({
          transform(chunk: Buffer, _encoding, done) {
            meter.responseBytes += chunk.length;
            done(null, chunk);
          },
        }),
      );
    }
    return result;
  };
  const base = new DynamoDBClient({ endpoint, region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, requestHandler: counting, maxAttempts: 3 });
  return { client: DynamoDBDocumentClient.from(base, { marshallOptions: { removeUndefinedValues: true } }), meter, destroy: () => base.destroy() };
}
