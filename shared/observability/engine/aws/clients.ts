import { Agent as HttpsAgent } from 'node:https';
import { AthenaClient } from '@aws-sdk/client-athena';
import { FirehoseClient } from '@aws-sdk/client-firehose';
import { S3Client } from '@aws-sdk/client-s3';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { traceAwsClient } from '../../tracer.js';
import { recordedClient } from '../../../store/recording/sdk-recording-middleware.js';

/**
 * Every AWS client of the request-log engine is made here, so each one gets the same connection reuse, the X-Ray
 * hook and the test-only operation recorder (the grant check's input) in one place.
 */
export interface ClientOptions {
  region: string;
  /** Another endpoint (a VPC endpoint, a test server); AWS's own by default. */
  endpoint?: string;
}

/** Keep-alive sockets so a warm Lambda pays no TLS handshake per flush or poll. */
function handler(requestTimeout = 10_000): NodeHttpHandler {
  return new NodeHttpHandler({ httpsAgent: new HttpsAgent({ keepAlive: true, maxSockets: 16 }), connectionTimeout: 2_000, requestTimeout });
}

export function createFirehoseClient(options: ClientOptions): FirehoseClient {
  // The SDK retries whole-call failures (throttling, 5xx, resets) itself; the sink retries the records a
  // successful call reports as failed. A call of at most 4 MiB in the region takes well under a second: the short
  // timeout bounds the billed time a Lambda's drain can spend on a Firehose that does not answer (3 × 3 s).
  const client = new FirehoseClient({ region: options.region, endpoint: options.endpoint, maxAttempts: 3, requestHandler: handler(3_000) });
  return traceAwsClient(recordedClient(client, 'firehose'));
}

export function createAthenaClient(options: ClientOptions & { workgroup: string }): AthenaClient {
  const client = new AthenaClient({ region: options.region, endpoint: options.endpoint, maxAttempts: 3, requestHandler: handler() });
  // Recorded under the client's workgroup: the compaction's differs from the read APIs' (a query id names none).
  return traceAwsClient(recordedClient(client, 'athena', { WorkGroup: options.workgroup }));
}

/** Lists what an export (UNLOAD) wrote into the results bucket. Path-style with a custom endpoint. */
export function createResultsS3Client(options: ClientOptions): S3Client {
  return createLogBucketS3Client(options);
}

/** The request-log buckets (results and exports; the data bucket the compaction rewrites). Path-style with a custom endpoint. */
export function createLogBucketS3Client(options: ClientOptions): S3Client {
  const client = new S3Client({ region: options.region, endpoint: options.endpoint, forcePathStyle: options.endpoint !== undefined, maxAttempts: 3, requestHandler: handler() });
  return traceAwsClient(recordedClient(client, 's3'));
}
