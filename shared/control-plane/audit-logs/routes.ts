import { jsonResponse } from '../../http/types.js';
import { AuditLogRepository, type AuditLogRecord } from '../../store/audit-log-repository.js';
import type { ControlPlaneRequest } from '../handler-types.js';
import { requireListScope } from '../authorization.js';
import { gatedBy } from '../feature-flags.js';
import { readPageRequest, toPage, type Page } from '../pagination.js';
import type { RouteRegistrar } from '../handler-types.js';
import { validate } from '../../http/json-body.js';
import { targetWorkspace } from '../workspaces/access.js';
import { auditLogListQuerySchema, type AuditLog } from './schemas.js';

/** GET /v1/audit-logs, newest first; 404 naming the flag while AUDIT_LOGS_ENABLED is OFF. */
export function registerAuditLogRoutes(register: RouteRegistrar): void {
  register('GET', '/v1/audit-logs', gatedBy('AUDIT_LOGS_ENABLED', async (call) => jsonResponse(200, await listAuditLogs(call))));
}

/**
 * An organisation admin reads the whole organisation's log, or one workspace's with `workspace_id`; a workspace
 * key (or token) reads only its own workspace's events.
 */
export async function listAuditLogs(call: ControlPlaneRequest): Promise<Page<AuditLog>> {
  requireListScope(call.principal, 'audit_logs:read');
  const { workspace_id: requested, limit: _limit, cursor: _cursor, ...filter } = validate(auditLogListQuerySchema, call.request.query);
  const page = readPageRequest(call.request);
  const workspaceId = call.principal.kind === 'admin' && requested === undefined ? undefined : (await targetWorkspace(call.principal, requested)).id;
  const result = await new AuditLogRepository().list({ organisationId: call.principal.organisationId, workspaceId }, filter, page.limit, page.startKey);
  return toPage(result.items.map(presentAuditLog), result.nextKey);
}

function presentAuditLog(record: AuditLogRecord): AuditLog {
  return {
    object: 'audit_log',
    id: record.id,
    at: record.at,
    action: record.action,
    resource_type: record.resource_type,
    resource_id: record.resource_id ?? null,
    outcome: record.outcome,
    organisation_id: record.organisation_id ?? null,
    workspace_id: record.workspace_id ?? null,
    actor: { type: record.actor?.type ?? 'anonymous', id: record.actor?.id ?? null },
    source_ip: record.source_ip ?? null,
    trace_id: record.trace_id ?? null,
    details: record.details ?? {},
  };
}
