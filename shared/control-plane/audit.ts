import { actorOf, recordAuditEvent } from '../audit/record.js';
import { toGatewayError } from '../http/errors.js';
import type { AuditEvent } from '../store/audit-log-repository.js';
import type { ControlPlaneRequest } from './handler-types.js';

export type { AuditEvent };

export interface AuditedMutation {
  action: string;
  resource_type: string;
  /** Known before the change (update, delete); a created resource's id comes from `resourceIdOf`. */
  resource_id?: string;
  /** The workspace the change concerns; defaults to the caller's. */
  workspace_id?: string;
}

export interface MutationResult<T> {
  value: T;
  resource_id?: string;
  workspace_id?: string;
  details?: Record<string, unknown>;
}

/**
 * Runs a mutation and records its outcome either way: success with what changed, or failure with the error
 * code (validation, authorization, conflict …), then rethrows. Details must never hold a secret.
 */
export async function audited<T>(call: ControlPlaneRequest, mutation: AuditedMutation, run: () => Promise<MutationResult<T>>): Promise<T> {
  const base = {
    action: mutation.action,
    resource_type: mutation.resource_type,
    organisation_id: call.principal.organisationId,
    actor: actorOf(call.principal),
    source_ip: call.request.sourceIp,
    trace_id: call.traceId,
  };
  let result: MutationResult<T>;
  try {
    result = await run();
  } catch (thrown) {
    const error = toGatewayError(thrown);
    // Filed under the caller's workspace: the target was not necessarily one the caller may see.
    const target = mutation.workspace_id !== undefined && mutation.workspace_id !== call.principal.workspaceId ? { target_workspace_id: mutation.workspace_id } : {};
    await recordAuditEvent({
      ...base,
      resource_id: mutation.resource_id,
      workspace_id: call.principal.workspaceId,
      outcome: 'failure',
      details: { status: error.status, code: error.code, ...target },
    });
    throw thrown;
  }
  await recordAuditEvent({
    ...base,
    resource_id: result.resource_id ?? mutation.resource_id,
    workspace_id: result.workspace_id ?? mutation.workspace_id ?? call.principal.workspaceId,
    outcome: 'success',
    details: result.details,
  });
  return result.value;
}
