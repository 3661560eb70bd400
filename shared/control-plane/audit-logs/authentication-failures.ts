import { AuthenticationError } from '../../auth/authentication-error.js';
import type { GatewayError } from '../../http/errors.js';
import type { NeutralRequest } from '../../http/types.js';
import { logger } from '../../observability/logger.js';
import { recordAuditEvent } from '../audit.js';

/**
 * Files a refused authentication in the audit log: under the organisation of the credential when it was
 * recognised (a revoked or expired key, a signed token with bad claims), otherwise under `unknown`. The
 * credential itself is never stored. A failure to write the event is logged, never turned into a 500: the
 * caller must still get its 401.
 */
export async function auditAuthenticationFailure(request: NeutralRequest, error: GatewayError, traceId: string): Promise<void> {
  const caller = error instanceof AuthenticationError ? error.caller : undefined;
  const method = caller?.method ?? (request.headers['x-gw-api-key'] ? 'api_key' : 'jwt');
  try {
    await recordAuditEvent({
      action: 'authentication.failed',
      resource_type: 'authentication',
      outcome: 'failure',
      organisation_id: caller?.organisationId,
      workspace_id: caller?.workspaceId,
      actor: { type: caller?.actorId ? (method === 'jwt' ? 'jwt' : 'api_key') : 'anonymous', id: caller?.actorId },
      details: { method, code: error.code, status: error.status, http_method: request.method, path: request.path },
      source_ip: request.sourceIp,
      trace_id: traceId,
    });
  } catch (thrown) {
    logger.error('could not record an authentication failure in the audit log', { trace_id: traceId, error: thrown as Error });
  }
}
