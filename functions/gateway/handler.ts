import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { createGatewayApp } from '../../shared/gateway/app.js';
import { beginBackgroundScope, drainBackgroundWork } from '../../shared/observability/background.js';
import { logger } from '../../shared/observability/logger.js';
import { toNeutralRequest, toStreamingResult } from '../lib/api-gateway-event.js';
import { labelHandler } from '../../shared/store/recording/aws-operation-recorder.js';

const app = createGatewayApp();
// A Lambda sandbox freezes when the invocation ends, so its background work (request logs) must be done by
// then. A long-lived process (the local runtime) never freezes: there the write-behind buffers batch across
// requests instead of flushing once per request.
const drainsPerInvocation = process.env.AWS_LAMBDA_FUNCTION_NAME !== undefined;

/**
 * The gateway Lambda, invoked by API Gateway with response streaming. Background work (request logs) is
 * drained after the body is fully written, before the invocation ends and the sandbox freezes.
 */
export const handler = labelHandler('gateway', middy<APIGatewayProxyEvent>({
  streamifyResponse: true,
  requestStart: () => beginBackgroundScope(),
  requestEnd: () => (drainsPerInvocation ? drainBackgroundWork() : undefined),
})
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .handler(async (event: APIGatewayProxyEvent) => toStreamingResult(await app(toNeutralRequest(event)))));
