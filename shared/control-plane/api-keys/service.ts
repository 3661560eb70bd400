import { randomUUID } from 'node:crypto';
import { generateRawApiKey, hashApiKey, maskApiKey } from '../../auth/api-key-secrets.js';
import { actingUserOf, type Principal } from '../../auth/principal.js';
import { badRequest, GatewayError } from '../../http/errors.js';
import { ApiKeyRepository, effectiveStatus, type ApiKeyChanges, type ApiKeyRecord } from '../../store/api-key-repository.js';
import { WorkspaceRepository } from '../../store/workspace-repository.js';
import { requireOrganisationAdmin } from '../authorization.js';
import { toPage, type Page, type PageRequest } from '../pagination.js';
import { requireMayManageKey, requireScopesWithinCaller, requireSeesAsMuchAs } from '../privilege.js';
import type { CrudService, ResourceScope } from '../resource/define-resource.js';
import { targetWorkspace } from '../workspaces/access.js';
import { findVisibleApiKey, forgetSecrets, secretHashesOf } from './key-access.js';
import { requireMayActForUser } from './on-behalf.js';
import { presentApiKey } from './present.js';
import { rotateApiKey } from './rotation.js';
import { nextRotation, resolveExpiry } from './rules.js';
import type { ApiKeyResult } from './api-key-result.js';
import type { ApiKeyCreate, ApiKeyListQuery, ApiKeyRotate, ApiKeyUpdate } from './schemas.js';

/**
 * The API-key use cases (api-keys/resource.ts routes them). A key belongs to a workspace (an admin key to the
 * organisation, filed under its home workspace); visibility is decided from the principal (key-access.ts).
 */
export class ApiKeyService implements CrudService<ApiKeyResult, ApiKeyCreate, ApiKeyUpdate, ApiKeyListQuery> {
  constructor(private readonly keys = new ApiKeyRepository()) {}

  async create({ principal }: ResourceScope, body: ApiKeyCreate): Promise<ApiKeyResult> {
    const now = new Date();
    const kind = body.kind ?? 'workspace';
    if (kind === 'admin') requireOrganisationAdmin(principal, 'Creating an organisation admin key');
    const workspaces = new WorkspaceRepository();
    const workspace = await targetWorkspace(principal, body.workspace_id, workspaces);
    const userId = await keyOwner(principal, body, workspace.id);
    if (kind === 'workspace' && !body.scopes) throw badRequest('invalid_request', 'scopes: workspace keys need at least one scope', 'scopes');
    const scopes = body.scopes ?? [];
    requireScopesWithinCaller(principal, scopes);
    // A user key made for someone else sees what that user sees; its secret comes back to the caller.
    if (userId && userId !== actingUserOf(principal)) {
      await requireSeesAsMuchAs(principal, { kind, organisation_id: principal.organisationId, workspace_id: workspace.id, user_id: userId });
    }
    const expiresAt = resolveExpiry(body.expires_at, kind === 'workspace' ? workspace : undefined, now);

    if (kind === 'workspace' && !(await workspaces.reserveApiKeySlot(workspace.id, workspace.max_api_keys ?? null))) {
      throw new GatewayError(409, 'api_key_limit_reached', `The workspace already has its maximum of ${workspace.max_api_keys} active API keys; revoke one first`);
    }
    const rawKey = generateRawApiKey();
    const record: ApiKeyRecord = {
      id: randomUUID(),
      key_hash: hashApiKey(rawKey),
      masked: maskApiKey(rawKey),
      name: body.name,
      description: body.description,
      kind,
      type: userId ? 'user' : 'service',
      user_id: userId,
      organisation_id: principal.organisationId,
      workspace_id: workspace.id,
      scopes,
      status: 'active',
      expires_at: expiresAt,
      metadata: body.metadata,
      rotation_policy: body.rotation_policy ?? undefined,
      next_rotation_at: body.rotation_policy ? nextRotation(body.rotation_policy, now) : undefined,
      created_by: principal.keyId,
      // A key never sees more than its maker: a service key minted by a user's key keeps that user's role.
      made_by_user_id: userId || principal.kind === 'admin' ? undefined : actingUserOf(principal),
      created_at: now.toISOString(),
    };
    try {
      await this.keys.create(record);
    } catch (error) {
      if (kind === 'workspace') await workspaces.releaseApiKeySlot(workspace.id);
      throw error;
    }
    // A failed try with this key moments ago may sit in a negative cache: clear it so the key works at once.
    forgetSecrets([record.key_hash]);
    const details = { name: record.name, kind, type: record.type, user_id: userId, scopes, expires_at: expiresAt ?? null };
    return { id: record.id, record, now: now.getTime(), details, key: rawKey };
  }

