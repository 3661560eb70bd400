import { randomUUID } from 'node:crypto';
import type { Principal } from '../../auth/principal.js';
import { GatewayError } from '../../http/errors.js';
import { EmailTakenError, UserRepository, type UserRecord, type WorkspaceMembership } from '../../store/user-repository.js';
import { WorkspaceRepository } from '../../store/workspace-repository.js';
import { revokeWorkspaceKeys } from '../api-keys/bulk-revoke.js';
import { requireOrganisationAdmin } from '../authorization.js';
import { toPage, type Page, type PageRequest } from '../pagination.js';
import type { CrudService, ResourceScope } from '../resource/define-resource.js';
import { findVisibleWorkspace } from '../workspaces/access.js';
import { presentUser } from './present.js';
import type { UserInvite, UserListQuery, UserUpdate } from './schemas.js';

/** Users are an organisation matter: every route needs an organisation admin key (or admin token, to read), checked first. */
export function requireUserAdmin(principal: Principal): void {
  requireOrganisationAdmin(principal, 'Managing users');
}

/** What a use case returns: the user, and what its audit event says. */
export interface UserResult {
  id: string;
  user: UserRecord;
  details?: Record<string, unknown>;
  /** The user keys a removal revoked. */
  revoked?: string[];
}

/** The user use cases (users/resource.ts routes them): users of the caller's organisation only. */
export class UserService implements CrudService<UserResult, UserInvite, UserUpdate, UserListQuery> {
  async list({ principal }: ResourceScope, page: PageRequest, query: UserListQuery): Promise<Page<unknown>> {
    const users = new UserRepository();
    const filter = { role: query.role, status: query.status };
    const organisationId = principal.organisationId;
    const result = query.workspace_id
      ? await users.listMembers((await findVisibleWorkspace(principal, query.workspace_id)).id, organisationId, filter, page.limit, page.startKey)
      : await users.list(organisationId, filter, page.limit, page.startKey);
    return toPage(result.items.map(presentUser), result.nextKey);
  }

  async get({ principal }: ResourceScope, userId: string): Promise<UserResult> {
    const user = await findUser(principal, userId);
    return { id: user.id, user };
  }

  /** Adds a user to the organisation (status `invited`), optionally as a member of some workspaces. */
  async create({ principal }: ResourceScope, body: UserInvite): Promise<UserResult> {
    const user: UserRecord = {
      id: randomUUID(),
      organisation_id: principal.organisationId,
      email: body.email.toLowerCase(),
      name: body.name,
      role: body.role ?? 'member',
      status: 'invited',
      workspaces: await resolveMemberships(principal, body.workspaces ?? []),
      invited_by: principal.keyId,
      created_at: new Date().toISOString(),
    };
    try {
      await new UserRepository().create(user);
    } catch (error) {
      if (error instanceof EmailTakenError) throw new GatewayError(409, 'email_taken', 'email: a user with this address already belongs to the organisation', { param: 'email' });
      throw error;
    }
    return { id: user.id, user, details: { role: user.role, workspaces: user.workspaces } };
  }

  /** Name, organisation role, status and memberships; leaving a workspace revokes the user's keys in it. */
  async update({ principal }: ResourceScope, userId: string, body: UserUpdate): Promise<UserResult> {
    const user = await findUser(principal, userId);
    const workspaces = body.workspaces ? await resolveMemberships(principal, body.workspaces) : undefined;
    const users = new UserRepository();
    const updated = await users.update(user, { name: body.name, role: body.role, status: body.status, workspaces }, new Date().toISOString());
    if (!updated) throw userNotFound(userId);
    const revoked: string[] = [];
    if (workspaces) {
      const kept = new Set(workspaces.map((membership) => membership.workspace_id));
      for (const left of user.workspaces.filter((membership) => !kept.has(membership.workspace_id))) {
        revoked.push(...(await revokeWorkspaceKeys(left.workspace_id, (record) => record.user_id === user.id)));
      }
    }
    return { id: user.id, user: updated, details: { changed: Object.keys(body), role: body.role, workspaces, revoked_api_keys: revoked } };
  }

  /** Removes the user from the organisation: memberships gone, every user key of theirs revoked. */
  async delete({ principal }: ResourceScope, userId: string): Promise<UserResult> {
    const user = await findUser(principal, userId);
    const revoked: string[] = [];
    for (const membership of user.workspaces) {
      revoked.push(...(await revokeWorkspaceKeys(membership.workspace_id, (record) => record.user_id === user.id)));
    }
    await new UserRepository().delete(user);
    return { id: user.id, user, revoked, details: { revoked_api_keys: revoked.length } };
  }
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
