import { randomUUID } from 'node:crypto';
import { generateRawApiKey, hashApiKey, maskApiKey } from '../../auth/api-key-secrets.js';
import { badRequest, GatewayError } from '../../http/errors.js';
import { ApiKeyRepository, effectiveStatus, type ApiKeyChanges, type ApiKeyRecord } from '../../store/api-key-repository.js';
import { WorkspaceRepository } from '../../store/workspace-repository.js';
import type { ControlPlaneRequest } from '../handler-types.js';
import { audited } from '../audit.js';
import { requireListScope, requireOrganisationAdmin, requireScope } from '../authorization.js';
import { readPageRequest, toPage, type Page } from '../pagination.js';
import { requireMayManageKey, requireScopesWithinCaller } from '../privilege.js';
import { parseJsonBody, validate } from '../../http/json-body.js';
import { targetWorkspace } from '../workspaces/access.js';
import { findVisibleApiKey, forgetSecrets, secretHashesOf } from './key-access.js';
import { requireMayActForUser } from './on-behalf.js';
import { presentApiKey } from './present.js';
import { nextRotation, resolveExpiry } from './rules.js';
import { apiKeyCreateSchema, apiKeyListQuerySchema, apiKeyUpdateSchema, type ApiKey, type ApiKeyCreate, type ApiKeyWithSecret } from './schemas.js';

const repository = () => new ApiKeyRepository();

export async function createApiKey(call: ControlPlaneRequest): Promise<ApiKeyWithSecret> {
  return audited(call, { action: 'api_key.create', resource_type: 'api_key' }, async () => {
    requireScope(call.principal, 'api_keys:write');
    const body = parseJsonBody(call.request, apiKeyCreateSchema);
    const now = new Date();
    const kind = body.kind ?? 'workspace';
    if (kind === 'admin') requireOrganisationAdmin(call.principal, 'Creating an organisation admin key');
    const workspaces = new WorkspaceRepository();
    const workspace = await targetWorkspace(call.principal, body.workspace_id, workspaces);
    const userId = await keyOwner(call, body, workspace.id);
    if (kind === 'workspace' && !body.scopes) throw badRequest('invalid_request', 'scopes: workspace keys need at least one scope', 'scopes');
    const scopes = body.scopes ?? [];
    requireScopesWithinCaller(call.principal, scopes);
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
      organisation_id: call.principal.organisationId,
      workspace_id: workspace.id,
      scopes,
      status: 'active',
      expires_at: expiresAt,
      metadata: body.metadata,
      rotation_policy: body.rotation_policy ?? undefined,
      next_rotation_at: body.rotation_policy ? nextRotation(body.rotation_policy, now) : undefined,
      created_by: call.principal.keyId,
      created_at: now.toISOString(),
    };
    try {
      await repository().create(record);
    } catch (error) {
      if (kind === 'workspace') await workspaces.releaseApiKeySlot(workspace.id);
      throw error;
    }
    // A failed try with this key moments ago may sit in a negative cache: clear it so the key works at once.
    forgetSecrets([record.key_hash]);
    return {
      value: { ...presentApiKey(record, now.getTime()), key: rawKey },
      resource_id: record.id,
      workspace_id: workspace.id,
      details: { name: record.name, kind, type: record.type, user_id: userId, scopes, expires_at: expiresAt ?? null },
    };
  });
}

/** Whose key it is: nobody's (a service key) unless it is a user key, which needs a member and permission. */
async function keyOwner(call: ControlPlaneRequest, body: ApiKeyCreate, workspaceId: string): Promise<string | undefined> {
  const type = body.type ?? (body.user_id ? 'user' : 'service');
  if (type === 'service') {
    if (body.user_id) throw badRequest('invalid_request', 'user_id: only user keys belong to a user (leave type out or set it to user)', 'user_id');
    return undefined;
  }
  if (body.kind === 'admin') throw badRequest('invalid_request', 'type: organisation admin keys are service keys', 'type');
  const userId = body.user_id ?? call.principal.userId;
  if (!userId) throw badRequest('invalid_request', 'user_id: a user key needs the user it belongs to', 'user_id');
  await requireMayActForUser(call.principal, workspaceId, userId);
  return userId;
}