  async list({ principal }: ResourceScope, page: PageRequest, query: ApiKeyListQuery): Promise<Page<unknown>> {
    const filter = { status: query.status, user_id: query.user_id, rotation_due: query.rotation_due === undefined ? undefined : query.rotation_due === 'true' };
    let result;
    if (query.kind === 'admin') {
      requireOrganisationAdmin(principal, 'Listing organisation admin keys');
      if (query.workspace_id !== undefined) throw badRequest('invalid_request', 'workspace_id: admin keys belong to the organisation, not to a workspace', 'workspace_id');
      result = await this.keys.listAdminKeys(principal.organisationId, filter, page.limit, page.startKey);
    } else {
      const workspace = await targetWorkspace(principal, query.workspace_id);
      result = await this.keys.listOfWorkspace(workspace.id, filter, page.limit, page.startKey);
    }
    const now = Date.now();
    return toPage(result.items.map((record) => presentApiKey(record, now)), result.nextKey);
  }

  async get({ principal }: ResourceScope, keyId: string): Promise<ApiKeyResult> {
    const { record } = await findVisibleApiKey(principal, keyId, this.keys);
    return { id: record.id, record };
  }

  /** Name, description, metadata, scopes, expiry and rotation policy; applied to every live secret of the key. */
  async update({ principal }: ResourceScope, keyId: string, body: ApiKeyUpdate): Promise<ApiKeyResult> {
    const { pointer, record } = await findVisibleApiKey(principal, keyId, this.keys);
    const now = new Date();
    if (effectiveStatus(record, now.getTime()) !== 'active') {
      throw new GatewayError(409, 'api_key_not_active', `The API key is ${effectiveStatus(record, now.getTime())}; only active keys can be changed`);
    }
    await requireMayManageKey(principal, record, body.scopes);
    const workspace = record.kind === 'workspace' ? await new WorkspaceRepository().getWorkspace(record.workspace_id) : undefined;
    const shared: ApiKeyChanges = { name: body.name, description: body.description, metadata: body.metadata, scopes: body.scopes };
    const changes: ApiKeyChanges = { ...shared };
    if (body.expires_at !== undefined) changes.expires_at = resolveExpiry(body.expires_at, workspace, now) ?? null;
    if (body.rotation_policy !== undefined) {
      changes.rotation_policy = body.rotation_policy;
      changes.next_rotation_at = body.rotation_policy ? nextRotation(body.rotation_policy, now) : null;
    }
    const updated = await this.keys.updateSecret(pointer.key_hash, changes, now.toISOString());
    if (!updated) throw new GatewayError(409, 'api_key_changed', 'The API key changed while it was being updated; read it again and retry');
    for (const previousHash of pointer.previous_key_hashes) {
      const previous = await this.keys.findByHash(previousHash);
      if (!previous || effectiveStatus(previous, now.getTime()) !== 'active') continue;
      // A previous secret keeps its transition end, unless the key as a whole now expires sooner.
      const sooner = changes.expires_at && previous.expires_at && changes.expires_at < previous.expires_at ? changes.expires_at : undefined;
      await this.keys.updateSecret(previousHash, { ...shared, expires_at: sooner }, now.toISOString());
    }
    forgetSecrets(secretHashesOf(pointer));
    const details = { changed: Object.keys(body), scopes: body.scopes, expires_at: changes.expires_at };
    return { id: updated.id, record: updated, now: now.getTime(), details };
  }

  /** A key is never deleted: DELETE revokes it and every secret of it still in a rotation's transition; idempotent. */
  async delete({ principal }: ResourceScope, keyId: string): Promise<ApiKeyResult> {
    const { pointer, record } = await findVisibleApiKey(principal, keyId, this.keys);
    await requireMayManageKey(principal, record);
    const now = new Date().toISOString();
    const revoked = await this.keys.deactivateSecret(pointer.key_hash, 'revoked', now);
    for (const previousHash of pointer.previous_key_hashes) await this.keys.deactivateSecret(previousHash, 'revoked', now);
    if (revoked && record.kind === 'workspace') await new WorkspaceRepository().releaseApiKeySlot(record.workspace_id);
    forgetSecrets(secretHashesOf(pointer));
    const current = (await this.keys.findByHash(pointer.key_hash)) ?? record;
    return { id: record.id, record: current, details: { already_inactive: !revoked } };
  }

  rotate({ principal }: ResourceScope, keyId: string, body: ApiKeyRotate): Promise<ApiKeyResult> {
    return rotateApiKey(principal, keyId, body, this.keys);
  }
}

/** Whose key it is: nobody's (a service key) unless it is a user key, which needs a member and permission. */
async function keyOwner(principal: Principal, body: ApiKeyCreate, workspaceId: string): Promise<string | undefined> {
  const type = body.type ?? (body.user_id ? 'user' : 'service');
  if (type === 'service') {
    if (body.user_id) throw badRequest('invalid_request', 'user_id: only user keys belong to a user (leave type out or set it to user)', 'user_id');
    return undefined;
  }
  if (body.kind === 'admin') throw badRequest('invalid_request', 'type: organisation admin keys are service keys', 'type');
  const userId = body.user_id ?? principal.userId;
  if (!userId) throw badRequest('invalid_request', 'user_id: a user key needs the user it belongs to', 'user_id');
  await requireMayActForUser(principal, workspaceId, userId);
  return userId;
}
