import { createHash } from 'node:crypto';
import type { PolicyRecord } from '../../store/policy-repository.js';
import { PROVIDER_KIND, type RequestValues } from './request-values.js';

/** A condition value that matches every request, whatever its value of the key (or none). */
export const MATCH_ANY = '*';

/**
 * True when every condition of the policy holds for the request: its value of the key equals the condition's
 * value, or the condition's value is `*`. `*` also matches a request without the key, so a policy on
 * `metadata._user: *` covers anonymous requests too (they share one group, see `groupOf`).
 */
export function policyMatches(policy: PolicyRecord, values: RequestValues): boolean {
  return policy.conditions.every((condition) => condition.value === MATCH_ANY || valueOf(condition, values) === condition.value);
}

/**
 * The request's value a condition compares: for `provider`, a workspace provider's `@slug` when the condition
 * names one, else the provider kind (so `provider: openai` also covers `x-gw-provider: @team-openai`).
 */
function valueOf(condition: PolicyRecord['conditions'][number], values: RequestValues): string | undefined {
  if (condition.key === 'provider' && !condition.value.startsWith('@')) return values(PROVIDER_KIND) ?? values('provider');
  return values(condition.key);
}

/** The request's group under a policy: its values of the group_by keys, in the policy's order. */
export interface PolicyGroup {
  /** A fixed-length digest of the values, used in counter keys (values may be long or hold any character). */
  hash: string;
  /** The values themselves, for logs: `api_key=…, metadata._user=…` (absent values shown as `-`). */
  label: string;
}

export function groupOf(policy: PolicyRecord, values: RequestValues): PolicyGroup {
  const pairs = policy.group_by.map(({ key }) => [key, values(key) ?? null] as const);
  const hash = createHash('sha256').update(JSON.stringify(pairs)).digest('base64url').slice(0, 22);
  return { hash, label: pairs.map(([key, value]) => `${key}=${value ?? '-'}`).join(', ') };
}
