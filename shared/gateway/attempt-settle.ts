import { DependencyUnavailableError, GatewayError, toGatewayError } from '../http/errors.js';
import { runInBackground } from '../observability/background.js';
import type { RequestOutcome } from './finished-request.js';
import type { GatewayContext } from './context.js';
import type { Admission } from './enforcement/admission.js';
import { isStreamBody, type ResponseBody } from '../http/types.js';
import type { UsageReport } from './attempt-types.js';
import { releaseAdmission, settleUsage } from './enforcement/settlement.js';
import { gatewayHeaders } from './response-headers.js';
import { RouteFailure } from './routing/route.js';

export interface FailedRequest {
  /** What the log record says of the failure (a bug is a 500 `internal_error`). */
  outcome: RequestOutcome;
  /** What to throw: a GatewayError with gw's headers on it, or the bug as it was thrown. */
  error: unknown;
}

/**
 * Every way out of a routed request that failed (chat, dialects, pass-through), once its tries are over: gives
 * back what admission took, and says what to record and what to throw. The caller records the outcome (the
 * after-path) and throws the error; a bug, a 500, is recorded too.
 */
export function settleFailedRequest(context: GatewayContext, thrown: unknown, admission: Admission | undefined): FailedRequest {
  const raw = thrown instanceof RouteFailure ? thrown.error : thrown;
  // A dependency that failed (the secret store) is its 503, not a bug.
  const failure = raw instanceof DependencyUnavailableError ? toGatewayError(raw) : raw;
  // A request slot is given back only when gw itself refused the request (no provider was asked).
  const reachedProvider = failure instanceof GatewayError ? failure.upstream : true;
  if (admission) runInBackground('policy release', () => releaseAdmission(admission, reachedProvider, context.log));
  if (!(failure instanceof GatewayError)) return { outcome: { status: 500, errorCode: 'internal_error' }, error: thrown };
  const headers = gatewayHeaders({ traceId: context.traceId, provider: context.attempts.at(-1)?.provider, attempts: context.attempts });
  // gw already retried and fell back as the config says: an SDK retrying on top multiplies the calls.
  if (context.attempts.length > 1) headers['x-should-retry'] = 'false';
  return {
    outcome: { status: failure.status, errorCode: failure.code, errorType: failure.type, errorMessage: failure.message },
    error: failure.withHeaders(headers),
  };
}

/**
 * A buffered answer (chat, a dialect, a pass-through read) leaves only once its reservations are replaced by its
 * real usage, so the next request of the same key sees exact counters; a stream settles after its last byte,
 * on the after-path. Settling twice is harmless: an admission settles once (settlement.ts).
 */
export async function settleBeforeAnswering(context: GatewayContext, admission: Admission | undefined, report: UsageReport | undefined, body: ResponseBody): Promise<void> {
  if (!admission || !report || isStreamBody(body)) return;
  const answered = context.attempts.at(-1);
  await settleUsage(admission, { usage: usageOf(report), cacheHit: report.cacheHit === true, provider: answered?.provider, model: answered?.model }, context.log);
}

/** The usage a report carries, or reads from a pass-through body once the response went out. */
export function usageOf(report: Pick<UsageReport, 'usage' | 'usageSource'>): Record<string, unknown> | undefined {
  if (report.usage) return report.usage;
  if (!report.usageSource) return undefined;
  try {
    return (JSON.parse(report.usageSource.toString('utf8')) as { usage?: Record<string, unknown> }).usage;
  } catch {
    return undefined;
  }
}
