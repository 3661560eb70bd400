import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import type { NeutralResponse } from '../../http/types.js';
import { ScimIdentityRepository } from '../../store/scim-identity-repository.js';
import { ScimRepository, type ScimGroupRecord } from '../../store/scim-repository.js';
import { UserRepository } from '../../store/user-repository.js';
import { SlugTakenError, WorkspaceRepository } from '../../store/workspace-repository.js';
import { revokeWorkspaceKeys } from '../api-keys/bulk-revoke.js';
import { slugOf } from '../resource/slugs.js';
import { applyIdentityAccess } from './identity-access.js';
import { changedMeanwhile } from './workspace-identities.js';
import { applyPatch, patchRequestSchema } from './patch.js';
import { applyFilter, GROUP_SCHEMA, listResponse, readScimPage, SCIM_PATH_PREFIX, ScimError, scimResponse } from './protocol.js';
import type { ScimCall } from './scim-call.js';

const memberSchema = z.looseObject({ value: z.string().min(1).max(64) });
const groupInputSchema = z.looseObject({
  schemas: z.array(z.string()).optional(),
  displayName: z.string().trim().min(1).max(255),
  externalId: z.string().max(255).nullish(),
  members: z.array(memberSchema).max(10_000).nullish(),
});

/**
 * SCIM Groups ↔ workspaces. Creating a group links the workspace whose slug matches its displayName, or creates
 * one (organisation admin keys); a workspace key with the `scim` scope links only its own workspace and sees no
 * other group (ScimCall.confinedTo). Members are workspace memberships (role member). Leaving a group revokes the user's keys in that workspace.
 * For such a key, members are named by the ids it knows: its workspace identities (a pending one is in the group
 * without a membership until it is linked) and the workspace's members; any other id is unknown to it.
 * Deleting a group removes its memberships and the link; the workspace itself (and its data) stays.
 */
export class ScimGroups {
  constructor(
    private readonly scim = new ScimRepository(),
    private readonly users = new UserRepository(),
    private readonly workspaces = new WorkspaceRepository(),
    private readonly identities = new ScimIdentityRepository(),
  ) {}

  async create(call: ScimCall): Promise<NeutralResponse> {
    const input = parseGroup(call.body());
    const organisationId = call.principal.organisationId;
    const existing = [...(await call.groups()).values()];
    if (existing.some((group) => group.display_name.toLowerCase() === input.displayName.toLowerCase())) {
      throw new ScimError(409, 'uniqueness', `A group named '${input.displayName}' already exists`);
    }
    const now = new Date().toISOString();
    // A workspace key's group is its own workspace, whatever the name: it never links or creates another one.
    const workspaceId = call.confinedTo ?? (await this.workspaceFor(organisationId, input.displayName, now));
    if (existing.some((group) => group.workspace_id === workspaceId)) throw new ScimError(409, 'uniqueness', `The workspace of '${input.displayName}' is already a group`);
    const record: ScimGroupRecord = { workspace_id: workspaceId, organisation_id: organisationId, display_name: input.displayName, created_at: now, updated_at: now };
    if (input.externalId) record.external_id = input.externalId;
    await this.scim.putGroup(record);
    await this.setMembers(call, workspaceId, (input.members ?? []).map((member) => member.value));
    return scimResponse(201, await this.resource(call, record, true), { location: `${SCIM_PATH_PREFIX}/Groups/${workspaceId}` });
  }

  async get(call: ScimCall, id: string): Promise<NeutralResponse> {
    return scimResponse(200, await this.resource(call, await this.existing(call, id), withMembers(call)));
  }

  async list(call: ScimCall): Promise<NeutralResponse> {
    const page = readScimPage(call.request.query);
    const records = [...(await call.groups()).values()].sort((a, b) => a.created_at.localeCompare(b.created_at));
    const members = withMembers(call) || /members/i.test(call.request.query.filter ?? '');
    const resources = await Promise.all(records.map((record) => this.resource(call, record, members)));
    const matched = applyFilter(resources, call.request.query.filter);
    if (!withMembers(call)) for (const resource of matched) delete resource.members;
    return listResponse(matched, page);
  }

