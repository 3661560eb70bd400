import { GatewayError } from '../http/errors.js';
import { attemptSpanAttributes, attemptSpanError } from '../observability/attempt-span.js';
import { startSpan } from '../observability/spans.js';
import type { AttemptRecord } from './attempt-types.js';
import type { GatewayContext } from './context.js';

export interface AttemptStart {
  leafPath: string;
  retry: number;
  /** The leaf's virtual key id, for the span. */
  virtualKey: string | undefined;
  /** Known before the try starts (pass-through never caches: 'DISABLED'); otherwise the try sets it. */
  cacheStatus?: AttemptRecord['cache_status'];
}

/**
 * One upstream try as the trace and the log record see it, for every kind of try (translated, native,
 * pass-through): its record joins `context.attempts` before anything can fail, so a failed try is listed too;
 * `run` fills in provider, model and status as it learns them. However `run` ends, a GatewayError's status
 * and code go on the record, its latency is taken, and its `attempt` span ends with the record's fields.
 */
export async function recordAttempt<T>(context: GatewayContext, start: AttemptStart, run: (record: AttemptRecord) => Promise<T>): Promise<T> {
  const started = performance.now();
  const record: AttemptRecord = { target_path: start.leafPath, status: 0, latency_ms: 0, retry: start.retry };
  if (start.cacheStatus !== undefined) record.cache_status = start.cacheStatus;
  if (context.options.customHost !== undefined) record.custom_host = context.options.customHost;
  if (context.workspaceProvider !== undefined) record.workspace_provider = context.workspaceProvider.provider.id;
  context.attempts.push(record);
  const span = startSpan(context, 'attempt', { 'gw.retry': start.retry }, { kind: 'attempt' });
  try {
    return await run(record);
  } catch (error) {
    if (error instanceof GatewayError) {
      record.status = error.status;
      record.error_code = error.code;
    }
    throw error;
  } finally {
    record.latency_ms = Math.round((performance.now() - started) * 100) / 100;
    span.end(attemptSpanAttributes(record, start.virtualKey), attemptSpanError(record));
  }
}
