import { GatewayError } from '../../http/errors.js';
import { logger } from '../../observability/logger.js';
import { settings } from '../../settings.js';
import { CounterRepository, counterKey, type CounterKey } from '../../store/counter-repository.js';
import type { PolicyRecord } from '../../store/policy-repository.js';
import { WorkspaceBudgetRepository, type WorkspaceBudget } from '../../store/workspace-budget-repository.js';
import type { GatewayContext } from '../context.js';
import { groupOf, policyMatches } from './policy-match.js';
import { budgetExhaustedError, rateLimitedError, usageLimitExhaustedError, type RateRejection } from './rejections.js';
import { requestValues, type RequestValues } from './request-values.js';
import { enforcementSnapshots, type EnforcementSnapshot, type EnforcementSnapshots } from './snapshot-cache.js';
import { rateWindow, resetPeriod } from './windows.js';
import { estimateCost, estimateUsage } from './estimate.js';
import { applyDueReset, budgetExhausted, resetDue } from './workspace-budget.js';

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

/** A usage-limit counter the request's cost or tokens are charged to, and what admission reserved there. */
export interface CreditCounter {
  key: CounterKey;
  policy: PolicyRecord;
  reserved: number;
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
    /** USD reserved on the workspace budget at admission (0: none). */
    readonly budgetReserved = 0,
    /** The request's id: names its reservation record (reservation-journal.ts). */
    readonly requestId = '',
  ) {}

  /** Settlement's result, kept so the response path and the log path share one settlement. */
  settlement?: Promise<number | null>;
  /** The write of the reservation record (settlement.ts), awaited before the record is dropped. */
  reservationRecord?: Promise<void>;

  /** True when admission reserved anything that settlement must replace or give back. */
  get reserves(): boolean {
    return this.budgetReserved > 0 || this.tokenCounters.some((counter) => counter.reserved > 0) || this.creditCounters.some((counter) => counter.reserved > 0);
  }

  /** True the first time only: the caller then settles or releases. */
  claim(): boolean {
    if (this.finished) return false;
    this.finished = true;
    return true;
  }
}

type Step =
  | { kind: 'taken'; key: CounterKey; amount: number; slot: 'request' | 'token' }
  | { kind: 'token'; counter: TokenCounter }
  | { kind: 'credit'; counter: CreditCounter }
  | { kind: 'budget'; reserved: number };
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
 * window (or reserve max_tokens); usage limits check their period's usage. All run at once, each a single-item
 * conditional write (or read), so an admitted request is one store round trip deep however many policies match
 * (why not one TransactWriteItems: docs/policies-enforcement.md, "Round trips"); if any refuses, what the others
 * took is given back before the refusal is answered, so a refused request consumes nothing.
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
  const budget: WorkspaceBudget | undefined = snapshot.budget;
  if (budgetExhausted(snapshot.budget, now)) return budgetExhaustedError(snapshot.budget);
  const matched = snapshot.policies.filter((policy) => policyMatches(policy, values));
  const estimate = await reservationEstimate(context, matched, snapshot.budget, values);
  const pending: Array<Promise<StepResult>> = [];
  for (const policy of matched) {
    const group = groupOf(policy, values);
    const window = rateWindow(policy.unit, now);
    const key: CounterKey = { pk: counterKey(policy.id, 'rate', group.hash, window.id), windowEnd: window.end };
    pending.push(rateStep(policy, key, window, reserves(policy) ? (estimate?.tokens ?? 0) : 0, now, deps));
    if (policy.kind === 'usage_limit' && policy.credit_limit) {
      const period = resetPeriod(policy.periodic_reset ?? 'none', now);
      const creditKey: CounterKey = { pk: counterKey(policy.id, 'credit', group.hash, period.id), windowEnd: period.end };
      const amount = reserves(policy) ? (policy.credit_limit.type === 'tokens' ? estimate?.tokens : estimate?.cost) : undefined;
      pending.push(creditStep(policy, creditKey, period, amount ?? 0, now, deps));
    }
  }
  if (budget && budget.creditLimit !== null && estimate?.cost) pending.push(budgetStep(budget, estimate.cost, now, deps));
  const settled = await Promise.allSettled(pending);
  const results = settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failed = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  const refusal = pickRefusal(results, now);
  if (failed || refusal) await giveBack(results, context.principal.workspaceId, deps);
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
    results.reduce((sum, step) => sum + (step.kind === 'budget' ? step.reserved : 0), 0),
    context.requestId,
  );
}

/** A policy whose tokens or credit limit reserves the estimate (the default), rather than a soft check. */
function reserves(policy: PolicyRecord): boolean {
  return policy.enforcement !== 'soft';
}

/**
 * What the request reserves: its estimated tokens and their price. Computed only when a matched policy or the
 * workspace budget reserves (the tokenizer and the price lookup cost time); undefined otherwise.
 */
