import { onDrain } from '../observability/background.js';
import { logger } from '../observability/logger.js';
import type { AnonymousFailureCount } from '../store/audit-log-repository.js';

/** One aggregate: the failures of one (minute, source, method, code) this process refused. */
export interface AnonymousFailureSummary extends AnonymousFailureCount {
  count: number;
}

// Bounded: a flood from many addresses cannot grow memory; past the bound, failures go to one overflow aggregate.
const MAX_AGGREGATES = 1_000;
const OVERFLOW_SOURCE = 'other-sources';

const aggregates = new Map<string, AnonymousFailureSummary>();
let registered = false;

/**
 * Counts a refused authentication that names no organisation (no credential, a malformed or unknown one). Anyone
 * on the internet can cause these, so they cost no store write (issue #44: a refused request must not cost a
 * DynamoDB write): they are counted in memory per (minute, source address, method, code) and written to gw's own
 * log (CloudWatch on AWS) as one line per aggregate when the minute turns or background work is drained (after
 * every Lambda invocation). The credential itself is never kept.
 */
export function countAnonymousFailure(failure: AnonymousFailureCount): void {
  if (!registered) {
    registered = true;
    onDrain(async () => void flushAnonymousFailures());
  }
  for (const summary of aggregates.values()) {
    if (summary.minute !== failure.minute) {
      flushAnonymousFailures();
      break;
    }
  }
  let key = `${failure.minute}|${failure.source_ip}|${failure.method}|${failure.code}`;
  let source = failure.source_ip;
  if (!aggregates.has(key) && aggregates.size >= MAX_AGGREGATES) {
    source = OVERFLOW_SOURCE;
    key = `${failure.minute}|${source}|${failure.method}|${failure.code}`;
  }
  const summary = aggregates.get(key);
  if (summary) {
    summary.count++;
    summary.last = failure.last;
  } else aggregates.set(key, { ...failure, source_ip: source, count: 1 });
}

/** Writes every aggregate to the log and forgets it; returns what was written. */
export function flushAnonymousFailures(): AnonymousFailureSummary[] {
  const summaries = [...aggregates.values()];
  aggregates.clear();
  for (const summary of summaries) {
    logger.warn('authentication failed (anonymous, aggregated)', {
      action: 'authentication.failed',
      minute: summary.minute,
      source_ip: summary.source_ip,
      method: summary.method,
      code: summary.code,
      status: summary.status,
      count: summary.count,
      last: summary.last,
    });
  }
  return summaries;
}
