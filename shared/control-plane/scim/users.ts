import { randomUUID } from 'node:crypto';
import type { NeutralResponse } from '../../http/types.js';
import { ScimRepository, ScimUserNameTakenError, type ScimUserRecord } from '../../store/scim-repository.js';
import { EmailTakenError, UserRepository, type UserRecord } from '../../store/user-repository.js';
import { revokeWorkspaceKeys } from '../api-keys/bulk-revoke.js';
import { applyPatch, patchRequestSchema } from './patch.js';
import { applyFilter, listResponse, readScimPage, ScimError, scimResponse } from './protocol.js';
import type { ScimCall } from './scim-call.js';
import { displayNameOf, primaryEmailOf, userFieldsOf, userResource, type ScimUserFields } from './user-resource.js';
import { WorkspaceIdentities } from './workspace-identities.js';

/**
 * SCIM Users ↔ organisation users. A SCIM record beside the user keeps what the identity provider manages
 * (userName, externalId, names, e-mails, active). Deactivating (active: false, or DELETE) revokes the user's API
 * keys in every workspace; the user and its memberships stay, so a re-activation restores access to them.
 *
 * SCIM deactivates only users it manages: those SCIM created (`origin: scim`). A user gw had first (invited
 * through the users API, the bootstrap admin, a JWT user) may be linked by an organisation admin key and updated,
 * never deactivated through SCIM (403 `user_not_scim_managed`): a `scim` key could otherwise revoke an admin's
 * keys by claiming its e-mail.
 *
 * A workspace key with the `scim` scope provisions workspace identities (workspace-identities.ts), never
 * organisation users, so none of its answers depends on who exists elsewhere in the organisation. Beside them it
 * sees the members of its workspace and the organisation users it provisioned before identities existed, and
 * changes only those SCIM created.
 */
export class ScimUsers {
  constructor(
    private readonly users = new UserRepository(),
    private readonly scim = new ScimRepository(),
    private readonly identities = new WorkspaceIdentities(),
  ) {}

  async create(call: ScimCall): Promise<NeutralResponse> {
    if (call.confinedTo !== undefined) return this.identities.create(call, call.confinedTo);
    const fields = userFieldsOf(call.body());
    const organisationId = call.principal.organisationId;
    const now = new Date().toISOString();
    const user: UserRecord = {
      id: randomUUID(),
      organisation_id: organisationId,
      email: primaryEmailOf(fields),
      role: 'member',
      status: 'active',
      workspaces: [],
      invited_by: call.principal.keyId,
      created_at: now,
    };
    const name = displayNameOf(fields);
    if (name) user.name = name;
    const adopted = await this.adoptable(organisationId, user.email);
    if (adopted) return this.adopt(call, adopted, fields);
    await this.claim(organisationId, fields.userName, user.id, false);
    try {
      await this.users.create(user);
    } catch (error) {
      await this.scim.releaseUserName(organisationId, fields.userName, user.id);
      if (error instanceof EmailTakenError) throw new ScimError(409, 'uniqueness', 'A user with this e-mail address already exists in the organisation');
      throw error;
    }
    // No provisioned_in: only a workspace key's users were ever visible by it, and the admin key's own workspace (its
    // principal's workspaceId) must not see every user the organisation's IdP provisions.
    const record: ScimUserRecord = { ...scimRecord(user, fields, now, now), origin: 'scim' };
    await this.scim.putUser(record);
    return scimResponse(201, userResource(user, record, []), { location: `/v1/scim/v2/Users/${user.id}` });
  }

  /**
   * A user gw already has (invited through /v1/admin/users, or the bootstrap admin) and SCIM does not manage yet:
   * the identity provider takes it over instead of failing on the e-mail address.
   */
  private async adoptable(organisationId: string, email: string): Promise<UserRecord | undefined> {
    const userId = await this.scim.userIdByEmail(organisationId, email);
    if (!userId || (await this.scim.getUser(organisationId, userId))) return undefined;
    return this.users.get(organisationId, userId);
  }

  private async adopt(call: ScimCall, user: UserRecord, fields: ScimUserFields): Promise<NeutralResponse> {
    if (!fields.active) throw notScimManaged();
    await this.claim(user.organisation_id, fields.userName, user.id, false);
    const saved = await this.save(call, { user }, fields);
    return { ...saved, status: 201, headers: { ...saved.headers, location: `/v1/scim/v2/Users/${user.id}` } };
  }