export async function listApiKeys(call: ControlPlaneRequest): Promise<Page<ApiKey>> {
  requireListScope(call.principal, 'api_keys:read');
  const query = validate(apiKeyListQuerySchema, call.request.query);
  const page = readPageRequest(call.request);
  const filter = { status: query.status, user_id: query.user_id, rotation_due: query.rotation_due === undefined ? undefined : query.rotation_due === 'true' };
  const keys = repository();
  let result;
  if (query.kind === 'admin') {
    requireOrganisationAdmin(call.principal, 'Listing organisation admin keys');
    if (query.workspace_id !== undefined) throw badRequest('invalid_request', 'workspace_id: admin keys belong to the organisation, not to a workspace', 'workspace_id');
    result = await keys.listAdminKeys(call.principal.organisationId, filter, page.limit, page.startKey);
  } else {
    const workspace = await targetWorkspace(call.principal, query.workspace_id);
    result = await keys.listOfWorkspace(workspace.id, filter, page.limit, page.startKey);
  }
  const now = Date.now();
  return toPage(result.items.map((record) => presentApiKey(record, now)), result.nextKey);
}

export async function getApiKey(call: ControlPlaneRequest): Promise<ApiKey> {
  requireScope(call.principal, 'api_keys:read');
  const { record } = await findVisibleApiKey(call.principal, call.params.id, repository());
  return presentApiKey(record);
}

/** Name, description, metadata, scopes, expiry and rotation policy; applied to every live secret of the key. */
export async function updateApiKey(call: ControlPlaneRequest): Promise<ApiKey> {
  const keyId = call.params.id;
  return audited(call, { action: 'api_key.update', resource_type: 'api_key', resource_id: keyId }, async () => {
    requireScope(call.principal, 'api_keys:write');
    const body = parseJsonBody(call.request, apiKeyUpdateSchema);
    const keys = repository();
    const { pointer, record } = await findVisibleApiKey(call.principal, keyId, keys);
    const now = new Date();
    if (effectiveStatus(record, now.getTime()) !== 'active') {
      throw new GatewayError(409, 'api_key_not_active', `The API key is ${effectiveStatus(record, now.getTime())}; only active keys can be changed`);
    }
    await requireMayManageKey(call.principal, record, body.scopes);
    const workspace = record.kind === 'workspace' ? await new WorkspaceRepository().getWorkspace(record.workspace_id) : undefined;
    const shared: ApiKeyChanges = { name: body.name, description: body.description, metadata: body.metadata, scopes: body.scopes };
    const changes: ApiKeyChanges = { ...shared };
    if (body.expires_at !== undefined) changes.expires_at = resolveExpiry(body.expires_at, workspace, now) ?? null;
    if (body.rotation_policy !== undefined) {
      changes.rotation_policy = body.rotation_policy;
      changes.next_rotation_at = body.rotation_policy ? nextRotation(body.rotation_policy, now) : null;
    }
    const updated = await keys.updateSecret(pointer.key_hash, changes, now.toISOString());
    if (!updated) throw new GatewayError(409, 'api_key_changed', 'The API key changed while it was being updated; read it again and retry');
    for (const previousHash of pointer.previous_key_hashes) {
      const previous = await keys.findByHash(previousHash);
      if (!previous || effectiveStatus(previous, now.getTime()) !== 'active') continue;
      // A previous secret keeps its transition end, unless the key as a whole now expires sooner.
      const sooner = changes.expires_at && previous.expires_at && changes.expires_at < previous.expires_at ? changes.expires_at : undefined;
      await keys.updateSecret(previousHash, { ...shared, expires_at: sooner }, now.toISOString());
    }
    forgetSecrets(secretHashesOf(pointer));
    const changed = Object.keys(body);
    return { value: presentApiKey(updated, now.getTime()), workspace_id: record.workspace_id, details: { changed, scopes: body.scopes, expires_at: changes.expires_at } };
  });
}

/** Revokes the key and every secret of it still in a rotation's transition; idempotent. */
export async function revokeApiKey(call: ControlPlaneRequest): Promise<ApiKey> {
  const keyId = call.params.id;
  return audited(call, { action: 'api_key.revoke', resource_type: 'api_key', resource_id: keyId }, async () => {
    requireScope(call.principal, 'api_keys:write');
    const keys = repository();
    const { pointer, record } = await findVisibleApiKey(call.principal, keyId, keys);
    await requireMayManageKey(call.principal, record);
    const now = new Date().toISOString();
    const revoked = await keys.deactivateSecret(pointer.key_hash, 'revoked', now);
    for (const previousHash of pointer.previous_key_hashes) await keys.deactivateSecret(previousHash, 'revoked', now);
    if (revoked && record.kind === 'workspace') await new WorkspaceRepository().releaseApiKeySlot(record.workspace_id);
    forgetSecrets(secretHashesOf(pointer));
    const current = (await keys.findByHash(pointer.key_hash)) ?? record;
    return { value: presentApiKey(current), workspace_id: record.workspace_id, details: { already_inactive: !revoked } };
  });
}
