import { randomUUID } from 'node:crypto';
import type { NeutralResponse } from '../../http/types.js';
import { ScimIdentityChangedError, ScimIdentityRepository, ScimIdentityTakenError, ScimIdentityUserTakenError, type ScimIdentityRecord } from '../../store/scim-identity-repository.js';
import { ScimRepository } from '../../store/scim-repository.js';
import { UserRepository } from '../../store/user-repository.js';
import { applyIdentityAccess } from './identity-access.js';
import { applyPatch, patchRequestSchema } from './patch.js';
import { ENTERPRISE_USER_SCHEMA, SCIM_PATH_PREFIX, ScimError, scimResponse, USER_SCHEMA } from './protocol.js';
import type { ScimCall } from './scim-call.js';
import { primaryEmailOf, userFieldsOf, type ScimUserFields } from './user-resource.js';

/**
 * SCIM Users as a workspace-confined SCIM key provisions them: workspace identities
 * (shared/store/scim-identity-repository.ts). Their userName and e-mail are unique inside the key's workspace
 * only, so every answer this module gives depends on that workspace alone: a create whose name or address belongs
 * to someone elsewhere in the organisation is a 201 like any other, with what the caller sent and nothing more,
 * after the same store work. An identity is linked to an organisation user at provisioning only if a member of the
 * workspace holds its address; otherwise it waits, pending, for an organisation admin to link it
 * (/v1/admin/scim-identities). Its resource is drawn from the identity alone, so linking changes nothing the key
 * can read. Deprovisioning is workspace-scoped: the linked user leaves this workspace, nothing else.
 */
export class WorkspaceIdentities {
  constructor(
    private readonly identities = new ScimIdentityRepository(),
    private readonly users = new UserRepository(),
    private readonly scim = new ScimRepository(),
  ) {}

  async create(call: ScimCall, workspaceId: string): Promise<NeutralResponse> {
    const fields = userFieldsOf(call.body());
    const email = primaryEmailOf(fields);
    const now = new Date().toISOString();
    const member = await this.memberHolding(workspaceId, call.principal.organisationId, email);
    // One identity per user in a workspace: a member another identity already stands for is not linked twice.
    const taken = new Set((await this.identities.list(call.principal.organisationId, workspaceId)).map((identity) => identity.user_id));
    const linkable = member !== undefined && !taken.has(member) ? member : undefined;
    const identity: ScimIdentityRecord = {
      ...identityFields(fields),
      id: randomUUID(),
      organisation_id: call.principal.organisationId,
      workspace_id: workspaceId,
      email,
      in_group: false,
      created_at: now,
      updated_at: now,
    };
    // The member is linked only if this identity wins the member's claim: an admin linking another identity to them
    // at the same moment leaves this one pending, never two identities standing for one user.
    if (linkable && (await this.claimedFor(identity, linkable))) Object.assign(identity, { user_id: linkable, in_group: true, linked_at: now, linked_by: 'workspace-membership' });
    try {
      await this.identities.create(identity);
    } catch (error) {
      if (identity.user_id) await this.identities.releaseUser(identity, identity.user_id);
      throw takenInWorkspace(error, fields);
    }
    return scimResponse(201, identityResource(identity, await this.groupOf(call, identity)), { location: `${SCIM_PATH_PREFIX}/Users/${identity.id}` });
  }

  async find(call: ScimCall, workspaceId: string, id: string): Promise<ScimIdentityRecord | undefined> {
    return /^[A-Za-z0-9-]{1,64}$/.test(id) ? this.identities.get(call.principal.organisationId, workspaceId, id) : undefined;
  }

  async list(call: ScimCall, workspaceId: string): Promise<{ identities: ScimIdentityRecord[]; resources: Array<Record<string, unknown>> }> {
    const identities = await this.identities.list(call.principal.organisationId, workspaceId);
    const resources: Array<Record<string, unknown>> = [];
    for (const identity of identities) resources.push(identityResource(identity, await this.groupOf(call, identity)));
    return { identities, resources };
  }

  async get(call: ScimCall, identity: ScimIdentityRecord): Promise<NeutralResponse> {
    return scimResponse(200, identityResource(identity, await this.groupOf(call, identity)));
  }

  async replace(call: ScimCall, identity: ScimIdentityRecord): Promise<NeutralResponse> {
    return this.save(call, identity, userFieldsOf(call.body(), identity.active));
  }

  async patch(call: ScimCall, identity: ScimIdentityRecord): Promise<NeutralResponse> {
    const request = call.body(patchRequestSchema);
    const patched = applyPatch(identityResource(identity, undefined), request.Operations);
    return this.save(call, identity, userFieldsOf(patched));
  }

  /** DELETE deactivates, as for organisation users: the linked user leaves this workspace, the identity stays. */
  async delete(call: ScimCall, identity: ScimIdentityRecord): Promise<NeutralResponse> {
    await this.save(call, identity, { ...userFieldsOf(identityResource(identity, undefined)), active: false });
    return scimResponse(204, undefined);
  }

