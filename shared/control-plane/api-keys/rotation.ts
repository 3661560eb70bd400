import { generateRawApiKey, hashApiKey, maskApiKey } from '../../auth/api-key-secrets.js';
import type { Principal } from '../../auth/principal.js';
import { GatewayError } from '../../http/errors.js';
import { effectiveStatus, type ApiKeyRecord, type ApiKeyRepository } from '../../store/api-key-repository.js';
import { requireMayManageKey, requireSeesAsMuchAs } from '../privilege.js';
import { findVisibleApiKey, forgetSecrets } from './key-access.js';
import { nextRotation } from './rules.js';
import type { ApiKeyRotate } from './schemas.js';
import type { ApiKeyResult } from './api-key-result.js';

/**
 * Replaces a key's secret and returns the new raw key once. The id, scopes, expiry and everything else stay;
 * the previous secret keeps working for the transition period (from the body, else the key's rotation policy,
 * else 0: it stops at once), then the gateway refuses it like any expired key. With a rotation policy, the
 * next rotation is scheduled from now.
 */
export async function rotateApiKey(principal: Principal, keyId: string, body: ApiKeyRotate, keys: ApiKeyRepository): Promise<ApiKeyResult> {
  const { pointer, record } = await findVisibleApiKey(principal, keyId, keys);
  // Visibility is not enough: rotating hands out the key's new secret, so the one privilege rule applies.
  await requireMayManageKey(principal, record);
  // The new secret goes to the caller: it must see as much as the key does (visibility follows the key's maker).
  await requireSeesAsMuchAs(principal, record);
  const now = new Date();
  const status = effectiveStatus(record, now.getTime());
  if (status !== 'active') throw new GatewayError(409, 'api_key_not_active', `The API key is ${status}; only active keys can be rotated`);

  const transitionMs = body.transition_period_ms ?? record.rotation_policy?.transition_period_ms ?? 0;
  const previousExpiresAt = new Date(now.getTime() + transitionMs).toISOString();
  const rawKey = generateRawApiKey();
  const { previous_secret: _previous, ...current } = record;
  const next: ApiKeyRecord = {
    ...current,
    key_hash: hashApiKey(rawKey),
    masked: maskApiKey(rawKey),
    last_rotated_at: now.toISOString(),
    updated_at: now.toISOString(),
    next_rotation_at: record.rotation_policy ? nextRotation(record.rotation_policy, now) : record.next_rotation_at,
  };
  if (!(await keys.rotate(pointer, record, next, previousExpiresAt, now.toISOString()))) {
    throw new GatewayError(409, 'rotation_conflict', 'The API key was rotated or changed by another call at the same time; read it again and retry');
  }
  forgetSecrets([record.key_hash, next.key_hash]);
  const previousEnds = record.expires_at && record.expires_at < previousExpiresAt ? record.expires_at : previousExpiresAt;
  return {
    id: record.id,
    record: next,
    now: now.getTime(),
    key: rawKey,
    previousKeyExpiresAt: previousEnds,
    details: { transition_period_ms: transitionMs, previous_key_expires_at: previousEnds, masked: next.masked },
  };
}
