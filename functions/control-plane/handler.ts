import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { createControlPlaneApp } from '../../shared/control-plane/app.js';
import { drainBackgroundWork } from '../../shared/observability/background.js';
import { logger, withInvocationLogger } from '../../shared/observability/logger.js';
import { toNeutralRequest, toProxyResult } from '../lib/api-gateway-event.js';
import { labelHandler } from '../../shared/store/recording/aws-operation-recorder.js';

const app = createControlPlaneApp();

/** The control-plane Lambda: a buffered API Gateway proxy integration. */
export const handler = labelHandler('control-plane', withInvocationLogger(middy<APIGatewayProxyEvent>()
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .handler(async (event: APIGatewayProxyEvent) => {
    const result = await toProxyResult(await app(toNeutralRequest(event)));
    await drainBackgroundWork();
    return result;
  })));