  private async save(call: ScimCall, identity: ScimIdentityRecord, fields: ScimUserFields): Promise<NeutralResponse> {
    try {
      await this.identities.rename(identity, fields.userName);
    } catch (error) {
      throw takenInWorkspace(error, fields);
    }
    let next: ScimIdentityRecord = { ...withoutOptionalFields(identity), ...identityFields(fields), updated_at: new Date().toISOString() };
    try {
      next = await this.identities.replace(identity, next);
    } catch (error) {
      // Lost to a change made meanwhile (an admin's link): the name claim follows the identity as it now is.
      if (error instanceof ScimIdentityChangedError && error.current) await this.identities.rename({ ...identity, user_name: fields.userName }, error.current.user_name);
      throw changedMeanwhile(error, identity.id);
    }
    await applyIdentityAccess(identity, next, this.users);
    return scimResponse(200, identityResource(next, await this.groupOf(call, next)));
  }

  /**
   * The member of the workspace whose address this is, if any: the one organisation user an identity may link to
   * unasked. Always two reads — the address's holder, then that holder's membership here (a random id's when nobody
   * holds it) — so the work never says whether someone elsewhere holds the address.
   */
  private async memberHolding(workspaceId: string, organisationId: string, email: string): Promise<string | undefined> {
    const holder = await this.scim.userIdByEmail(organisationId, email);
    const membership = await this.users.getMembership(workspaceId, holder ?? randomUUID());
    return holder !== undefined && membership !== undefined ? holder : undefined;
  }

  private async claimedFor(identity: ScimIdentityRecord, userId: string): Promise<boolean> {
    try {
      await this.identities.claimUser(identity, userId);
      return true;
    } catch (error) {
      if (error instanceof ScimIdentityUserTakenError) return false;
      throw error;
    }
  }

  private async groupOf(call: ScimCall, identity: ScimIdentityRecord): Promise<{ value: string; display: string } | undefined> {
    if (!identity.in_group) return undefined;
    const group = (await call.groups()).get(identity.workspace_id);
    return group ? { value: group.workspace_id, display: group.display_name } : undefined;
  }
}

type IdentityFields = Pick<ScimIdentityRecord, 'user_name' | 'emails' | 'active' | 'extra' | 'external_id' | 'given_name' | 'family_name' | 'display_name'>;

function identityFields(fields: ScimUserFields): IdentityFields {
  const stored: IdentityFields = { user_name: fields.userName, emails: fields.emails, active: fields.active, extra: fields.extra };
  if (fields.externalId) stored.external_id = fields.externalId;
  if (fields.givenName) stored.given_name = fields.givenName;
  if (fields.familyName) stored.family_name = fields.familyName;
  if (fields.displayName) stored.display_name = fields.displayName;
  return stored;
}

/** A PUT replaces: optional attributes the new body leaves out are gone. */
function withoutOptionalFields(identity: ScimIdentityRecord): ScimIdentityRecord {
  const { external_id: _externalId, given_name: _givenName, family_name: _familyName, display_name: _displayName, ...rest } = identity;
  return rest;
}

/**
 * A write that lost to another change of the same identity (an organisation admin's link, a concurrent request of
 * the IdP): 409 so the IdP sends it again over the identity as it now is, or 404 when the identity is gone.
 */
export function changedMeanwhile(error: unknown, id: string): unknown {
  if (!(error instanceof ScimIdentityChangedError)) return error;
  if (!error.current) return new ScimError(404, undefined, `No User with id '${id.slice(0, 64)}'`, 'not_found');
  return new ScimError(409, undefined, `User '${id.slice(0, 64)}' changed while this request ran; send the request again`, 'scim_identity_changed');
}

/** A collision inside the key's own workspace: precise, since the holder is one the key can see anyway. */
function takenInWorkspace(error: unknown, fields: ScimUserFields): unknown {
  if (!(error instanceof ScimIdentityTakenError)) return error;
  return error.attribute === 'userName'
    ? new ScimError(409, 'uniqueness', `userName '${fields.userName.slice(0, 255)}' is already provisioned in this workspace`)
    : new ScimError(409, 'uniqueness', 'A user with this e-mail address is already provisioned in this workspace');
}

/**
 * The SCIM User of a workspace identity, from the identity alone (never from the organisation user it may be
 * linked to): the same resource before and after an organisation admin links it.
 */
export function identityResource(identity: ScimIdentityRecord, group: { value: string; display: string } | undefined): Record<string, unknown> {
  const resource: Record<string, unknown> = {
    schemas: identity.extra[ENTERPRISE_USER_SCHEMA] ? [USER_SCHEMA, ENTERPRISE_USER_SCHEMA] : [USER_SCHEMA],
    id: identity.id,
    userName: identity.user_name,
    active: identity.active,
    emails: identity.emails.length ? identity.emails : [{ value: identity.email, type: 'work', primary: true }],
    groups: group ? [group] : [],
    meta: { resourceType: 'User', created: identity.created_at, lastModified: identity.updated_at, location: `${SCIM_PATH_PREFIX}/Users/${identity.id}` },
  };
  if (identity.external_id) resource.externalId = identity.external_id;
  const name: Record<string, string> = {};
  if (identity.given_name) name.givenName = identity.given_name;
  if (identity.family_name) name.familyName = identity.family_name;
  if (Object.keys(name).length > 0) resource.name = { ...name, formatted: [name.givenName, name.familyName].filter(Boolean).join(' ') };
  const displayName = identity.display_name ?? ([identity.given_name, identity.family_name].filter(Boolean).join(' ') || undefined);
  if (displayName) resource.displayName = displayName;
  for (const [schema, value] of Object.entries(identity.extra)) resource[schema] = value;
  return resource;
}
