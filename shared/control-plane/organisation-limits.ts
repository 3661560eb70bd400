import { isJwtPrincipal, type Principal } from '../auth/principal.js';
import { GatewayError } from '../http/errors.js';
import { ORGANISATION_ADMIN_SETTING } from './privilege.js';

/**
 * Limits an organisation admin set stay set (docs/security.md, "Limits an organisation admin set"). A provider's
 * budget, rate limits, model allow-list and `enabled`, and a rate- or usage-limit policy, record who set them:
 * `set_by: organisation` when an organisation admin key wrote them. A workspace key may then tighten them (a lower
 * value, a shorter model list, an extra limit, disabling) but never loosen them: lifting, raising, widening,
 * re-enabling, archiving or deleting is a 403 `organisation_admin_setting`, checked before anything is written.
 */
export type LimitsSetBy = 'organisation' | 'workspace';

/** Who a write sets limits as: an organisation admin API key sets them for the organisation. */
export function limitsSetBy(principal: Principal): LimitsSetBy {
  return principal.kind === 'admin' && !isJwtPrincipal(principal) ? 'organisation' : 'workspace';
}

/** True when the caller must not loosen `record`'s limits: they were set by the organisation, the caller is not. */
export function bindsCaller(principal: Principal, record: { set_by?: LimitsSetBy }): boolean {
  return record.set_by === 'organisation' && limitsSetBy(principal) !== 'organisation';
}

/** The refusal for loosening an organisation-set limit; `what` says which limit and how. */
export function organisationLimitRefusal(what: string, param: string | null = null): GatewayError {
  return new GatewayError(403, ORGANISATION_ADMIN_SETTING, `${what}: an organisation admin set this limit; a workspace key may tighten it, never loosen it`, { param });
}

type Budget = { limit_usd: number; period: string } | undefined;
type RateLimit = { type: string; unit: string; value: number };

/** The first way `next` loosens `current`'s provider limits (a message naming the field), or undefined. */
export function providerLoosening(
  current: { budget?: Budget; rate_limits: RateLimit[]; models: string[]; enabled: boolean },
  next: { budget?: Budget; rate_limits: RateLimit[]; models: string[]; enabled: boolean },
): { field: string; message: string } | undefined {
  if (current.budget) {
    if (!next.budget) return { field: 'budget', message: 'budget cannot be removed' };
    if (next.budget.limit_usd > current.budget.limit_usd) return { field: 'budget', message: `budget.limit_usd cannot rise above ${current.budget.limit_usd}` };
    if (next.budget.period !== current.budget.period) return { field: 'budget', message: 'budget.period cannot change' };
  }
  for (const limit of current.rate_limits) {
    const kept = next.rate_limits.find((candidate) => candidate.type === limit.type && candidate.unit === limit.unit);
    if (!kept) return { field: 'rate_limits', message: `the ${limit.type} ${limit.unit} rate limit cannot be removed` };
    if (kept.value > limit.value) return { field: 'rate_limits', message: `the ${limit.type} ${limit.unit} rate limit cannot rise above ${limit.value}` };
  }
  if (current.models.length > 0) {
    const allowed = new Set(current.models);
    if (next.models.length === 0 || next.models.some((model) => !allowed.has(model))) return { field: 'models', message: 'models can only shrink (every model must be on the current list)' };
  }
  if (!current.enabled && next.enabled) return { field: 'enabled', message: 'a disabled provider cannot be re-enabled' };
  return undefined;
}

/** The first way `next` loosens an organisation-set policy, or undefined: only a lower value (or credit) and a new name pass. */
export function policyLoosening(
  current: { value: number; type: string; unit: string; credit_limit?: { type: string; value: number } },
  changes: Record<string, unknown>,
): { field: string; message: string } | undefined {
  for (const field of Object.keys(changes)) {
    if (field === 'name') continue;
    // A PUT may send a field as it already is: only what changes is judged.
    if (JSON.stringify(changes[field]) === JSON.stringify((current as Record<string, unknown>)[field])) continue;
    if (field === 'value') {
      if ((changes.value as number) > current.value) return { field, message: `value cannot rise above ${current.value}` };
      continue;
    }
    if (field === 'credit_limit') {
      const credit = changes.credit_limit as { type: string; value: number };
      if (!current.credit_limit || credit.type !== current.credit_limit.type || credit.value > current.credit_limit.value) {
        return { field, message: `credit_limit can only fall${current.credit_limit ? ` below ${current.credit_limit.value}` : ''}, in the same type` };
      }
      continue;
    }
    return { field, message: `${field} cannot change` };
  }
  return undefined;
}
