import { randomUUID } from 'node:crypto';
import { isJwtPrincipal, type Principal } from '../auth/principal.js';
import { settings } from '../settings.js';
import { AuditLogRepository, type AuditEvent } from '../store/audit-log-repository.js';

// Below the gateway and the control plane: both file audit events (the gateway its refused keys).

let repository: AuditLogRepository | undefined;

/**
 * Writes an audit event (when AUDIT_LOGS_ENABLED). Awaited by mutations so no change goes unrecorded.
 * Events live in the main table under the organisation, newest first by their sort key (AuditLogRepository).
 */
export async function recordAuditEvent(event: AuditEvent): Promise<void> {
  if (!settings().AUDIT_LOGS_ENABLED) return;
  repository ??= new AuditLogRepository();
  await repository.append({ id: randomUUID(), at: new Date().toISOString(), ...event });
}

export function actorOf(principal: Principal): AuditEvent['actor'] {
  return { type: isJwtPrincipal(principal) ? 'jwt' : 'api_key', id: principal.keyId };
}
