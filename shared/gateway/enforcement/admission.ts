import { GatewayError } from '../../http/errors.js';
import { runInBackground } from '../../observability/background.js';
import { logger } from '../../observability/logger.js';
import { settings } from '../../settings.js';
import { CounterRepository, counterKey, type CounterKey } from '../../store/counter-repository.js';
import type { PolicyRecord } from '../../store/policy-repository.js';
import { WorkspaceBudgetRepository, type BudgetPeriodRef, type WorkspaceBudget } from '../../store/workspace-budget-repository.js';
import type { GatewayContext } from '../context.js';
import { groupOf, policyMatches } from './policy-match.js';
import { providerNeedsEstimate, providerSteps } from './provider-limits.js';
import { amountLeases, budgetAccount, BUDGET_ACCOUNT, counterAccount, reserveAmount, type AmountLease } from './amount-leases.js';
import { takeRequestSlot } from './quota-leases.js';
import { budgetExhaustedError, rateLimitedError, usageLimitExhaustedError, type RateRejection } from './rejections.js';
import { requestValues, type RequestValues } from './request-values.js';
import type { CreditCounter, EnforcementDependencies, Step, StepResult, TokenCounter } from './types.js';
import { enforcementSnapshots, type EnforcementSnapshot } from './snapshot-cache.js';
import { rateWindow, resetPeriod } from './windows.js';
import { estimateReservation, type ReservationEstimate } from './target-estimate.js';
import { applyDueReset, budgetExhausted, resetDue } from './workspace-budget.js';
import { merged } from '../../merged.js';

export type { CreditCounter, EnforcementDependencies, TokenCounter } from './types.js';

/** What admission took, by kind; see `Admission`. */
export interface AdmissionHoldings {
  workspaceId: string;
  /** Request slots of workspace policies: given back only when no provider answered. */
  requestSlots: readonly CounterKey[];
  /** Request slots of a workspace provider's limits: given back whenever the request fails. */
  providerSlots?: readonly CounterKey[];
  tokenCounters: readonly TokenCounter[];
  creditCounters: readonly CreditCounter[];
  /** The workspace has a budget record its cost is charged to (USAGE_LIMITS_ENABLED). */
  chargesWorkspace: boolean;
  /** USD reserved on the workspace budget at admission (0: none). */
  budgetReserved?: number;
  /** The budget period its charges go to: where it reserved, or (no limit) the snapshot's; none: read then. */
  budgetPeriod?: BudgetPeriodRef;
  /** The request's id: names its reservation record (reservation-journal.ts). */
  requestId?: string;
  /**
   * Reservations made from this process's amount leases, by counter (`pk`, or BUDGET_ACCOUNT): settled in memory.
   * Not part of what a batch record stores: a batch settled later charges the store (its estimate is counted there).
   */
  leased?: ReadonlyMap<string, AmountLease>;
}

/**
 * What an admitted request holds: the request slots it took, the token counters it must settle, the credit
 * counters and workspace budget its usage goes to. Settled or released exactly once (see settlement.ts).
 */
export class Admission {
  private finished = false;
  readonly workspaceId: string;
  readonly requestSlots: readonly CounterKey[];
  readonly providerSlots: readonly CounterKey[];
  readonly tokenCounters: readonly TokenCounter[];
  readonly creditCounters: readonly CreditCounter[];
  readonly chargesWorkspace: boolean;
  readonly budgetReserved: number;
  readonly budgetPeriod?: BudgetPeriodRef;
  readonly requestId: string;
  readonly leased: ReadonlyMap<string, AmountLease>;

  constructor(holdings: AdmissionHoldings) {
    this.workspaceId = holdings.workspaceId;
    this.requestSlots = holdings.requestSlots;
    this.providerSlots = holdings.providerSlots ?? [];
    this.tokenCounters = holdings.tokenCounters;
    this.creditCounters = holdings.creditCounters;
    this.chargesWorkspace = holdings.chargesWorkspace;
    this.budgetReserved = holdings.budgetReserved ?? 0;
    this.budgetPeriod = holdings.budgetPeriod;
    this.requestId = holdings.requestId ?? '';
    this.leased = holdings.leased ?? new Map();
  }

