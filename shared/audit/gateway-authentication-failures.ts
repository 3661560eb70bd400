import { toGatewayError } from '../http/errors.js';
import type { NeutralRequest } from '../http/types.js';
import { runInBackground } from '../observability/background.js';
import { recordAuthenticationFailureMetric } from '../observability/metrics.js';

/**
 * A refused gateway authentication (missing, invalid, revoked, expired key): counted in metrics and audited
 * in the background, so the 401 goes out at once. The audit side aggregates per source and minute; it is loaded
 * by the first refusal, so a gateway that refuses nobody never loads the audit trail (its cold start).
 */
export function noteGatewayAuthenticationFailure(request: NeutralRequest, thrown: unknown, traceId: string): void {
  const error = toGatewayError(thrown);
  if (error.status !== 401) return;
  recordAuthenticationFailureMetric(error.code);
  runInBackground('authentication failure audit', async () => (await import('./authentication-failures.js')).auditAuthenticationFailure(request, error, traceId));
}
