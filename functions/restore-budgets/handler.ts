import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { ScheduledEvent } from 'aws-lambda';
import { restoreBudgets } from '../../shared/control-plane/workspaces/budget-restorer.js';
import { logger } from '../../shared/observability/logger.js';

/**
 * Run by an EventBridge schedule (every 5 minutes; a timer in the local runtime): applies the periodic budget
 * resets that are due and re-activates exhausted budgets whose limit is now above their usage. Idempotent.
 */
export const handler = middy<ScheduledEvent>()
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .handler(async () => {
    const result = await restoreBudgets(new Date());
    logger.info('restore-budgets finished', { ...result });
    return result;
  });