  /** Settlement's result, kept so the response path and the log path share one settlement. */
  settlement?: Promise<number | null>;
  /** The write of the reservation record (settlement.ts), awaited before the record is dropped. */
  reservationRecord?: Promise<void>;

  /**
   * True when admission reserved anything in the store that settlement must replace or give back. A leased
   * reservation is not: the process that dies holding it loses its lease with it (amount-leases.ts).
   */
  get reserves(): boolean {
    const inStore = (key: string, reserved: number) => reserved > 0 && !this.leased.has(key);
    return inStore(BUDGET_ACCOUNT, this.budgetReserved) || [...this.tokenCounters, ...this.creditCounters].some((counter) => inStore(counter.key.pk, counter.reserved));
  }

  /** True the first time only: the caller then settles or releases. */
  claim(): boolean {
    if (this.finished) return false;
    this.finished = true;
    return true;
  }
}

/**
 * What a request is metered for. `usage` (inference): every matching rule, credit limit and budget. `requests`:
 * only request counts (rate rules of type `requests`), for entry points that use no tokens (token counting,
 * the MCP gateway): they take a request slot and reserve or charge nothing else.
 */
export type Metering = 'usage' | 'requests';

let defaults: EnforcementDependencies | undefined;

export function defaultEnforcementDependencies(): EnforcementDependencies {
  defaults ??= { snapshots: enforcementSnapshots(), counters: new CounterRepository(), budgets: new WorkspaceBudgetRepository(), now: Date.now };
  return defaults;
}

/**
 * Admission: the workspace budget, the matching policies of the request and the limits of its workspace
 * provider (`x-gw-provider: @slug`), before anything is forwarded. Request counts take their slot with one
 * atomic conditional increment each; tokens limits, credit limits and budgets reserve the request's estimate the
 * same way (a soft policy only checks its window or period). All run at once, each a single-item conditional
 * write (or read), so an admitted request is one store round trip deep however many limits match (why not one
 * TransactWriteItems: docs/policies-enforcement.md, "Round trips"); if any refuses, what the others took is
 * given back before the refusal is answered, so a refused request consumes nothing.
 * A credit refusal (412) made from memory is re-checked against the store first.
 */
export async function admitRequest(context: GatewayContext, deps: EnforcementDependencies = defaultEnforcementDependencies(), metering: Metering = 'usage'): Promise<Admission | undefined> {
  const { POLICY_ENABLED, USAGE_LIMITS_ENABLED } = settings();
  const provider = context.workspaceProvider?.provider;
  const providerLimited = provider !== undefined && (provider.rate_limits.length > 0 || provider.budget !== undefined);
  if (!POLICY_ENABLED && !USAGE_LIMITS_ENABLED && !providerLimited) return undefined;
  const workspaceId = context.principal.workspaceId;
  // A workspace provider's limits are its own settings: they hold whatever the policy flags say.
  const noPolicies: EnforcementSnapshot = { policies: [], fresh: true };
  let snapshot = POLICY_ENABLED || USAGE_LIMITS_ENABLED ? await deps.snapshots.get(workspaceId) : noPolicies;
  for (;;) {
    const now = deps.now();
    const values = await requestValues(context, snapshot.policies);
    const outcome = await admitOnce(context, snapshot, values, now, deps, metering);
    if (outcome instanceof Admission) return outcome;
    if (outcome.status === 412 && !snapshot.fresh) {
      snapshot = await deps.snapshots.refresh(workspaceId);
      continue;
    }
    throw outcome;
  }
}

