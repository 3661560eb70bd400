import { AuthenticationError } from '../auth/authentication-error.js';
import type { GatewayError } from '../http/errors.js';
import type { NeutralRequest } from '../http/types.js';
import { logger } from '../observability/logger.js';
import { settings } from '../settings.js';
import { countAnonymousFailure } from './anonymous-failures.js';
import { recordAuditEvent } from './record.js';

/**
 * Files a refused authentication in the audit log. When the credential was recognised (a revoked or expired key,
 * a signed token with bad claims) it is one event under that organisation. When it names no organisation (an
 * unknown key, no credential, a token nobody can verify), anyone on the internet can cause it, so it costs no
 * store write: it is counted in memory and logged per source address, minute, method and code
 * (anonymous-failures.ts). The credential itself is never stored. A failure to
 * write is logged, never turned into a 500: the caller must still get its 401.
 */
export async function auditAuthenticationFailure(request: NeutralRequest, error: GatewayError, traceId: string): Promise<void> {
  const caller = error instanceof AuthenticationError ? error.caller : undefined;
  const method = caller?.method ?? (request.headers['x-gw-api-key'] ? 'api_key' : 'jwt');
  try {
    if (caller?.organisationId) {
      await recordAuditEvent({
        action: 'authentication.failed',
        resource_type: 'authentication',
        outcome: 'failure',
        organisation_id: caller.organisationId,
        workspace_id: caller.workspaceId,
        actor: { type: caller.actorId ? (method === 'jwt' ? 'jwt' : 'api_key') : 'anonymous', id: caller.actorId },
        details: { method, code: error.code, status: error.status, http_method: request.method, path: request.path },
        source_ip: request.sourceIp,
        trace_id: traceId,
      });
      return;
    }
    // A token whose signature does not verify (`alg: none`, a forged or foreign key) names no organisation we may
    // trust, so it cannot be an organisation's audit event; but it is a deliberate forgery more often than a
    // mistake, so the operator sees each one in gw's own log (CloudWatch on AWS), with what the token claimed.
    if (method === 'jwt' && error.code === 'jwt_invalid') {
      logger.warn('authentication failed: a token whose signature does not verify', {
        trace_id: traceId,
        code: error.code,
        source_ip: request.sourceIp,
        http_method: request.method,
        path: request.path,
        ...unverifiedTokenFacts(request.headers.authorization),
      });
    }
    if (!settings().AUDIT_LOGS_ENABLED) return;
    const now = new Date();
    countAnonymousFailure({
      minute: startOfMinute(now),
      source_ip: request.sourceIp ?? 'unknown',
      method,
      code: error.code,
      status: error.status,
      last: { http_method: request.method, path: request.path, trace_id: traceId, at: now.toISOString() },
    });
  } catch (thrown) {
    logger.error('could not record an authentication failure in the audit log', { trace_id: traceId, error: thrown as Error });
  }
}

/**
 * What an unverifiable bearer token says about itself — its `alg` and the organisation and subject it claims,
 * labelled as claims (the sender's word only) — never the token or its signature. Nothing when it is no JWT.
 */
function unverifiedTokenFacts(authorization: string | undefined): Record<string, string> {
  const token = /^Bearer\s+(\S+)$/i.exec(authorization?.trim() ?? '')?.[1];
  const [header, payload] = token?.split('.') ?? [];
  const facts: Record<string, string> = {};
  const decoded = (part: string | undefined): Record<string, unknown> | undefined => {
    try {
      const value: unknown = part ? JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) : undefined;
      return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
    } catch {
      return undefined;
    }
  };
  const text = (value: unknown) => (typeof value === 'string' ? value.slice(0, 128) : undefined);
  const alg = text(decoded(header)?.alg);
  const claims = decoded(payload);
  if (alg !== undefined) facts.token_alg = alg;
  for (const [claim, name] of [['organisation_id', 'claimed_organisation_id'], ['sub', 'claimed_sub'], ['iss', 'claimed_iss']] as const) {
    const value = text(claims?.[claim]);
    if (value !== undefined) facts[name] = value;
  }
  return facts;
}

function startOfMinute(now: Date): string {
  return new Date(Math.floor(now.getTime() / 60_000) * 60_000).toISOString();
}
