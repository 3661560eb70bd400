import { GatewayError } from '../../http/errors.js';
import { settings } from '../../settings.js';
import { counterKey, type CounterKey } from '../../store/counter-repository.js';
import type { ProviderRecord } from '../../store/integration-repository.js';
import { counterAccount, reserveAmount } from './amount-leases.js';
import { takeRequestSlot } from './quota-leases.js';
import type { EnforcementDependencies, StepResult } from './types.js';
import { rateWindow, resetPeriod, secondsUntil, UNIT_LABELS } from './windows.js';

/** What a request is estimated to use at most (estimate.ts): what token limits and the budget reserve. */
export interface ProviderEstimate {
  tokens: number;
  /** USD; null when the model has no price (the budget then only checks what was already spent). */
  cost: number | null;
}

/** True when the provider's limits need the request's estimate (a tokens limit or a budget). */
export function providerNeedsEstimate(provider: ProviderRecord | undefined): { tokens: boolean; cost: boolean } {
  return { tokens: provider?.rate_limits.some((limit) => limit.type === 'tokens') ?? false, cost: provider?.budget !== undefined };
}

/**
 * The admission steps of a workspace provider (`x-gw-provider: @slug`), the same kind as a workspace policy's:
 * a request limit takes a slot with one atomic conditional increment; a tokens limit reserves the estimated
 * tokens and the budget the estimated cost, each with one conditional increment that succeeds while the counter
 * (settled usage plus the reservations in flight) is below the limit, or from this process's lease of it
 * (quota-leases.ts, amount-leases.ts). Settlement replaces a reservation with
 * the real usage, so concurrent requests pass a provider's limit by at most one request.
 */
export function providerSteps(provider: ProviderRecord, estimate: ProviderEstimate | undefined, now: number, deps: EnforcementDependencies): Array<Promise<StepResult>> {
  const steps = provider.rate_limits.map((limit) => rateLimitStep(provider, limit, estimate?.tokens ?? 0, now, deps));
  if (provider.budget) steps.push(budgetStep(provider, provider.budget, estimate?.cost ?? null, now, deps));
  return steps;
}

type RateLimit = ProviderRecord['rate_limits'][number];

function rateLimitStep(provider: ProviderRecord, limit: RateLimit, reserve: number, now: number, deps: EnforcementDependencies): Promise<StepResult> {
  const window = rateWindow(limit.unit, now);
  const key: CounterKey = { pk: counterKey(`provider-${provider.id}`, 'rate', limit.type, window.id), windowEnd: window.end };
  const refused = (): StepResult => {
    const seconds = secondsUntil(window.end, now);
    const error = new GatewayError(429, 'rate_limit_exceeded', `Rate limit exceeded: provider @${provider.slug} allows ${limit.value} ${limit.type} per ${UNIT_LABELS[limit.unit]}; retry in ${seconds} s`, {
      headers: { 'retry-after': String(seconds), 'x-ratelimit-limit': String(limit.value), 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(seconds) },
    });
    return { kind: 'rate-refused', windowEnd: window.end, error };
  };
  if (limit.type === 'requests') {
    return takeRequestSlot(deps, key, limit.value).then((admitted) => (admitted ? { kind: 'taken', key, amount: 1, slot: 'provider-request' } : refused()));
  }
  if (reserve > 0) {
    // As for tokens policies: GW_TOKEN_LIMIT_RESERVATION=ON asks the whole estimate to fit.
    return reserveAmount(counterAccount(key, limit.value, deps, settings().GW_TOKEN_LIMIT_RESERVATION), reserve).then((reserved) => (reserved ? { kind: 'taken', key, amount: reserve, slot: 'token', lease: reserved.lease } : refused()));
  }
  return deps.counters.read(key, now).then((used) => (used >= limit.value ? refused() : { kind: 'token', counter: { key, reserved: 0 } }));
}

async function budgetStep(provider: ProviderRecord, budget: NonNullable<ProviderRecord['budget']>, cost: number | null, now: number, deps: EnforcementDependencies): Promise<StepResult> {
  const period = resetPeriod(budget.period, now);
  const key: CounterKey = { pk: counterKey(`provider-${provider.id}`, 'credit', 'usd', period.id), windowEnd: period.end };
  const owner = `@${provider.slug}`;
  const reserve = cost ?? 0;
  const reserved = reserve > 0 ? await reserveAmount(counterAccount(key, budget.limit_usd, deps), reserve) : undefined;
  if (reserved) return { kind: 'credit', counter: { key, measure: 'cost', owner, reserved: reserve }, lease: reserved.lease };
  const spent = await deps.counters.read(key, now);
  // An unpriced model reserves nothing: the budget then only checks what was spent (its cost is unknown anyway).
  if (reserve === 0 && spent < budget.limit_usd) return { kind: 'credit', counter: { key, measure: 'cost', owner, reserved: 0 } };
  return { kind: 'credit-refused', error: new GatewayError(412, 'budget_exhausted', `The budget of provider @${provider.slug} is exhausted: $${spent.toFixed(4)} spent of $${budget.limit_usd}`) };
}
