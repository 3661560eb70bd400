import type { Principal } from '../../auth/principal.js';
import { badRequest, GatewayError } from '../../http/errors.js';
import { MAX_ID_CHARS } from '../../http/ids.js';
import { WorkspaceRepository, type WorkspaceRecord } from '../../store/workspace-repository.js';

/**
 * A workspace the caller may see, by id or slug: any workspace of its organisation for an admin key (or
 * admin token), only its own for a workspace key. Everything else is the same 404, whether it exists or not.
 */
export async function findVisibleWorkspace(principal: Principal, idOrSlug: string, repository = new WorkspaceRepository()): Promise<WorkspaceRecord> {
  // Every `workspace_id=` of every resource comes here: a longer one cannot exist and would fail the store lookup.
  if (idOrSlug.length > MAX_ID_CHARS) throw badRequest('invalid_request', `workspace_id: must be at most ${MAX_ID_CHARS} characters`, 'workspace_id');
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

/**
 * The ids of workspaces the caller may see, from ids or slugs, de-duplicated in order; an unknown or invisible
 * one is a 404 naming its position in `param` (e.g. `shared_with_workspaces[2]`).
 */
export async function visibleWorkspaceIds(principal: Principal, requested: readonly string[], param: string): Promise<string[]> {
  const ids: string[] = [];
  for (const [index, idOrSlug] of requested.entries()) {
    try {
      const id = (await findVisibleWorkspace(principal, idOrSlug)).id;
      if (!ids.includes(id)) ids.push(id);
    } catch (error) {
      if (error instanceof GatewayError && error.status === 404) {
        throw new GatewayError(404, 'not_found', `${param}[${index}]: no workspace with id or slug '${idOrSlug}'`, { param: `${param}[${index}]` });
      }
      throw error;
    }
  }
  return ids;
}
