import { maxStaleFor, RefreshingCache } from '../cache/refreshing-cache.js';
import { GatewayError } from '../http/errors.js';
import { logger } from '../observability/logger.js';
import type { TargetSettings } from '../providers/types.js';
import { settings } from '../settings.js';
import { secretStore } from '../store/secrets/secret-store-factory.js';
import { SecretStoreError, type SecretStore } from '../store/secrets/secret-store.js';
import { readVirtualKeySecret } from '../store/secrets/virtual-key-secrets.js';
import { VirtualKeyRepository, type VirtualKeyRecord, type VirtualKeySecret } from '../store/virtual-key-repository.js';

/** What a virtual key contributes to a target: its provider and the settings and credentials it stores. */
export interface ResolvedVirtualKey {
  id: string;
  /** Canonical provider slug. */
  provider: string;
  settings: Partial<TargetSettings>;
  /** Origins besides its custom_host the key's credential may be sent to (`allowed_custom_hosts`). */
  allowedHosts: readonly string[];
}

/** A lookup as cached: the resolved key, or the error its absence answers (never kept). */
type Lookup = { key: ResolvedVirtualKey } | { error: GatewayError };

const MAX_CACHED_KEYS = 5_000;
const VIRTUAL_KEY_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** The record and the secret → target settings. Pure, so the mapping is tested without a store. */
export function toTargetSettings(record: VirtualKeyRecord, secret: VirtualKeySecret): Partial<TargetSettings> {
  const target: Partial<TargetSettings> = {};
  if (secret.api_key !== undefined) target.apiKey = secret.api_key;
  if (record.custom_host !== undefined) target.customHost = record.custom_host;
  if (record.azure) {
    target.azure = definedOnly({
      resourceName: record.azure.resource_name,
      deploymentId: record.azure.deployment_id,
      apiVersion: record.azure.api_version,
      modelName: record.azure.model_name,
    });
  }
  if (record.vertex || secret.vertex_service_account_json !== undefined) {
    target.vertex = definedOnly({
      projectId: record.vertex?.project_id,
      region: record.vertex?.region,
      serviceAccountJson: secret.vertex_service_account_json,
      batchBucket: record.vertex?.batch_bucket,
      batchPrefix: record.vertex?.batch_prefix,
    });
  }
  if (record.aws || secret.aws_access_key_id !== undefined) {
    target.aws = definedOnly({
      accessKeyId: secret.aws_access_key_id,
      secretAccessKey: secret.aws_secret_access_key,
      sessionToken: secret.aws_session_token,
      region: record.aws?.region,
      batchBucket: record.aws?.batch_bucket,
      batchPrefix: record.aws?.batch_prefix,
      batchRoleArn: record.aws?.batch_role_arn,
    });
    // The role to assume is not a secret (its trust policy, not its name, protects it): kept on the record.
    if (record.aws?.role_arn !== undefined) {
      target.aws.role = definedOnly({ roleArn: record.aws.role_arn, externalId: record.aws.external_id, sessionName: record.aws.session_name });
    }
  }
  return target;
}

/**
 * Resolves `x-gw-virtual-key` within the caller's workspace. Resolved keys (credential included) stay in this
 * process's memory for GW_VIRTUAL_KEY_CACHE_TTL_MS, then are served stale while one background read refreshes
 * them, for at most GW_CACHE_MAX_STALE_MS more (refreshing-cache.ts): a rotated or deleted key stops working
 * within TTL + max staleness, and no request waits on a refresh. A refresh that finds the key gone drops it at
 * once; one that fails (secret store down) keeps the old value until the bound. Unknown ids are not cached, so a
 * key works as soon as it is created.
 */
export class VirtualKeyResolver {
  private readonly cache: RefreshingCache<string, Lookup>;

  constructor(
    private readonly repository: Pick<VirtualKeyRepository, 'get'> = new VirtualKeyRepository(),
    private readonly secrets: () => SecretStore = secretStore,
    ttlMs: () => number = () => settings().GW_VIRTUAL_KEY_CACHE_TTL_MS,
    now: () => number = Date.now,
  ) {
    this.cache = new RefreshingCache<string, Lookup>({
      name: 'virtual-keys',
      max: MAX_CACHED_KEYS,
      ttlMs,
      maxStaleMs: () => maxStaleFor(ttlMs()),
      lifetimeOf: (lookup) => ('error' in lookup ? { ttlMs: 0 } : {}),
      now,
    });
  }

  async resolve(workspaceId: string, virtualKeyId: string): Promise<ResolvedVirtualKey> {
    if (!VIRTUAL_KEY_ID.test(virtualKeyId)) throw unknownVirtualKey();
    const lookup = await this.cache.get(`${workspaceId}\u0000${virtualKeyId}`, () => this.load(workspaceId, virtualKeyId));
    if ('error' in lookup) throw lookup.error;
    return lookup.key;
  }

  /** Drops one key's cached lookup (its credential or settings just changed, or it was deleted). */
  forget(workspaceId: string, virtualKeyId: string): void {
    this.cache.delete(`${workspaceId}\u0000${virtualKeyId}`);
  }

  /** Reads the record and its secret. A secret store that cannot answer throws (so a refresh keeps the old value). */
  private async load(workspaceId: string, virtualKeyId: string): Promise<Lookup> {
    const record = await this.repository.get(workspaceId, virtualKeyId);
    if (!record) return { error: unknownVirtualKey() };
    let secret: VirtualKeySecret | undefined;
    try {
      secret = await readVirtualKeySecret(this.secrets(), workspaceId, virtualKeyId);
    } catch (error) {
      if (!(error instanceof SecretStoreError)) throw error;
      logger.error('cannot read the credential of a virtual key', { virtual_key_id: virtualKeyId, reason: error.message });
      throw new GatewayError(503, 'secret_store_unavailable', 'The credential of this virtual key cannot be read right now; try again later');
    }
    if (!secret) {
      logger.error('virtual key has no stored credential', { virtual_key_id: virtualKeyId });
      return { error: new GatewayError(500, 'virtual_key_credential_missing', 'The credential of this virtual key is missing from the secret store; update the key with a new credential') };
    }
    return { key: { id: record.id, provider: record.provider, settings: toTargetSettings(record, secret), allowedHosts: record.allowed_custom_hosts ?? [] } };
  }
}

/** The same answer whether the id exists in another workspace or nowhere, so existence does not leak. */
function unknownVirtualKey(): GatewayError {
  return new GatewayError(400, 'virtual_key_not_found', 'x-gw-virtual-key names no virtual key of this workspace', { param: 'x-gw-virtual-key' });
}

function definedOnly<T extends Record<string, string | undefined>>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as T;
}

let resolver: VirtualKeyResolver | undefined;

/**
 * Called by the control plane right after a virtual key changed or was deleted, so this process (the local
 * runtime runs both) sends the new credential, or refuses the key, from the next request on. Other processes
 * follow within GW_VIRTUAL_KEY_CACHE_TTL_MS + GW_CACHE_MAX_STALE_MS.
 */
export function forgetResolvedVirtualKey(workspaceId: string, virtualKeyId: string): void {
  resolver?.forget(workspaceId, virtualKeyId);
}

export function resolveVirtualKey(workspaceId: string, virtualKeyId: string): Promise<ResolvedVirtualKey> {
  resolver ??= new VirtualKeyResolver();
  return resolver.resolve(workspaceId, virtualKeyId);
}
