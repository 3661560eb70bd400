import type { Principal } from '../../auth/principal.js';
import { GatewayError } from '../../http/errors.js';
import { WorkspaceRepository, type WorkspaceRecord } from '../../store/workspace-repository.js';

/**
 * A workspace the caller may see, by id or slug: any workspace of its organisation for an admin key (or
 * admin token), only its own for a workspace key. Everything else is the same 404, whether it exists or not.
 */
export async function findVisibleWorkspace(principal: Principal, idOrSlug: string, repository = new WorkspaceRepository()): Promise<WorkspaceRecord> {
  let record = await repository.getWorkspace(idOrSlug);
  if (!record || record.organisation_id !== principal.organisationId) {
    const idOfSlug = await repository.findWorkspaceIdBySlug(principal.organisationId, idOrSlug);
    record = idOfSlug ? await repository.getWorkspace(idOfSlug) : undefined;
  }
  const visible = record !== undefined && record.organisation_id === principal.organisationId && (principal.kind === 'admin' || record.id === principal.workspaceId);
  if (!visible) throw workspaceNotFound(idOrSlug);
  return record as WorkspaceRecord;
}

/** The workspace a call acts on: `requested` (id or slug) when given, else the caller's own. */
export async function targetWorkspace(principal: Principal, requested: string | undefined, repository = new WorkspaceRepository()): Promise<WorkspaceRecord> {
  return findVisibleWorkspace(principal, requested === undefined || requested === '' ? principal.workspaceId : requested, repository);
}

export function workspaceNotFound(idOrSlug: string): GatewayError {
  return new GatewayError(404, 'not_found', `No workspace with id or slug '${idOrSlug}'`, { param: 'workspace_id' });
}
