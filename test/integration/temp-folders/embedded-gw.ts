import { startLocalServer } from '../../../infra/local/server.js';

/**
 * A process that embeds gw as a test worker does (no signal handling of its own): an in-memory gw whose request-log
 * exports, with blobs in S3, go through a throwaway folder. It prints its address and waits to be ended.
 */
const server = await startLocalServer({
  port: 0,
  dataDir: ':memory:',
  bootstrapApiKey: process.env.GW_TEST_KEY,
  // The bucket is never reached: nothing here is large enough to go to it.
  env: { POWERTOOLS_LOG_LEVEL: 'SILENT', GW_BLOB_BUCKET: 'gw-test-unused', GW_S3_ENDPOINT: 'http://127.0.0.1:9' },
});
process.stdout.write(`embedded gw at ${server.url}\n`);
