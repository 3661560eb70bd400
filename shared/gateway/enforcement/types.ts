import type { GatewayError } from '../../http/errors.js';
import type { CounterKey, CounterRepository } from '../../store/counter-repository.js';
import type { LeaseOp, LeaseRecord, LeaseTake } from '../../store/lease-records.js';
import type { BudgetPeriodRef, WorkspaceBudgetRepository } from '../../store/workspace-budget-repository.js';
import type { EnforcementSnapshots } from './snapshot-cache.js';

/** One amount to add to one counter or one workspace budget (negative to give back). */
export type Charge = { kind: 'counter'; key: CounterKey; amount: number } | { kind: 'budget'; workspaceId: string; amount: number; period?: BudgetPeriodRef };

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
 * reservation. `lease`: the reservation came from this process's amount lease (amount-leases.ts), in memory.
 */
export type Step =
  | { kind: 'taken'; key: CounterKey; amount: number; slot: 'request' | 'provider-request' | 'token'; lease?: AmountLease }
  | { kind: 'token'; counter: TokenCounter }
  | { kind: 'credit'; counter: CreditCounter; lease?: AmountLease }
  | { kind: 'budget'; reserved: number; period: BudgetPeriodRef; lease?: AmountLease };

/**
 * A counter that refused: a rate limit (429; `windowEnd` says when retrying can succeed) or a credit limit
 * (412; waiting does not help).
 */
export type Refusal = { kind: 'rate-refused'; windowEnd: number; error: GatewayError } | { kind: 'credit-refused'; error: GatewayError };

export type StepResult = Step | Refusal;

/** Amount leases (amount-leases.ts): one counter a lease can be taken on, with the writes that take from it and charge it. */
export interface AmountAccount {
  /** The counter's identity: one lease per account per process. */
  id: string;
  /** When its window or period ends (Infinity: never); a lease never outlives it. */
  windowEnd: number;
  /** What the counter may hold: the limit (the budget's gate: its limit less the settled usage as last read). */
  limit: number;
  /** The counter's value as the caller knows it (the budget's gate from its snapshot), 0 when unknown. */
  known: number;
  /**
   * `ADD amount` only if the counter stays within the limit, recording `lease` on the item in the same write: the
   * store's new value, or undefined. A refusal first gives back leases of dead holders (lease-reclaim.ts).
   */
  takeIfFits(amount: number, lease?: LeaseTake): Promise<number | undefined>;
  /** The exact per-request reservation of one estimate (as without leases): the new value, or undefined. */
  takeExact(amount: number): Promise<number | undefined>;
  /** The charge that adds `amount` (negative: gives back) to this counter. */
  charge(amount: number): Charge;
  /** The same limit's counter of the next rate window (undefined: not a rate window, or its last). */
  nextWindow?(): AmountAccount | undefined;
  /** The lease records on the counter's item (shared/store/lease-records.ts). */
  records: LeaseRecords;
  deps: EnforcementDependencies;
}

/** A counter's lease records, as a holder writes them and as a refused take reclaims those of dead holders. */
export interface LeaseRecords {
  /** The counter as logs name it. */
  name: string;
  /** True when a report or give-back can carry the counter's batched charge in the same write (limit counters). */
  merges: boolean;
  /** A holder's report or give-back, plus `charge` when `merges`; false: the record was reclaimed, nothing written. */
  write(op: LeaseOp, charge: number): Promise<boolean>;
  read(): Promise<LeaseRecord[]>;
  /** Gives back a dead holder's record if it is still as read: true when done. */
  reclaim(record: LeaseRecord): Promise<boolean>;
}

export interface AmountLease {
  account: AmountAccount;
  /** The id of its record on the counter item (`lh_<id>`, `le_<id>`): unique per process start and lease. */
  record: string;
  /** What the record holds as this process last wrote it: the share less what was reported used. */
  held: number;
  /** Amount still free in memory. */
  available: number;
  /** Estimates the last take was sized for (the next one's base) and the amount it took. */
  estimates: number;
  size: number;
  lastEstimate: number;
  expiresAt: number;
  lastUsedAt: number;
  /** The store's value after this process's last write to the counter. */
  count: number;
  renewing?: Promise<void>;
  /** Given back: what its reservations settle afterwards goes to the store (charge-buffer.ts). */
  returned: boolean;
  /** What was unused when it was given back: the next flush writes it back and removes the record. */
  unused?: number;
  /** Its record is gone (given back, or reclaimed by another process): nothing more is written to it. */
  closed?: boolean;
  /** A write of its record already waits for the next flush: later reservations need not ask for one again. */
  recordDue?: boolean;
}
