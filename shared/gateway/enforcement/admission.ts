import { GatewayError } from '../../http/errors.js';
import { logger } from '../../observability/logger.js';
import { settings } from '../../settings.js';
import { CounterRepository, counterKey, type CounterKey } from '../../store/counter-repository.js';
import type { PolicyRecord } from '../../store/policy-repository.js';
import { WorkspaceBudgetRepository } from '../../store/workspace-budget-repository.js';
import type { GatewayContext } from '../context.js';
import { groupOf, policyMatches } from './policy-match.js';
import { budgetExhaustedError, rateLimitedError, usageLimitExhaustedError, type RateRejection } from './rejections.js';
import { requestValues, type RequestValues } from './request-values.js';
import { enforcementSnapshots, type EnforcementSnapshot, type EnforcementSnapshots } from './snapshot-cache.js';
import { rateWindow, resetPeriod } from './windows.js';
import { budgetExhausted } from './workspace-budget.js';

export interface EnforcementDependencies {
  snapshots: EnforcementSnapshots;
  counters: CounterRepository;
  budgets: WorkspaceBudgetRepository;
  now: () => number;
}

/** A token counter the request was admitted under, and what it reserved there (0 without reservation). */
export interface TokenCounter {
  key: CounterKey;
  reserved: number;
}

/** A usage-limit counter the request's cost or tokens are charged to after the response. */
export interface CreditCounter {
  key: CounterKey;
  policy: PolicyRecord;
}

/**
 * What an admitted request holds: the request slots it took, the token counters it must settle, the credit
 * counters and workspace budget its usage goes to. Settled or released exactly once (see settlement.ts).
 */
export class Admission {
  private finished = false;

  constructor(
    readonly workspaceId: string,
    readonly requestSlots: readonly CounterKey[],
    readonly tokenCounters: readonly TokenCounter[],
    readonly creditCounters: readonly CreditCounter[],
    /** The workspace has a budget record its cost is charged to (USAGE_LIMITS_ENABLED). */
    readonly chargesWorkspace: boolean,
  ) {}

  /** True the first time only: the caller then settles or releases. */
  claim(): boolean {
    if (this.finished) return false;
    this.finished = true;
    return true;
  }
}

type Step = { kind: 'taken'; key: CounterKey; amount: number; slot: 'request' | 'token' } | { kind: 'token'; counter: TokenCounter } | { kind: 'credit'; counter: CreditCounter };
type Refusal = { kind: 'rate'; rejection: RateRejection } | { kind: 'credit'; error: GatewayError };
type StepResult = Step | Refusal;

let defaults: EnforcementDependencies | undefined;

export function defaultEnforcementDependencies(): EnforcementDependencies {
  defaults ??= { snapshots: enforcementSnapshots(), counters: new CounterRepository(), budgets: new WorkspaceBudgetRepository(), now: Date.now };
  return defaults;
}

/**
 * Admission: the workspace budget and the matching policies of the request, before anything is forwarded.
 * `requests` policies take their slot with one atomic conditional increment each; token policies check their
 * window (or reserve max_tokens); usage limits check their period's usage. All run at once; if any refuses,
 * what the others took is given back before the refusal is answered, so a refused request consumes nothing.
 * A credit refusal (412) made from memory is re-checked against the store first.
 */
export async function admitRequest(context: GatewayContext, deps: EnforcementDependencies = defaultEnforcementDependencies()): Promise<Admission | undefined> {
  const { POLICY_ENABLED, USAGE_LIMITS_ENABLED } = settings();
  if (!POLICY_ENABLED && !USAGE_LIMITS_ENABLED) return undefined;
  const workspaceId = context.principal.workspaceId;
  let snapshot = await deps.snapshots.get(workspaceId);
  for (;;) {
    const now = deps.now();
    const values = await requestValues(context, snapshot.policies);
    const outcome = await admitOnce(context, snapshot, values, now, deps);
    if (outcome instanceof Admission) return outcome;
    if (outcome.status === 412 && !snapshot.fresh) {
      snapshot = await deps.snapshots.refresh(workspaceId);
      continue;
    }
    throw outcome;
  }
}