  async replace(call: ScimCall, id: string): Promise<NeutralResponse> {
    const current = await this.existing(call, id);
    const input = parseGroup(call.body());
    return this.save(call, current, input.displayName, input.externalId ?? undefined, (input.members ?? []).map((member) => member.value));
  }

  /** PATCH as Okta (`members[value eq "…"]` removals, value objects) and Entra ID (Add/Remove with member lists) send it. */
  async patch(call: ScimCall, id: string): Promise<NeutralResponse> {
    const current = await this.existing(call, id);
    const request = call.body(patchRequestSchema);
    const patched = applyPatch(await this.resource(call, current, true), request.Operations);
    const input = parseGroup(patched);
    await this.save(call, current, input.displayName, input.externalId ?? undefined, (input.members ?? []).map((member) => member.value));
    // 204, as Okta and Entra ID expect for a group PATCH (RFC 7644 §3.5.2 allows it).
    return scimResponse(204, undefined);
  }

  async delete(call: ScimCall, id: string): Promise<NeutralResponse> {
    const current = await this.existing(call, id);
    await this.setMembers(call, current.workspace_id, []);
    await this.scim.deleteGroup(current.organisation_id, current.workspace_id);
    return scimResponse(204, undefined);
  }

  private async save(call: ScimCall, current: ScimGroupRecord, displayName: string, externalId: string | undefined, members: string[]): Promise<NeutralResponse> {
    const now = new Date().toISOString();
    const next: ScimGroupRecord = { ...current, display_name: displayName, updated_at: now };
    if (externalId) next.external_id = externalId;
    if (displayName !== current.display_name) await this.workspaces.updateWorkspace(current.workspace_id, { name: displayName }, now);
    await this.scim.putGroup(next);
    await this.setMembers(call, current.workspace_id, members);
    return scimResponse(200, await this.resource(call, next, true));
  }

  /**
   * Makes the group's members exactly `ids`. A confined key's identities among them join or leave the group (and
   * their linked users the workspace); the rest are organisation users, each one the caller can see.
   */
  private async setMembers(call: ScimCall, workspaceId: string, ids: string[]): Promise<void> {
    const organisationId = call.principal.organisationId;
    if (call.confinedTo === undefined) {
      await this.checkUserMembers(call, organisationId, workspaceId, ids);
      return this.setUserMembers(organisationId, workspaceId, ids);
    }
    const identities = await this.identities.list(organisationId, workspaceId);
    const named = new Set(ids);
    const users = ids.filter((id) => !identities.some((identity) => identity.id === id));
    // Unknown ids are refused before any identity changes.
    await this.checkUserMembers(call, organisationId, workspaceId, users);
    const linked: string[] = [];
    for (const identity of identities) {
      const inGroup = named.has(identity.id);
      if (inGroup && identity.active && identity.user_id) linked.push(identity.user_id);
      if (inGroup === identity.in_group) continue;
      const next = await this.identities.replace(identity, { ...identity, in_group: inGroup, updated_at: new Date().toISOString() }).catch((error: unknown) => {
        throw changedMeanwhile(error, identity.id);
      });
      await applyIdentityAccess(identity, next, this.users);
    }
    await this.setUserMembers(organisationId, workspaceId, users, linked);
  }

  /** Each id must name an organisation user; for a confined key, one it can see (a member, or one it provisioned). */
  private async checkUserMembers(call: ScimCall, organisationId: string, workspaceId: string, userIds: string[]): Promise<void> {
    for (const userId of new Set(userIds)) {
      // Both reads whether or not the user exists, so a user elsewhere costs what an unknown id costs.
      const [user, record] = /^[A-Za-z0-9-]{1,64}$/.test(userId) ? await Promise.all([this.users.get(organisationId, userId), this.scim.getUser(organisationId, userId)]) : [undefined, undefined];
      const visible =
        user !== undefined &&
        (call.confinedTo === undefined || user.workspaces.some((membership) => membership.workspace_id === workspaceId) || record?.provisioned_in === workspaceId);
      if (!visible) throw new ScimError(400, 'invalidValue', `members: no User with id '${userId.slice(0, 64)}'`);
    }
  }

