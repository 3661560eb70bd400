import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { compactRequestLogsFromSettings } from '../../shared/observability/engine/aws/compaction-from-settings.js';
import { logger, withInvocationLogger } from '../../shared/observability/logger.js';
import { labelHandler } from '../../shared/store/recording/aws-operation-recorder.js';

/** Time kept back from the function's timeout to stop a running UNLOAD and return. */
const STOP_MARGIN_MS = 60_000;

/**
 * Run by an EventBridge schedule once a day (00:30 UTC; AWS only: locally DuckDB keeps one table, nothing to
 * compact): rewrites each finished day of request logs and spans that is not compacted yet into the compacted
 * tables and deletes the raw files it replaced (shared/observability/engine/aws/compaction.ts). Idempotent.
 */
export const handler = labelHandler('compact-request-logs', withInvocationLogger(middy<ScheduledEvent>()
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .handler(async (event: ScheduledEvent, context: Context) => {
    // The schedule's time, not the clock: a retried delivery compacts the same days as the first.
    const now = event.time ? new Date(event.time) : new Date();
    const days = await compactRequestLogsFromSettings(now, Date.now() + context.getRemainingTimeInMillis() - STOP_MARGIN_MS);
    const compacted = days.filter((day) => day.outcome === 'compacted');
    logger.info('compact-request-logs finished', { days });
    return { compacted: compacted.length, rows: compacted.reduce((sum, day) => sum + (day.rows ?? 0), 0), days };
  })));
