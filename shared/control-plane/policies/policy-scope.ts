import { isJwtPrincipal, type Principal } from '../../auth/principal.js';
import { GatewayError, badRequest } from '../../http/errors.js';
import type { WorkspaceRepository } from '../../store/workspace-repository.js';

/** The workspace (and organisation) a policy call acts on. */
export interface PolicyScope {
  organisationId: string;
  workspaceId: string;
}

export interface RequestedScope {
  workspace_id?: string;
  organisation_id?: string;
}

/**
 * Which workspace a policy is created in. An API key brings its own organisation and workspace, so both fields
 * are optional for it; other callers (JWT) must name both.
 */
export async function resolveCreationScope(principal: Principal, requested: RequestedScope, workspaces: WorkspaceRepository): Promise<PolicyScope> {
  if (isJwtPrincipal(principal)) {
    if (requested.workspace_id === undefined) {
      throw badRequest('invalid_request', 'workspace_id: is required when the call is not authenticated by an API key', 'workspace_id');
    }
    if (requested.organisation_id === undefined) {
      throw badRequest('invalid_request', 'organisation_id: is required when the call is not authenticated by an API key', 'organisation_id');
    }
  }
  if (requested.organisation_id !== undefined && requested.organisation_id !== principal.organisationId) {
    throw new GatewayError(404, 'not_found', `No organisation with id '${requested.organisation_id}'`, { param: 'organisation_id' });
  }
  return resolveVisibleWorkspace(principal, requested.workspace_id, workspaces);
}

/**
 * The workspace a call names (by id or slug), or the caller's own when it names none. An organisation admin key
 * may name any workspace of its organisation; a workspace key only its own. Anything the caller may not see is
 * a 404, never a 403, so the answer is the same whether it exists or not.
 */
export async function resolveVisibleWorkspace(principal: Principal, requested: string | undefined, workspaces: WorkspaceRepository): Promise<PolicyScope> {
  if (requested === undefined) return { organisationId: principal.organisationId, workspaceId: principal.workspaceId };
  const workspaceId = await findWorkspaceId(principal.organisationId, requested, workspaces);
  const visible = workspaceId !== undefined && (principal.kind === 'admin' || workspaceId === principal.workspaceId);
  if (!visible) throw new GatewayError(404, 'not_found', `No workspace with id or slug '${requested}'`, { param: 'workspace_id' });
  return { organisationId: principal.organisationId, workspaceId };
}

/** A workspace of the organisation by id or slug; undefined when the organisation has none by that name. */
export async function findWorkspaceId(organisationId: string, idOrSlug: string, workspaces: WorkspaceRepository): Promise<string | undefined> {
  const byId = await workspaces.getWorkspace(idOrSlug);
  if (byId && byId.organisation_id === organisationId) return byId.id;
  const idOfSlug = await workspaces.findWorkspaceIdBySlug(organisationId, idOrSlug);
  if (idOfSlug === undefined) return undefined;
  const bySlug = await workspaces.getWorkspace(idOfSlug);
  return bySlug && bySlug.organisation_id === organisationId ? bySlug.id : undefined;
}