  async get(call: ScimCall, userId: string): Promise<NeutralResponse> {
    const identity = await this.identityOf(call, userId);
    if (identity) return this.identities.get(call, identity);
    const { user, record } = await this.existing(call, userId);
    return scimResponse(200, userResource(user, record, await this.groupsOf(call, user)));
  }

  async list(call: ScimCall): Promise<NeutralResponse> {
    const organisationId = call.principal.organisationId;
    const page = readScimPage(call.request.query);
    const records = new Map((await this.scim.listUsers(organisationId)).map((record) => [record.user_id, record]));
    const resources: Array<Record<string, unknown>> = [];
    // A confined key's identities stand for the members they are linked to: those members are listed once, as identities.
    const linked = new Set<string>();
    if (call.confinedTo !== undefined) {
      const own = await this.identities.list(call, call.confinedTo);
      resources.push(...own.resources);
      for (const identity of own.identities) if (identity.user_id) linked.add(identity.user_id);
    }
    let startKey: Record<string, unknown> | undefined;
    do {
      const result = await this.users.list(organisationId, {}, 100, startKey);
      for (const user of result.items) {
        if (!linked.has(user.id) && visibleTo(call, user, records.get(user.id))) resources.push(userResource(user, records.get(user.id), await this.groupsOf(call, user)));
      }
      startKey = result.nextKey;
    } while (startKey);
    resources.sort((a, b) => String((a.meta as { created: string }).created).localeCompare(String((b.meta as { created: string }).created)));
    return listResponse(applyFilter(resources, call.request.query.filter), page);
  }

  async replace(call: ScimCall, userId: string): Promise<NeutralResponse> {
    const identity = await this.identityOf(call, userId);
    if (identity) return this.identities.replace(call, identity);
    const current = await this.changeable(call, userId);
    return this.save(call, current, userFieldsOf(call.body(), current.record?.active ?? true));
  }

  /** PATCH as Okta and Entra ID send it: applied to the current resource, then validated and saved like a PUT. */
  async patch(call: ScimCall, userId: string): Promise<NeutralResponse> {
    const identity = await this.identityOf(call, userId);
    if (identity) return this.identities.patch(call, identity);
    const current = await this.changeable(call, userId);
    const request = call.body(patchRequestSchema);
    const patched = applyPatch(userResource(current.user, current.record, []), request.Operations);
    return this.save(call, current, userFieldsOf(patched));
  }

  /** DELETE deactivates: the identity provider's "deprovision" must not destroy the user's history in gw. */
  async delete(call: ScimCall, userId: string): Promise<NeutralResponse> {
    const identity = await this.identityOf(call, userId);
    if (identity) return this.identities.delete(call, identity);
    const current = await this.changeable(call, userId);
    const fields = userFieldsOf(userResource(current.user, current.record, []));
    await this.save(call, current, { ...fields, active: false });
    return scimResponse(204, undefined);
  }

  private async save(call: ScimCall, current: { user: UserRecord; record?: ScimUserRecord }, fields: ScimUserFields): Promise<NeutralResponse> {
    const { user, record } = current;
    const organisationId = call.principal.organisationId;
    const wasActive = record?.active ?? true;
    // Checked before anything is written: a refused deactivation leaves the user exactly as it was.
    if (wasActive && !fields.active && record?.origin !== 'scim') throw notScimManaged();
    const previousUserName = record?.user_name ?? user.email;
    if (previousUserName.toLowerCase() !== fields.userName.toLowerCase()) {
      // Only an organisation user a confined key provisioned before workspace identities existed is renamed here by
      // one: its userName is still organisation-wide, so it gets the one answer (unavailableToConfinedKey).
      await this.claim(organisationId, fields.userName, user.id, call.confinedTo !== undefined);
      await this.scim.releaseUserName(organisationId, previousUserName, user.id);
    }
    const now = new Date().toISOString();
    const name = displayNameOf(fields);
    const updated = name && name !== user.name ? ((await this.users.update(user, { name }, now)) ?? user) : user;
    const next: ScimUserRecord = { ...scimRecord(updated, fields, record?.created_at ?? user.created_at, now), origin: record?.origin ?? 'adopted' };
    if (record?.provisioned_in) next.provisioned_in = record.provisioned_in;
    await this.scim.putUser(next);
    if (wasActive && !next.active) {
      for (const membership of user.workspaces) await revokeWorkspaceKeys(membership.workspace_id, (key) => key.user_id === user.id);
    }
    return scimResponse(200, userResource(updated, next, await this.groupsOf(call, updated)));
  }