async function reservationEstimate(
  context: GatewayContext,
  matched: readonly PolicyRecord[],
  budget: EnforcementSnapshot['budget'],
  values: RequestValues,
): Promise<{ tokens: number; cost: number | null } | undefined> {
  const needsTokens = matched.some((policy) => reserves(policy) && (policy.type === 'tokens' || policy.credit_limit !== undefined));
  const needsCost = (budget?.creditLimit ?? null) !== null || matched.some((policy) => reserves(policy) && policy.credit_limit?.type === 'cost');
  if (!needsTokens && !needsCost) return undefined;
  const estimate = await estimateUsage(context.endpoint, context.body);
  const model = values('model') ?? (typeof context.body.model === 'string' ? context.body.model : undefined);
  const cost = needsCost ? await estimateCost(values('provider') ?? context.options.provider, model, estimate).catch(() => null) : null;
  return { tokens: estimate.totalTokens, cost };
}

/**
 * A usage limit's credit counter: with a reservation, one conditional increment that succeeds while the
 * counter (settled usage plus the reservations in flight) is below the limit; without, a read.
 */
function creditStep(policy: PolicyRecord, key: CounterKey, period: RateRejection['window'], amount: number, now: number, deps: EnforcementDependencies): Promise<StepResult> {
  const limit = policy.credit_limit!.value;
  const refused = (used: number): StepResult => ({ kind: 'credit', error: usageLimitExhaustedError(policy, used, period) });
  if (amount > 0) {
    return deps.counters.incrementBelow(key, amount, limit).then(async (result) =>
      result.admitted ? { kind: 'credit', counter: { key, policy, reserved: amount } } : refused(await deps.counters.read(key, now)),
    );
  }
  return deps.counters.read(key, now).then((used): StepResult => (used >= limit ? refused(used) : { kind: 'credit', counter: { key, policy, reserved: 0 } }));
}

/**
 * The workspace budget's reservation: the estimated cost, added only while usage is below the limit. One
 * conditional write on the admitted path; only at a period boundary (the reset is due) does it become a chain
 * (read, apply the reset, reserve), and when the snapshot already knows the reset is due, the reservation that
 * would be refused for it is not tried first.
 */
async function budgetStep(budget: WorkspaceBudget, amount: number, now: number, deps: EnforcementDependencies): Promise<StepResult> {
  const at = new Date(now);
  let reserved = resetDue(budget, now) ? false : await deps.budgets.reserve(budget.workspaceId, amount, at);
  if (!reserved && (await applyDueReset(deps.budgets, budget.workspaceId, now))) reserved = await deps.budgets.reserve(budget.workspaceId, amount, at);
  // Another writer applied the reset between this process's read and its own attempt: the plain reserve decides.
  if (!reserved && resetDue(budget, now)) reserved = await deps.budgets.reserve(budget.workspaceId, amount, at);
  if (reserved) return { kind: 'budget', reserved: amount };
  const current = await deps.budgets.read(budget.workspaceId);
  if (current) deps.snapshots.updateBudget(current);
  return { kind: 'credit', error: budgetExhaustedError(current ?? budget) };
}

function rateStep(policy: PolicyRecord, key: CounterKey, window: RateRejection['window'], reserve: number, now: number, deps: EnforcementDependencies): Promise<StepResult> {
  const refused = (used?: number): StepResult => ({ kind: 'rate', rejection: { policy, window, used } });
  if (policy.type === 'requests') {
    return deps.counters.incrementBelow(key, 1, policy.value).then((result) => (result.admitted ? { kind: 'taken', key, amount: 1, slot: 'request' } : refused(policy.value)));
  }
  if (reserve > 0) {
    // Default: admitted while the window (settled tokens plus reservations in flight) is below the limit.
    // GW_TOKEN_LIMIT_RESERVATION=ON: the whole estimate must fit under the limit (never over, refuses more).
    const taken = settings().GW_TOKEN_LIMIT_RESERVATION ? deps.counters.incrementIfFits(key, reserve, policy.value) : deps.counters.incrementBelow(key, reserve, policy.value);
    return taken.then((result) => (result.admitted ? { kind: 'taken', key, amount: reserve, slot: 'token' } : refused()));
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

async function giveBack(results: StepResult[], workspaceId: string, deps: EnforcementDependencies): Promise<void> {
  const releases = await Promise.allSettled(
    results.flatMap((step): Array<Promise<unknown>> => {
      if (step.kind === 'taken') return [deps.counters.release(step.key, step.amount)];
      if (step.kind === 'credit' && 'counter' in step && step.counter.reserved > 0) return [deps.counters.release(step.counter.key, step.counter.reserved)];
      if (step.kind === 'budget') return [deps.budgets.charge(workspaceId, -step.reserved, new Date(deps.now()))];
      return [];
    }),
  );
  for (const release of releases) {
    // The slot stays taken until its window ends: the request is refused anyway, only the count is high.
    if (release.status === 'rejected') logger.error('could not give back a policy counter', { error: release.reason as Error });
  }
}
