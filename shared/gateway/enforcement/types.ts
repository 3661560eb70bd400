import type { GatewayError } from '../../http/errors.js';
import type { CounterKey, CounterRepository } from '../../store/counter-repository.js';
import type { BudgetPeriodRef, WorkspaceBudgetRepository } from '../../store/workspace-budget-repository.js';
import type { EnforcementSnapshots } from './snapshot-cache.js';

/** The stores and clock admission and settlement use (injected in tests). */
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

/**
 * A credit counter (a usage-limit policy's, or a workspace provider's budget) the request's cost or tokens are
 * charged to, and what admission reserved there. `owner` names it in logs (a policy id, `@<provider slug>`).
 */
export interface CreditCounter {
  key: CounterKey;
  measure: 'cost' | 'tokens';
  owner: string;
  reserved: number;
}

/**
 * One counter's part of an admission. `taken` is an atomic conditional increment: a policy's request slot, a
 * workspace provider's request slot (given back whenever the request fails, see settlement.ts) or a token
 * reservation.
 */
export type Step =
  | { kind: 'taken'; key: CounterKey; amount: number; slot: 'request' | 'provider-request' | 'token' }
  | { kind: 'token'; counter: TokenCounter }
  | { kind: 'credit'; counter: CreditCounter }
  | { kind: 'budget'; reserved: number; period: BudgetPeriodRef };

/**
 * A counter that refused: a rate limit (429; `windowEnd` says when retrying can succeed) or a credit limit
 * (412; waiting does not help).
 */
export type Refusal = { kind: 'rate-refused'; windowEnd: number; error: GatewayError } | { kind: 'credit-refused'; error: GatewayError };

export type StepResult = Step | Refusal;
