import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { GatewayError } from '../../http/errors.js';
import { parseJsonBody, validate } from '../../http/json-body.js';
import { jsonResponse } from '../../http/types.js';
import { ScimIdentityChangedError, ScimIdentityRepository, ScimIdentityUserTakenError, type ScimIdentityRecord } from '../../store/scim-identity-repository.js';
import { ScimRepository } from '../../store/scim-repository.js';
import { EmailTakenError, UserRepository, type UserRecord } from '../../store/user-repository.js';
import { audited } from '../audit.js';
import { requireScope } from '../authorization.js';
import type { ControlPlaneRequest, RouteRegistrar } from '../handler-types.js';
import { applyIdentityAccess } from '../scim/identity-access.js';
import { requireUserAdmin } from './service.js';

export const scimIdentityListQuerySchema = z.strictObject({
  workspace_id: z.string().min(1).max(128).optional(),
  status: z.enum(['pending', 'linked']).optional(),
});
export const scimIdentityLinkSchema = z.strictObject({ user_id: z.string().regex(/^[A-Za-z0-9-]{1,64}$/, 'must be a user id').optional() });

/**
 * What an organisation admin does with the users workspace-confined SCIM keys provisioned
 * (docs/control-plane/scim.md, "Workspace identities"): `GET /v1/admin/scim-identities` lists them (`status=pending`
 * for those waiting), `POST /v1/admin/scim-identities/{id}/link` ties one to an organisation user (the one named,
 * else the one holding its e-mail, else a new one). Linking grants the workspace membership its group says; the
 * workspace's key reads the same identity before and after.
 */
export function registerScimIdentityRoutes(register: RouteRegistrar): void {
  register('GET', '/v1/admin/scim-identities', async (call) => {
    requireUserAdmin(call.principal);
    requireScope(call.principal, 'users:read');
    const query = validate(scimIdentityListQuerySchema, call.request.query);
    const identities = await new ScimIdentityRepository().list(call.principal.organisationId, query.workspace_id);
    const kept = identities.filter((identity) => query.status === undefined || statusOf(identity) === query.status).sort((a, b) => a.created_at.localeCompare(b.created_at));
    return jsonResponse(200, { object: 'list', data: kept.map(presentIdentity) });
  });
  register('POST', '/v1/admin/scim-identities/{id}/link', (call) =>
    audited(call, { action: 'scim.identity.link', resource_type: 'scim_identity', resource_id: call.params.id }, async () => {
      requireUserAdmin(call.principal);
      requireScope(call.principal, 'users:write');
      const linked = await link(call, parseJsonBody(call.request, scimIdentityLinkSchema).user_id);
      return { value: jsonResponse(200, presentIdentity(linked)), resource_id: linked.id, workspace_id: linked.workspace_id, details: { user_id: linked.user_id } };
    }),
  );
}

async function link(call: ControlPlaneRequest, userId: string | undefined): Promise<ScimIdentityRecord> {
  const organisationId = call.principal.organisationId;
  const identities = new ScimIdentityRepository();
  const identity = await identities.findById(organisationId, call.params.id);
  if (!identity) throw notFound(call.params.id);
  if (identity.user_id) throw alreadyLinked(identity);
  const users = new UserRepository();
  const user = userId ? await users.get(organisationId, userId) : await userForEmail(call, identity, users);
  if (!user) throw new GatewayError(404, 'not_found', `user_id: no user with id '${userId}' in this organisation`, { param: 'user_id' });
  // One identity per user in a workspace, so one identity's deprovisioning never undoes another's grant. The claim
  // (a conditional write) decides links made at once; only its holder then reads the workspace's identities, for a
  // link written before claims were kept (which has none), so the many losers of a race read nothing.
  const userTaken = new GatewayError(409, 'user_already_linked', `User '${user.id}' is already linked to another SCIM identity of this workspace`, { param: userId ? 'user_id' : null });
  try {
    await identities.claimUser(identity, user.id);
  } catch (error) {
    throw error instanceof ScimIdentityUserTakenError ? userTaken : error;
  }
  if ((await identities.list(organisationId, identity.workspace_id)).some((other) => other.id !== identity.id && other.user_id === user.id)) {
    await identities.releaseUser(identity, user.id);
    throw userTaken;
  }
  const now = new Date().toISOString();
  let next: ScimIdentityRecord;
  try {
    // updated_at stays: the SCIM resource did not change, and its meta.lastModified must not tell the workspace key of the link.
    next = await linkedOnce(identities, identity, { ...identity, user_id: user.id, linked_at: now, linked_by: call.principal.keyId });
  } catch (error) {
    // The link did not land: the user is free for another identity again.
    await identities.releaseUser(identity, user.id);
    throw error;
  }
  await applyIdentityAccess(identity, next, users);
  return next;
}