async function admitOnce(context: GatewayContext, snapshot: EnforcementSnapshot, values: RequestValues, now: number, deps: EnforcementDependencies): Promise<Admission | GatewayError> {
  if (budgetExhausted(snapshot.budget, now)) return budgetExhaustedError(snapshot.budget);
  const matched = snapshot.policies.filter((policy) => policyMatches(policy, values));
  const reserve = settings().GW_TOKEN_LIMIT_RESERVATION ? maxTokensOf(context.body) : 0;
  const pending: Array<Promise<StepResult>> = [];
  for (const policy of matched) {
    const group = groupOf(policy, values);
    const window = rateWindow(policy.unit, now);
    const key: CounterKey = { pk: counterKey(policy.id, 'rate', group.hash, window.id), windowEnd: window.end };
    pending.push(rateStep(policy, key, window, reserve, now, deps));
    if (policy.kind === 'usage_limit' && policy.credit_limit) {
      const period = resetPeriod(policy.periodic_reset ?? 'none', now);
      const creditKey: CounterKey = { pk: counterKey(policy.id, 'credit', group.hash, period.id), windowEnd: period.end };
      pending.push(
        deps.counters.read(creditKey, now).then((used): StepResult =>
          used >= policy.credit_limit!.value ? { kind: 'credit', error: usageLimitExhaustedError(policy, used, period) } : { kind: 'credit', counter: { key: creditKey, policy } },
        ),
      );
    }
  }
  const settled = await Promise.allSettled(pending);
  const results = settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failed = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  const refusal = pickRefusal(results, now);
  if (failed || refusal) await giveBack(results, deps);
  if (failed) {
    logger.error('policy check failed', { trace_id: context.traceId, error: failed.reason as Error });
    return new GatewayError(503, 'policy_check_unavailable', 'gw could not check this request against the workspace policies just now; try again', { type: 'api_error' });
  }
  if (refusal) return refusal;
  return new Admission(
    context.principal.workspaceId,
    results.flatMap((step) => (step.kind === 'taken' && step.slot === 'request' ? [step.key] : [])),
    results.flatMap((step) => (step.kind === 'token' ? [step.counter] : step.kind === 'taken' && step.slot === 'token' ? [{ key: step.key, reserved: step.amount }] : [])),
    results.flatMap((step) => (step.kind === 'credit' && 'counter' in step ? [step.counter] : [])),
    snapshot.budget !== undefined,
  );
}

function rateStep(policy: PolicyRecord, key: CounterKey, window: RateRejection['window'], reserve: number, now: number, deps: EnforcementDependencies): Promise<StepResult> {
  const refused = (used?: number): StepResult => ({ kind: 'rate', rejection: { policy, window, used } });
  if (policy.type === 'requests') {
    return deps.counters.incrementBelow(key, 1, policy.value).then((result) => (result.admitted ? { kind: 'taken', key, amount: 1, slot: 'request' } : refused(policy.value)));
  }
  if (reserve > 0) {
    return deps.counters.incrementIfFits(key, reserve, policy.value).then((result) => (result.admitted ? { kind: 'taken', key, amount: reserve, slot: 'token' } : refused()));
  }
  return deps.counters.read(key, now).then((used) => (used >= policy.value ? refused(used) : { kind: 'token', counter: { key, reserved: 0 } }));
}

/**
 * The refusal to answer: a credit refusal (412) first, since waiting does not help; else the rate refusal
 * whose window ends last, so retrying after its `retry-after` can succeed.
 */
function pickRefusal(results: StepResult[], now: number): GatewayError | undefined {
  for (const result of results) if (result.kind === 'credit' && 'error' in result) return result.error;
  const rates = results.flatMap((result) => (result.kind === 'rate' ? [result.rejection] : []));
  if (rates.length === 0) return undefined;
  const latest = rates.reduce((chosen, next) => (next.window.end > chosen.window.end ? next : chosen));
  return rateLimitedError(latest, now);
}

async function giveBack(results: StepResult[], deps: EnforcementDependencies): Promise<void> {
  const releases = await Promise.allSettled(results.flatMap((step) => (step.kind === 'taken' ? [deps.counters.release(step.key, step.amount)] : [])));
  for (const release of releases) {
    // The slot stays taken until its window ends: the request is refused anyway, only the count is high.
    if (release.status === 'rejected') logger.error('could not give back a policy counter', { error: release.reason as Error });
  }
}

/** The most completion tokens the request allows (0 when it sets none). */
function maxTokensOf(body: Record<string, unknown>): number {
  for (const field of ['max_completion_tokens', 'max_tokens']) {
    const value = body[field];
    if (typeof value === 'number' && Number.isFinite(value) && value > 0) return Math.floor(value);
  }
  return 0;
}
