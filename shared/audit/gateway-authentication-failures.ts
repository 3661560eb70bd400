import { auditAuthenticationFailure } from './authentication-failures.js';
import { toGatewayError } from '../http/errors.js';
import type { NeutralRequest } from '../http/types.js';
import { runInBackground } from '../observability/background.js';
import { recordAuthenticationFailureMetric } from '../observability/metrics.js';

/**
 * A refused gateway authentication (missing, invalid, revoked, expired key): counted in metrics and audited
 * in the background, so the 401 goes out at once. The audit side aggregates per source and minute.
 */
export function noteGatewayAuthenticationFailure(request: NeutralRequest, thrown: unknown, traceId: string): void {
  const error = toGatewayError(thrown);
  if (error.status !== 401) return;
  recordAuthenticationFailureMetric(error.code);
  runInBackground('authentication failure audit', () => auditAuthenticationFailure(request, error, traceId));
}
