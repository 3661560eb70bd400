import { maxStaleFor, RefreshingCache } from '../cache/refreshing-cache.js';
import { GatewayError } from '../http/errors.js';
import { settings } from '../settings.js';
import { ApiKeyRepository, type ApiKeyRecord } from '../store/api-key-repository.js';
import { hashApiKey } from './api-key-secrets.js';
import { AuthenticationError } from './authentication-error.js';
import type { Principal } from './principal.js';

type Lookup = { found: true; record: ApiKeyRecord; principal: Principal } | { found: false };

const MAX_KEY_LENGTH = 256;
// Unknown keys are remembered briefly so a flood of bad keys costs no table reads, yet a key created a
// moment after a failed try works almost at once.
const NEGATIVE_TTL_MS = 2_000;
// "Is this provider credential a gw key?" (isIssuedKey) is asked of nearly every call that carries a provider key.
// Only a chosen GW_BOOTSTRAP_API_KEY can be a gw key without gw's prefix, and it exists before gw serves, so a "no"
// may be kept long: one table read per distinct credential per process every 5 minutes.
const ISSUED_NEGATIVE_TTL_MS = 5 * 60_000;
// A "yes" never turns into a "no" (a revoked key is still gw's secret): kept a day, refreshed in the background.
const ISSUED_POSITIVE_TTL_MS = 86_400_000;

/**
 * Authenticates `x-gw-api-key`. Lookups are cached in memory by key hash for GW_AUTH_CACHE_TTL_MS, then served
 * stale while one background read refreshes them, for at most GW_CACHE_MAX_STALE_MS more (refreshing-cache.ts):
 * a key revoked or changed by another process stops working within TTL + max staleness. The status and expiry of
 * the cached record are checked on every call against the clock, so an expired key is refused at once even from
 * the cache. Unknown keys are cached briefly and never served stale.
 */
export class ApiKeyAuthenticator {
  /** Every authenticator of this process (gateway and control plane share one process locally). */
  private static readonly instances = new Set<WeakRef<ApiKeyAuthenticator>>();
  private readonly cache: RefreshingCache<string, Lookup>;
  // gw's own cache rather than lru-cache: the gateway's cold start loads it already (lru-cache would add ~18 KiB).
  private readonly issued = new RefreshingCache<string, boolean>({
    name: 'issued-keys',
    max: 10_000,
    ttlMs: () => ISSUED_NEGATIVE_TTL_MS,
    maxStaleMs: () => 0,
    lifetimeOf: (issued) => (issued ? { ttlMs: ISSUED_POSITIVE_TTL_MS, maxStaleMs: ISSUED_POSITIVE_TTL_MS } : {}),
  });

  constructor(
    private readonly repository = new ApiKeyRepository(),
    private readonly now: () => number = Date.now,
  ) {
    const ttl = () => settings().GW_AUTH_CACHE_TTL_MS;
    this.cache = new RefreshingCache<string, Lookup>({
      name: 'api-keys',
      max: 10_000,
      ttlMs: ttl,
      maxStaleMs: () => maxStaleFor(ttl()),
      lifetimeOf: (lookup) => (lookup.found ? {} : { ttlMs: Math.min(ttl(), NEGATIVE_TTL_MS), maxStaleMs: 0 }),
      // The cache keeps its own (real) clock: `now` is the clock key expiry is judged by, which tests move freely.
    });
    ApiKeyAuthenticator.instances.add(new WeakRef(this));
  }

  /**
   * Drops a key's cached lookup from every authenticator in this process, right after a change to the key.
   * Other processes (other Lambda instances) see the change within GW_AUTH_CACHE_TTL_MS + GW_CACHE_MAX_STALE_MS.
   */
  static forgetEverywhere(keyHash: string): void {
    for (const reference of ApiKeyAuthenticator.instances) {
      const authenticator = reference.deref();
      if (authenticator) authenticator.forget(keyHash);
      else ApiKeyAuthenticator.instances.delete(reference);
    }
  }

  async authenticate(rawKey: string | undefined): Promise<Principal> {
    if (!rawKey) {
      throw new AuthenticationError('api_key_missing', 'Missing x-gw-api-key header: every request needs a gw API key', { method: 'api_key' });
    }
    if (rawKey.length > MAX_KEY_LENGTH) throw invalidKey();
    const keyHash = hashApiKey(rawKey);
    const lookup = await this.cache.get(keyHash, async (): Promise<Lookup> => {
      const record = await this.repository.findByHash(keyHash);
      return record ? { found: true, record, principal: toPrincipal(record) } : { found: false };
    });
    if (!lookup.found) throw invalidKey();
    const { record, principal } = lookup;
    const caller = { method: 'api_key' as const, organisationId: record.organisation_id, workspaceId: record.workspace_id, actorId: record.id };
    if (record.status === 'revoked') {
      throw new AuthenticationError('api_key_revoked', 'The API key has been revoked', caller);
    }
    if (record.status === 'expired' || (record.expires_at !== undefined && Date.parse(record.expires_at) <= this.now())) {
      throw new AuthenticationError('api_key_expired', 'The API key has expired', caller);
    }
    return principal;
  }

  /**
   * True when `rawKey` is a key gw issued, in any workspace and whatever its status (a revoked key is still gw's
   * secret): a lookup of its SHA-256, the only form stored. The gateway asks it of provider credentials that lack
   * gw's prefix, so that gw's own key never goes upstream (shared/gateway/gateway-key-slot.ts).
   */
  async isIssuedKey(rawKey: string): Promise<boolean> {
    if (rawKey.length > MAX_KEY_LENGTH) return false;
    const keyHash = hashApiKey(rawKey);
    return this.issued.get(keyHash, async () => (await this.repository.findByHash(keyHash)) !== undefined);
  }

  /** Drops a cached lookup, e.g. right after this process revoked or changed the key. */
  forget(keyHash: string): void {
    this.cache.delete(keyHash);
  }
}

function invalidKey(): GatewayError {
  return new AuthenticationError('api_key_invalid', 'Invalid API key', { method: 'api_key' });
}

function toPrincipal(record: ApiKeyRecord): Principal {
  return {
    keyId: record.id,
    kind: record.kind,
    organisationId: record.organisation_id,
    workspaceId: record.workspace_id,
    userId: record.user_id,
    madeByUserId: record.made_by_user_id,
    keyType: record.type,
    scopes: new Set(record.scopes),
    expiresAt: record.expires_at,
    authMethod: 'api_key',
  };
}