async function admitOnce(context: GatewayContext, snapshot: EnforcementSnapshot, values: RequestValues, now: number, deps: EnforcementDependencies, metering: Metering): Promise<Admission | GatewayError> {
  const usage = metering === 'usage';
  // Entry points metered by request count use nothing a budget pays for: an exhausted budget does not stop them.
  if (usage && budgetExhausted(snapshot.budget, now)) return budgetExhaustedError(snapshot.budget);
  const budget: WorkspaceBudget | undefined = usage ? snapshot.budget : undefined;
  const matched = snapshot.policies.filter((policy) => policyMatches(policy, values) && (usage || policy.type === 'requests'));
  const provider = context.workspaceProvider?.provider;
  const estimate = usage ? await reservationEstimate(context, matched, snapshot, budget) : undefined;
  const pending: Array<Promise<StepResult>> = [];
  for (const policy of matched) {
    const group = groupOf(policy, values);
    const window = rateWindow(policy.unit, now);
    const key: CounterKey = { pk: counterKey(policy.id, 'rate', group.hash, window.id), windowEnd: window.end };
    pending.push(rateStep(policy, key, window, reserves(policy) ? (estimate?.tokens ?? 0) : 0, now, deps));
    if (usage && policy.kind === 'usage_limit' && policy.credit_limit) {
      const period = resetPeriod(policy.periodic_reset ?? 'none', now);
      const creditKey: CounterKey = { pk: counterKey(policy.id, 'credit', group.hash, period.id), windowEnd: period.end };
      const amount = reserves(policy) ? (policy.credit_limit.type === 'tokens' ? estimate?.tokens : estimate?.cost) : undefined;
      pending.push(creditStep(policy, creditKey, period, amount ?? 0, now, deps));
    }
  }
  if (provider) {
    const limits = usage ? provider : merged(provider, { rate_limits: provider.rate_limits.filter((limit) => limit.type === 'requests'), budget: undefined });
    pending.push(...providerSteps(limits, estimate, now, deps));
  }
  // A budget with a limit is always checked by its conditional write, even for an estimate of $0 (a free model).
  if (budget && budget.creditLimit !== null) pending.push(budgetStep(budget, estimate?.cost ?? 0, now, deps));
  const settled = await Promise.allSettled(pending);
  const results = settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failed = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  const refusal = pickRefusal(results);
  if (failed || refusal) await giveBack(results, context.principal.workspaceId, deps);
  if (failed) {
    logger.error('policy check failed', { trace_id: context.traceId, error: failed.reason as Error });
    return new GatewayError(503, 'policy_check_unavailable', 'gw could not check this request against the workspace policies just now; try again', { type: 'api_error' });
  }
  if (refusal) return refusal;
  const steps = results as Step[];
  const leased = new Map<string, AmountLease>();
  for (const step of steps) {
    if (step.kind === 'taken' && step.lease) leased.set(step.key.pk, step.lease);
    if (step.kind === 'credit' && step.lease) leased.set(step.counter.key.pk, step.lease);
    if (step.kind === 'budget' && step.lease) leased.set(BUDGET_ACCOUNT, step.lease);
  }
  return new Admission({
    workspaceId: context.principal.workspaceId,
    requestSlots: steps.flatMap((step) => (step.kind === 'taken' && step.slot === 'request' ? [step.key] : [])),
    providerSlots: steps.flatMap((step) => (step.kind === 'taken' && step.slot === 'provider-request' ? [step.key] : [])),
    tokenCounters: steps.flatMap((step) => (step.kind === 'token' ? [step.counter] : step.kind === 'taken' && step.slot === 'token' ? [{ key: step.key, reserved: step.amount }] : [])),
    creditCounters: steps.flatMap((step) => (step.kind === 'credit' ? [step.counter] : [])),
    chargesWorkspace: budget !== undefined,
    budgetReserved: steps.reduce((sum, step) => sum + (step.kind === 'budget' ? step.reserved : 0), 0),
    budgetPeriod: steps.find((step) => step.kind === 'budget')?.period ?? unreservedPeriod(budget, now),
    requestId: context.requestId,
    leased,
  });
}

/**
 * The period a budget without a limit is charged in: the snapshot's, unless its reset is due (settlement then
 * reads the budget and applies the reset first).
 */