  /**
   * Makes the workspace's memberships exactly `userIds` plus `linked` (the users of identities in the group, whose
   * ids the caller never sent and is never told).
   */
  private async setUserMembers(organisationId: string, workspaceId: string, userIds: string[], linked: string[] = []): Promise<void> {
    const wanted = new Set([...userIds, ...linked]);
    const now = new Date().toISOString();
    for (const userId of wanted) {
      const user = await this.users.get(organisationId, userId);
      if (!user) continue;
      if (!user.workspaces.some((membership) => membership.workspace_id === workspaceId)) {
        await this.users.update(user, { workspaces: [...user.workspaces, { workspace_id: workspaceId, role: 'member' }] }, now);
      }
    }
    for (const membership of await this.users.membersOf(workspaceId)) {
      if (wanted.has(membership.user_id)) continue;
      const user = await this.users.get(organisationId, membership.user_id);
      if (!user) continue;
      await this.users.removeMembership(user, workspaceId, now);
      await revokeWorkspaceKeys(workspaceId, (key) => key.user_id === user.id);
    }
  }

  /** The workspace a new group links to: the one whose slug its name gives, or a new one. */
  private async workspaceFor(organisationId: string, displayName: string, now: string): Promise<string> {
    const slug = slugOf(displayName, 'workspace').slice(0, 64);
    const existing = await this.workspaces.findWorkspaceIdBySlug(organisationId, slug);
    if (existing) return existing;
    const id = randomUUID();
    try {
      await this.workspaces.createWorkspace({ id, organisation_id: organisationId, name: displayName, slug, created_at: now });
    } catch (error) {
      if (!(error instanceof SlugTakenError)) throw error;
      // Created meanwhile by someone else: link that one.
      const raced = await this.workspaces.findWorkspaceIdBySlug(organisationId, slug);
      if (!raced) throw error;
      return raced;
    }
    return id;
  }

  private async existing(call: ScimCall, id: string): Promise<ScimGroupRecord> {
    const record = (await call.groups()).get(id);
    if (!record) throw new ScimError(404, undefined, `No Group with id '${id.slice(0, 64)}'`, 'not_found');
    return record;
  }

  private async resource(call: ScimCall, record: ScimGroupRecord, members: boolean): Promise<Record<string, unknown>> {
    const resource: Record<string, unknown> = {
      schemas: [GROUP_SCHEMA],
      id: record.workspace_id,
      displayName: record.display_name,
      meta: { resourceType: 'Group', created: record.created_at, lastModified: record.updated_at, location: `${SCIM_PATH_PREFIX}/Groups/${record.workspace_id}` },
    };
    if (record.external_id) resource.externalId = record.external_id;
    if (members) {
      const memberships = await this.users.membersOf(record.workspace_id);
      // A confined key knows its members by its identities' ids: the users they are linked to appear as them.
      const identities = call.confinedTo === undefined ? [] : await this.identities.list(record.organisation_id, record.workspace_id);
      const linked = new Set(identities.flatMap((identity) => (identity.user_id ? [identity.user_id] : [])));
      const ids = [...identities.filter((identity) => identity.in_group).map((identity) => identity.id), ...memberships.map((membership) => membership.user_id).filter((id) => !linked.has(id))];
      resource.members = ids.map((id) => ({ value: id, $ref: `${SCIM_PATH_PREFIX}/Users/${id}`, type: 'User' }));
    }
    return resource;
  }
}

function parseGroup(raw: unknown): z.output<typeof groupInputSchema> {
  const parsed = groupInputSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ScimError(400, 'invalidValue', `${issue.path.join('.') || 'body'}: ${issue.message}`);
  }
  return parsed.data;
}

/** `excludedAttributes=members` (what Okta and Entra ID send on lists) leaves the member lists out. */
function withMembers(call: ScimCall): boolean {
  return !/(^|,)\s*members\s*(,|$)/i.test(call.request.query.excludedAttributes ?? '');
}
