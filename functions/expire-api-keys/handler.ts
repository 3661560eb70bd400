import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { ScheduledEvent } from 'aws-lambda';
import { expireDueApiKeys } from '../../shared/control-plane/api-keys/expiry.js';
import { logger, withInvocationLogger } from '../../shared/observability/logger.js';
import { labelHandler } from '../../shared/store/recording/aws-operation-recorder.js';

/**
 * Run by an EventBridge schedule (every 5 minutes; a timer in the local runtime): active API keys past their
 * expiry become `expired`, found through the expiry index (no scan), each with a conditional write and an audit
 * event. Idempotent: a second run, or one running beside it, changes nothing already changed.
 */
export const handler = labelHandler('expire-api-keys', withInvocationLogger(middy<ScheduledEvent>()
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .handler(async () => {
    const expired = await expireDueApiKeys(new Date());
    logger.info('expire-api-keys finished', { expired });
    return { expired };
  })));
