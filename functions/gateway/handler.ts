import { createGatewayApp } from '../../shared/gateway/app.js';
import { createStreamingHandler } from '../lib/streaming-handler.js';
import { labelHandler } from '../../shared/store/recording/aws-operation-recorder.js';

/**
 * The gateway Lambda, invoked by API Gateway with response streaming. Lean on purpose (issue #23): no middy,
 * the runtime's `streamifyResponse` directly (functions/lib/streaming-handler.ts). In Lambda the background work
 * (request logs) is drained after the stream has ended, before the sandbox freezes; a long-lived process that
 * imports this handler (tests), and a gateway on Lambda Managed Instances (GW_CONCURRENT_INVOCATIONS=ON: many
 * invocations at once in one worker, test/infra/gateway-concurrency.test.ts), lets the write-behind buffers batch
 * across calls instead.
 */
export const handler = labelHandler('gateway', createStreamingHandler(createGatewayApp()));