function unreservedPeriod(budget: WorkspaceBudget | undefined, now: number): BudgetPeriodRef | undefined {
  if (!budget || resetDue(budget, now)) return undefined;
  return { epoch: budget.epoch, gated: budget.creditLimit !== null };
}

/** A policy whose tokens or credit limit reserves the estimate (the default), rather than a soft check. */
function reserves(policy: PolicyRecord): boolean {
  return policy.enforcement !== 'soft';
}

/**
 * What the request reserves: the estimated tokens and their price of the most expensive target it may reach
 * (target-estimate.ts), whatever names the target. Computed only when a matched policy, the workspace provider
 * or the workspace budget reserves (the tokenizer and the price lookups cost time); undefined otherwise.
 */
async function reservationEstimate(context: GatewayContext, matched: readonly PolicyRecord[], snapshot: EnforcementSnapshot, budget: EnforcementSnapshot['budget']): Promise<ReservationEstimate | undefined> {
  const provider = providerNeedsEstimate(context.workspaceProvider?.provider);
  const needsTokens = provider.tokens || matched.some((policy) => reserves(policy) && (policy.type === 'tokens' || policy.credit_limit !== undefined));
  const needsCost = provider.cost || (budget?.creditLimit ?? null) !== null || matched.some((policy) => reserves(policy) && policy.credit_limit?.type === 'cost');
  if (!needsTokens && !needsCost) return undefined;
  return estimateReservation(context, { cost: needsCost }, snapshot.unpricedModels);
}

/**
 * A usage limit's credit counter: with a reservation, one conditional increment that succeeds while the
 * counter (settled usage plus the reservations in flight) is below the limit; without, a read.
 */
function creditStep(policy: PolicyRecord, key: CounterKey, period: RateRejection['window'], amount: number, now: number, deps: EnforcementDependencies): Promise<StepResult> {
  const limit = policy.credit_limit!.value;
  const refused = (used: number): StepResult => ({ kind: 'credit-refused', error: usageLimitExhaustedError(policy, used, period) });
  const counter = (reserved: number, lease?: AmountLease): StepResult => ({ kind: 'credit', counter: { key, measure: policy.credit_limit!.type, owner: policy.id, reserved }, lease });
  if (amount > 0) {
    return reserveAmount(counterAccount(key, limit, deps), amount).then(async (reserved) => (reserved ? counter(amount, reserved.lease) : refused(await deps.counters.read(key, now))));
  }
  return deps.counters.read(key, now).then((used): StepResult => (used >= limit ? refused(used) : counter(0)));
}

/**
 * The workspace budget's reservation: the estimated cost, added to the period's gate item only while the usage is
 * below the limit (workspace-budget-repository.ts). One conditional write on the admitted path; a reset that is
 * due is applied first, and a refusal is re-checked on a fresh read (the snapshot's settled usage may be high).
 */
async function budgetStep(budget: WorkspaceBudget, amount: number, now: number, deps: EnforcementDependencies): Promise<StepResult> {
  let current = budget;
  let fresh = false;
  const reread = async (): Promise<WorkspaceBudget | undefined> => {
    const read = await deps.budgets.read(budget.workspaceId);
    if (read) deps.snapshots.updateBudget(read);
    fresh = true;
    return read;
  };
  if (resetDue(current, now)) {
    await applyDueReset(deps.budgets, budget.workspaceId, now);
    current = (await reread()) ?? current;
  }
  // From this process's lease of the gate when it holds one (amount-leases.ts); each write is noted in the snapshot.
  let reserved = resetDue(current, now) ? undefined : await reserveAmount(budgetAccount(current, deps), amount);
  if (reserved === undefined && !fresh) {
    current = (await reread()) ?? current;
    if (!resetDue(current, now)) reserved = await reserveAmount(budgetAccount(current, deps), amount);
  }
  if (reserved !== undefined) return { kind: 'budget', reserved: amount, period: { epoch: current.epoch, gated: true }, lease: reserved.lease };
  if (current.status !== 'exhausted' && budgetExhausted(current, now)) markExhaustedOnce(current, deps);
  return { kind: 'credit-refused', error: budgetExhaustedError(current) };
}

