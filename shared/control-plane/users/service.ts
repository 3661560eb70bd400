import { randomUUID } from 'node:crypto';
import type { Principal } from '../../auth/principal.js';
import { GatewayError } from '../../http/errors.js';
import { EmailTakenError, UserRepository, type UserRecord, type WorkspaceMembership } from '../../store/user-repository.js';
import { WorkspaceRepository } from '../../store/workspace-repository.js';
import { revokeWorkspaceKeys } from '../api-keys/bulk-revoke.js';
import type { ControlPlaneRequest } from '../handler-types.js';
import { audited } from '../audit.js';
import { requireListScope, requireOrganisationAdmin, requireScope } from '../authorization.js';
import { readPageRequest, toPage, type Page } from '../pagination.js';
import { parseJsonBody, validate } from '../../http/json-body.js';
import { findVisibleWorkspace } from '../workspaces/access.js';
import { presentUser } from './present.js';
import { userInviteSchema, userListQuerySchema, userUpdateSchema, type User } from './schemas.js';

/** Users are an organisation matter: every route here needs an organisation admin key (or admin token, to read). */
function requireUserAdmin(principal: Principal): void {
  requireOrganisationAdmin(principal, 'Managing users');
}

export async function listUsers(call: ControlPlaneRequest): Promise<Page<User>> {
  requireUserAdmin(call.principal);
  requireListScope(call.principal, 'users:read');
  const query = validate(userListQuerySchema, call.request.query);
  const page = readPageRequest(call.request);
  const users = new UserRepository();
  const filter = { role: query.role, status: query.status };
  const organisationId = call.principal.organisationId;
  const result = query.workspace_id
    ? await users.listMembers((await findVisibleWorkspace(call.principal, query.workspace_id)).id, organisationId, filter, page.limit, page.startKey)
    : await users.list(organisationId, filter, page.limit, page.startKey);
  return toPage(result.items.map(presentUser), result.nextKey);
}

export async function getUser(call: ControlPlaneRequest): Promise<User> {
  requireUserAdmin(call.principal);
  requireScope(call.principal, 'users:read');
  return presentUser(await findUser(call.principal, call.params.id));
}

/** Adds a user to the organisation (status `invited`), optionally as a member of some workspaces. */
export async function inviteUser(call: ControlPlaneRequest): Promise<User> {
  return audited(call, { action: 'user.invite', resource_type: 'user' }, async () => {
    requireUserAdmin(call.principal);
    requireScope(call.principal, 'users:write');
    const body = parseJsonBody(call.request, userInviteSchema);
    const user: UserRecord = {
      id: randomUUID(),
      organisation_id: call.principal.organisationId,
      email: body.email.toLowerCase(),
      name: body.name,
      role: body.role ?? 'member',
      status: 'invited',
      workspaces: await resolveMemberships(call.principal, body.workspaces ?? []),
      invited_by: call.principal.keyId,
      created_at: new Date().toISOString(),
    };
    try {
      await new UserRepository().create(user);
    } catch (error) {
      if (error instanceof EmailTakenError) throw new GatewayError(409, 'email_taken', 'email: a user with this address already belongs to the organisation', { param: 'email' });
      throw error;
    }
    return { value: presentUser(user), resource_id: user.id, details: { role: user.role, workspaces: user.workspaces } };
  });
}

/** Name, organisation role, status and memberships; leaving a workspace revokes the user's keys in it. */
export async function updateUser(call: ControlPlaneRequest): Promise<User> {
  return audited(call, { action: 'user.update', resource_type: 'user', resource_id: call.params.id }, async () => {
    requireUserAdmin(call.principal);
    requireScope(call.principal, 'users:write');
    const body = parseJsonBody(call.request, userUpdateSchema);
    const user = await findUser(call.principal, call.params.id);
    const workspaces = body.workspaces ? await resolveMemberships(call.principal, body.workspaces) : undefined;
    const users = new UserRepository();
    const updated = await users.update(user, { name: body.name, role: body.role, status: body.status, workspaces }, new Date().toISOString());
    if (!updated) throw userNotFound(call.params.id);
    const revoked: string[] = [];
    if (workspaces) {
      const kept = new Set(workspaces.map((membership) => membership.workspace_id));
      for (const left of user.workspaces.filter((membership) => !kept.has(membership.workspace_id))) {
        revoked.push(...(await revokeWorkspaceKeys(left.workspace_id, (record) => record.user_id === user.id)));
      }
    }
    return { value: presentUser(updated), resource_id: user.id, details: { changed: Object.keys(body), role: body.role, workspaces, revoked_api_keys: revoked } };
  });
}

/** Removes the user from the organisation: memberships gone, every user key of theirs revoked. */
export async function removeUser(call: ControlPlaneRequest): Promise<{ object: 'user'; id: string; deleted: true; revoked_api_keys: string[] }> {
  return audited(call, { action: 'user.remove', resource_type: 'user', resource_id: call.params.id }, async () => {
    requireUserAdmin(call.principal);
    requireScope(call.principal, 'users:write');
    const user = await findUser(call.principal, call.params.id);
    const revoked: string[] = [];
    for (const membership of user.workspaces) {
      revoked.push(...(await revokeWorkspaceKeys(membership.workspace_id, (record) => record.user_id === user.id)));
    }
    await new UserRepository().delete(user);
    return {
      value: { object: 'user' as const, id: user.id, deleted: true as const, revoked_api_keys: revoked },
      resource_id: user.id,
      details: { revoked_api_keys: revoked.length },
    };
  });
}

async function findUser(principal: Principal, userId: string): Promise<UserRecord> {
  const user = await new UserRepository().get(principal.organisationId, userId);
  if (!user) throw userNotFound(userId);
  return user;
}

function userNotFound(userId: string): GatewayError {
  return new GatewayError(404, 'not_found', `No user with id '${userId}' in this organisation`);
}

/** Each named workspace (id or slug) must be one of the organisation's; stored by id. */
async function resolveMemberships(principal: Principal, memberships: WorkspaceMembership[]): Promise<WorkspaceMembership[]> {
  const workspaces = new WorkspaceRepository();
  const resolved: WorkspaceMembership[] = [];
  for (const [index, membership] of memberships.entries()) {
    try {
      const workspace = await findVisibleWorkspace(principal, membership.workspace_id, workspaces);
      if (resolved.some((existing) => existing.workspace_id === workspace.id)) {
        throw new GatewayError(400, 'invalid_request', `workspaces[${index}].workspace_id: names a workspace already listed`, { param: `workspaces[${index}].workspace_id` });
      }
      resolved.push({ workspace_id: workspace.id, role: membership.role });
    } catch (error) {
      if (error instanceof GatewayError && error.status === 404) {
        throw new GatewayError(404, 'not_found', `workspaces[${index}].workspace_id: no workspace with id or slug '${membership.workspace_id}'`, {
          param: `workspaces[${index}].workspace_id`,
        });
      }
      throw error;
    }
  }
  return resolved;
}