/**
 * Writes the link only over the identity as it was read (still there, still pending, no write since): of two
 * admins linking it at once, or a link and its workspace's IdP deprovisioning it, exactly one change lands, and
 * the other is told why instead of undoing it (a deactivated identity made active again, a second user linked).
 */
async function linkedOnce(identities: ScimIdentityRepository, read: ScimIdentityRecord, next: ScimIdentityRecord): Promise<ScimIdentityRecord> {
  try {
    return await identities.replace(read, next);
  } catch (error) {
    if (!(error instanceof ScimIdentityChangedError)) throw error;
    if (!error.current) throw notFound(read.id);
    if (error.current.user_id) throw alreadyLinked(error.current);
    throw new GatewayError(409, 'scim_identity_changed', 'This SCIM identity changed while it was being linked (its IdP updated it); read it again and retry the link');
  }
}

const notFound = (id: string) => new GatewayError(404, 'not_found', `No SCIM identity with id '${id.slice(0, 64)}' in this organisation`);
const alreadyLinked = (identity: ScimIdentityRecord) => new GatewayError(409, 'already_linked', `This SCIM identity is already linked to user '${identity.user_id}'`);

/** The organisation user holding the identity's address, or a new active one with it. */
async function userForEmail(call: ControlPlaneRequest, identity: ScimIdentityRecord, users: UserRepository): Promise<UserRecord | undefined> {
  const scim = new ScimRepository();
  const holder = await scim.userIdByEmail(identity.organisation_id, identity.email);
  if (holder) return users.get(identity.organisation_id, holder);
  const user: UserRecord = {
    id: randomUUID(),
    organisation_id: identity.organisation_id,
    email: identity.email,
    role: 'member',
    status: 'active',
    workspaces: [],
    invited_by: call.principal.keyId,
    created_at: new Date().toISOString(),
  };
  const name = identity.display_name ?? ([identity.given_name, identity.family_name].filter(Boolean).join(' ') || undefined);
  if (name) user.name = name;
  try {
    await users.create(user);
  } catch (error) {
    // Someone took the address meanwhile: link to them, as if they had been there first.
    if (!(error instanceof EmailTakenError)) throw error;
    const raced = await scim.userIdByEmail(identity.organisation_id, identity.email);
    return raced ? users.get(identity.organisation_id, raced) : undefined;
  }
  return user;
}

function statusOf(identity: ScimIdentityRecord): 'pending' | 'linked' {
  return identity.user_id ? 'linked' : 'pending';
}

function presentIdentity(identity: ScimIdentityRecord) {
  return {
    object: 'scim_identity' as const,
    id: identity.id,
    workspace_id: identity.workspace_id,
    user_name: identity.user_name,
    email: identity.email,
    external_id: identity.external_id ?? null,
    active: identity.active,
    in_group: identity.in_group,
    status: statusOf(identity),
    user_id: identity.user_id ?? null,
    linked_at: identity.linked_at ?? null,
    created_at: identity.created_at,
    updated_at: identity.updated_at,
  };
}