const marking = new Set<string>();

/**
 * Sets a refused budget's status to `exhausted` in the background (for people and the restorer's queue; admission
 * decides by the numbers), once per workspace at a time however many requests it refuses meanwhile.
 */
function markExhaustedOnce(budget: WorkspaceBudget, deps: EnforcementDependencies): void {
  if (marking.has(budget.workspaceId)) return;
  marking.add(budget.workspaceId);
  runInBackground('budget status', async () => {
    try {
      if (await deps.budgets.markExhausted(budget.workspaceId)) deps.snapshots.updateBudget(merged(budget, { status: 'exhausted' as const }));
    } finally {
      marking.delete(budget.workspaceId);
    }
  });
}

function rateStep(policy: PolicyRecord, key: CounterKey, window: RateRejection['window'], reserve: number, now: number, deps: EnforcementDependencies): Promise<StepResult> {
  const refused = (used?: number): StepResult => ({ kind: 'rate-refused', windowEnd: window.end, error: rateLimitedError({ policy, window, used }, now) });
  if (policy.type === 'requests') {
    return takeRequestSlot(deps, key, policy.value).then((admitted) => (admitted ? { kind: 'taken', key, amount: 1, slot: 'request' } : refused(policy.value)));
  }
  if (reserve > 0) {
    // Default: admitted while the window (settled tokens plus reservations in flight) is below the limit.
    // GW_TOKEN_LIMIT_RESERVATION=ON: the whole estimate must fit under the limit (never over, refuses more).
    const account = counterAccount(key, policy.value, deps, settings().GW_TOKEN_LIMIT_RESERVATION);
    return reserveAmount(account, reserve).then((reserved) => (reserved ? { kind: 'taken', key, amount: reserve, slot: 'token', lease: reserved.lease } : refused()));
  }
  return deps.counters.read(key, now).then((used) => (used >= policy.value ? refused(used) : { kind: 'token', counter: { key, reserved: 0 } }));
}

/**
 * The refusal to answer: a credit refusal (412) first, since waiting does not help; else the rate refusal
 * whose window ends last, so retrying after its `retry-after` can succeed.
 */
function pickRefusal(results: StepResult[]): GatewayError | undefined {
  for (const result of results) if (result.kind === 'credit-refused') return result.error;
  const rates = results.flatMap((result) => (result.kind === 'rate-refused' ? [result] : []));
  if (rates.length === 0) return undefined;
  return rates.reduce((chosen, next) => (next.windowEnd > chosen.windowEnd ? next : chosen)).error;
}

async function giveBack(results: StepResult[], workspaceId: string, deps: EnforcementDependencies): Promise<void> {
  const releases = await Promise.allSettled(
    results.flatMap((step): Array<Promise<unknown>> => {
      // A reservation from a lease goes back into it, in memory.
      const leased = step.kind === 'taken' ? step.amount : step.kind === 'credit' ? step.counter.reserved : step.kind === 'budget' ? step.reserved : 0;
      if ((step.kind === 'taken' || step.kind === 'credit' || step.kind === 'budget') && step.lease) return [Promise.resolve(amountLeases().settle(step.lease, -leased))];
      if (step.kind === 'taken') return [deps.counters.release(step.key, step.amount)];
      if (step.kind === 'credit' && step.counter.reserved > 0) return [deps.counters.release(step.counter.key, step.counter.reserved)];
      if (step.kind === 'budget') return [deps.budgets.charge(workspaceId, -step.reserved, new Date(deps.now()), step.period)];
      return [];
    }),
  );
  for (const release of releases) {
    // The slot stays taken until its window ends: the request is refused anyway, only the count is high.
    if (release.status === 'rejected') logger.error('could not give back a policy counter', { error: release.reason as Error });
  }
}
