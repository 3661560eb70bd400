import { badRequest } from '../../http/errors.js';
import type { RotationPolicy } from '../../store/api-key-repository.js';
import type { WorkspaceRecord } from '../../store/workspace-repository.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The expiry a workspace key gets, under its workspace's rules: omitted → the default (or none); null → never,
 * unless the workspace sets a maximum; a time → must lie in the future and within the maximum.
 * Admin keys (no workspace rules) take what they are given.
 */
export function resolveExpiry(requested: string | null | undefined, workspace: WorkspaceRecord | undefined, now: Date): string | undefined {
  const maxDays = workspace?.api_key_max_expiry_days ?? null;
  const defaultDays = workspace?.api_key_default_expiry_days ?? null;
  if (requested === undefined) {
    const days = defaultDays ?? maxDays;
    return days === null ? undefined : new Date(now.getTime() + days * DAY_MS).toISOString();
  }
  if (requested === null) {
    if (maxDays !== null) throw badRequest('expiry_required', `expires_at: this workspace's keys must expire within ${maxDays} days`, 'expires_at');
    return undefined;
  }
  const at = Date.parse(requested);
  if (at <= now.getTime()) throw badRequest('invalid_expiry', 'expires_at: must be in the future (revoke a key to stop it now)', 'expires_at');
  if (maxDays !== null && at > now.getTime() + maxDays * DAY_MS) {
    throw badRequest('expiry_too_late', `expires_at: this workspace's keys must expire within ${maxDays} days`, 'expires_at');
  }
  return new Date(at).toISOString();
}

/** When a key under `policy` should next be rotated, counted from `from`. */
export function nextRotation(policy: RotationPolicy, from: Date): string {
  const next = new Date(from.getTime());
  if (policy.period === 'weekly') next.setUTCDate(next.getUTCDate() + 7);
  else if (policy.period === 'monthly') next.setUTCMonth(next.getUTCMonth() + 1);
  else next.setUTCDate(next.getUTCDate() + (policy.interval_days ?? 1));
  return next.toISOString();
}