  /** `confined`: the caller is a workspace-confined key, whose every collision gets one answer, wherever the holder is. */
  private async claim(organisationId: string, userName: string, userId: string, confined: boolean): Promise<void> {
    try {
      await this.scim.claimUserName(organisationId, userName, userId);
    } catch (error) {
      if (error instanceof ScimUserNameTakenError) throw confined ? unavailableToConfinedKey() : new ScimError(409, 'uniqueness', `userName '${userName.slice(0, 255)}' is already provisioned`);
      throw error;
    }
  }

  /** A confined key's workspace identity with this id, if there is one (an admin key has none). */
  private async identityOf(call: ScimCall, id: string) {
    return call.confinedTo === undefined ? undefined : this.identities.find(call, call.confinedTo, id);
  }

  private async existing(call: ScimCall, userId: string): Promise<{ user: UserRecord; record?: ScimUserRecord }> {
    const organisationId = call.principal.organisationId;
    // Both reads whether or not the user exists, so a user elsewhere costs what an unknown id costs.
    const [user, record] = /^[A-Za-z0-9-]{1,64}$/.test(userId) ? await Promise.all([this.users.get(organisationId, userId), this.scim.getUser(organisationId, userId)]) : [undefined, undefined];
    if (!user || !visibleTo(call, user, record)) throw new ScimError(404, undefined, `No User with id '${userId.slice(0, 64)}'`, 'not_found');
    return { user, record };
  }

  /** A user the caller may change: any it sees for an organisation admin key; only users SCIM created for a workspace key. */
  private async changeable(call: ScimCall, userId: string): Promise<{ user: UserRecord; record?: ScimUserRecord }> {
    const current = await this.existing(call, userId);
    if (call.confinedTo !== undefined && current.record?.origin !== 'scim') throw notScimManaged();
    return current;
  }

  /** The user's groups: its memberships of workspaces linked as SCIM groups. */
  private async groupsOf(call: ScimCall, user: UserRecord): Promise<Array<{ value: string; display: string }>> {
    const groups = await call.groups();
    return user.workspaces.flatMap((membership) => {
      const group = groups.get(membership.workspace_id);
      return group ? [{ value: group.workspace_id, display: group.display_name }] : [];
    });
  }
}

/** What a workspace key's SCIM sees: users of its workspace and users it provisioned; an admin key sees all. */
function visibleTo(call: ScimCall, user: UserRecord, record: ScimUserRecord | undefined): boolean {
  const workspace = call.confinedTo;
  if (workspace === undefined) return true;
  return record?.provisioned_in === workspace || user.workspaces.some((membership) => membership.workspace_id === workspace);
}

function notScimManaged(): ScimError {
  return new ScimError(403, undefined, 'SCIM manages only the users it created: deactivate or change this user through /v1/admin/users with an organisation admin key', 'user_not_scim_managed');
}

function scimRecord(user: UserRecord, fields: ScimUserFields, createdAt: string, updatedAt: string): ScimUserRecord {
  const record: ScimUserRecord = {
    user_id: user.id,
    organisation_id: user.organisation_id,
    user_name: fields.userName,
    emails: fields.emails,
    active: fields.active,
    extra: fields.extra,
    created_at: createdAt,
    updated_at: updatedAt,
  };
  if (fields.externalId) record.external_id = fields.externalId;
  if (fields.givenName) record.given_name = fields.givenName;
  if (fields.familyName) record.family_name = fields.familyName;
  if (fields.displayName) record.display_name = fields.displayName;
  return record;
}

/**
 * A workspace-confined SCIM key's one answer when it renames an organisation user it provisioned before workspace
 * identities existed to a userName held elsewhere: the same whoever holds it, so it names no one
 * (docs/control-plane/scim.md). New users of such a key are workspace identities, unique in its workspace only.
 */
function unavailableToConfinedKey(): ScimError {
  return new ScimError(409, 'uniqueness', 'This userName or e-mail address cannot be provisioned with this workspace’s SCIM key; an organisation admin key can provision or link it');
}
