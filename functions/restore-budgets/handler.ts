import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { ScheduledEvent } from 'aws-lambda';
import { restoreBudgets } from '../../shared/control-plane/workspaces/budget-restorer.js';
import { logger, withInvocationLogger } from '../../shared/observability/logger.js';
import { defaultEnforcementDependencies } from '../../shared/gateway/enforcement/admission.js';
import { replayCharges } from '../../shared/gateway/enforcement/charge-journal.js';
import { labelHandler } from '../../shared/store/recording/aws-operation-recorder.js';

/**
 * Run by an EventBridge schedule (every 5 minutes; a timer in the local runtime): replays journaled charges and
 * gives back expired reservations (enforcement/charge-journal.ts), applies the periodic budget
 * resets that are due and re-activates exhausted budgets whose limit is now above their usage. Idempotent.
 */
export const handler = labelHandler('restore-budgets', withInvocationLogger(middy<ScheduledEvent>()
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .handler(async () => {
    // Charges that failed and reservations of requests that died settle first, so the restore sees real usage.
    const charges = await replayCharges(new Date(), defaultEnforcementDependencies());
    const result = await restoreBudgets(new Date());
    logger.info('restore-budgets finished', { ...result, charges });
    return result;
  })));
