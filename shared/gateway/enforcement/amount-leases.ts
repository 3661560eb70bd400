import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import { logger } from '../../observability/logger.js';
import { subtractUsd, sumUsd, unitsToUsd, usdToUnits } from '../../observability/pricing/usd.js';
import { settings } from '../../settings.js';
import type { CounterKey } from '../../store/counter-repository.js';
import type { WorkspaceBudget } from '../../store/workspace-budget-repository.js';
import { chargeLater, flushCharges } from './charge-buffer.js';
import { takeReclaiming } from './lease-reclaim.js';
import { writeRecordLater } from './lease-reports.js';
import type { AmountAccount, AmountLease, EnforcementDependencies, LeaseRecords } from './types.js';
import { nextRateWindow } from './windows.js';

export type { AmountAccount, AmountLease } from './types.js';

/**
 * Amount leases (issues #48, #44): quota leases for every limit counter — request counts (an amount of 1 per
 * request, quota-leases.ts), tokens rate limits, cost and tokens usage limits, a workspace provider's tokens limit
 * and budget, the workspace budget's gate.
 * A process takes a share of what is left with one conditional `ADD` that must fit whole under the limit, reserves
 * each request's estimate against it in memory, settles real usage in memory (what an estimate over-reserved goes
 * back into the lease) and gives the unused remainder back at expiry, idle and shutdown. Sizes are counted in
 * request estimates: the first lease is FIRST_LEASE of them, each lease used up doubles the next, and a lease is
 * at most 1/LEASE_SHARE of what is left. Below two estimates' share the process reserves each request exactly as
 * without leases (one conditional write per request), so near the limit the bound is today's: one request over.
 * Each lease is recorded on its counter item in the write that takes it (lease-records.ts), its use reported with
 * the batched charges (lease-reports.ts): a process that dies holding one costs at most that lease until its
 * expiry and a grace, when the next refusal gives its unreported remainder back (lease-reclaim.ts).
 */

const LEASE_SHARE = 8;
const FIRST_LEASE = 4;
const MAX_LEASE = 1_000;
const SWEEP_MS = 1_000;
const RENEW_AT = 0.25;
/** Names this process's lease records: random per process start, so two processes never share a record. */
const PROCESS_TAG = randomBytes(6).toString('hex');
let leasesTaken = 0;

/** A reservation: its amount, and the lease it came from (none: reserved in the store, one write). */
export interface Reserved {
  amount: number;
  lease?: AmountLease;
}

export class AmountLeases {
  private readonly leases = new Map<string, AmountLease>();
  /** The store's value as last seen for counters without a lease: sizes the next one (limit: none fits now). */
  private readonly seen = new Map<string, number>();
  private readonly acquiring = new Map<string, Promise<Reserved | undefined>>();
  private sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  /** Reserves `estimate` on the account: from this process's lease, or with one store write. Undefined: refused. */
  async reserve(account: AmountAccount, estimate: number): Promise<Reserved | undefined> {
    const now = this.now();
    let lease = this.leases.get(account.id);
    // Reclaimed by another process (found at a report): over, as if given back.
    if (lease?.returned) {
      this.leases.delete(account.id);
      lease = undefined;
    }
    // Never past its own expiry: the fence for a process that thaws after its lease was reclaimed.
    if (lease && lease.expiresAt > now && lease.available >= estimate && lease.available > 0) {
      lease.available = subtractUsd(lease.available, estimate);
      lease.lastUsedAt = now;
      lease.lastEstimate = estimate;
      lease.account = account;
      if (lease.available <= lease.size * RENEW_AT && !lease.renewing) this.renew(lease);
      writeRecordLater(lease);
      return { amount: estimate, lease };
    }
    // One lease write per counter at a time: requests that arrive meanwhile wait for it, then take from it.
    const waiting = lease?.renewing ?? this.acquiring.get(account.id);
    if (waiting) {
      await waiting;
      return this.reserve(account, estimate);
    }
    const shares = this.sharesFor(account, estimate, lease);
    if (shares >= 2) {
      const acquired = this.acquire(account, estimate, shares, lease, now);
      this.acquiring.set(account.id, acquired);
      try {
        const reserved = await acquired;
        if (reserved) return reserved;
      } finally {
        this.acquiring.delete(account.id);
      }
    }
    // Near the limit: one exact reservation per request, as without leases.
    const count = await account.takeExact(estimate);
    if (count === undefined) return undefined;
    this.seen.set(account.id, count);
    return { amount: estimate };
  }

  /** Replaces a leased reservation with real usage: `delta` = used − reserved, settled in memory while the lease lives. */
  settle(lease: AmountLease, delta: number): void {
    if (delta === 0) return;
    if (lease.returned) {
      chargeLater(lease.account.charge(delta), lease.account.deps, delta > 0);
      return;
    }
    const available = subtractUsd(lease.available, delta);
    if (available >= 0) {
      lease.available = available;
      return;
    }
    // Used more than its lease holds: the difference is written at once, so the store never lags behind.
    lease.available = 0;
    chargeLater(lease.account.charge(-available), lease.account.deps, true);
  }

  /** Gives every lease's unused amount back and writes what is buffered (shutdown; tests that read counters). */
  async returnAll(): Promise<void> {
    const leases = [...this.leases.values()];
    await Promise.allSettled(leases.map((lease) => lease.renewing));
    for (const lease of leases) this.giveBack(lease);
    this.seen.clear();
    this.stopSweeper();
    await flushCharges();
  }

  /**
   * Gives back the leases that expired or idled; renews those in use shortly before they expire; and for those in
   * use whose rate window ends shortly, takes the next window's lease, so a window's first requests do not each
   * wait for its first write (the AWS-shaped bench saw 3 round trips on the minute under 3 policies).
   */
  sweep(): void {
    const now = this.now();
    const idleMs = settings().GW_QUOTA_LEASE_IDLE_MS;
    for (const lease of [...this.leases.values()]) {
      if (lease.renewing) continue;
      if (lease.expiresAt <= now || now - lease.lastUsedAt >= idleMs) {
        this.giveBack(lease);
        continue;
      }
      if (lease.expiresAt - now <= SWEEP_MS * 2 && lease.account.windowEnd > lease.expiresAt) this.renew(lease);
      if (lease.account.windowEnd - now <= SWEEP_MS * 2) this.leaseNextWindow(lease, now);
    }
    if (this.leases.size === 0) this.stopSweeper();
  }

  /**
   * Takes a lease on the next rate window's counter, sized like the current one, before the current window ends.
   * Requests of the new window find it (or wait for its one write, like any lease being taken). Unused, it goes back
   * at idle like any other.
   */
  private leaseNextWindow(lease: AmountLease, now: number): void {
    const next = lease.account.nextWindow?.();
    if (!next || this.leases.has(next.id) || this.acquiring.has(next.id)) return;
    const estimate = lease.lastEstimate;
    const shares = Math.min(Math.floor(next.limit / (LEASE_SHARE * estimate)), Math.max(lease.estimates, FIRST_LEASE), MAX_LEASE);
    if (!(shares >= 2)) return;
    const taking = this.acquire(next, estimate, shares, undefined, now)
      .then((reserved) => {
        // Nobody asked for it yet: the estimate set aside for a caller goes back into the lease.
        if (reserved?.lease) reserved.lease.available = sumUsd([reserved.lease.available, estimate]);
        return undefined;
      })
      .catch((error: unknown) => {
        logger.warn('could not lease the next rate window ahead; its first request takes the lease', { error: error as Error });
        return undefined;
      })
      .finally(() => this.acquiring.delete(next.id));
    this.acquiring.set(next.id, taking);
  }

  private sharesFor(account: AmountAccount, estimate: number, lease: AmountLease | undefined): number {
    if (estimate <= 0) return 0;
    const known = Math.max(account.known, lease?.count ?? this.seen.get(account.id) ?? 0);
    const left = account.limit - known;
    return Math.min(Math.floor(left / (LEASE_SHARE * estimate)), lease ? lease.estimates * 2 : FIRST_LEASE, MAX_LEASE);
  }

  private async acquire(account: AmountAccount, estimate: number, shares: number, lease: AmountLease | undefined, now: number): Promise<Reserved | undefined> {
    const amount = times(estimate, shares);
    const expiresAt = this.expiryOf(account, now);
    // A lease still held (used up, or past its expiry before the sweep gave it back) is renewed on its record.
    const record = lease?.record ?? `${PROCESS_TAG}${(leasesTaken++).toString(36)}`;
    const count = await account.takeIfFits(amount, { id: record, expiresAt, renewal: lease !== undefined });
    if (count === undefined) {
      // Others hold what is left: exact reservations until a write shows room again.
      if (lease) lease.count = account.limit;
      this.seen.set(account.id, account.limit);
      return undefined;
    }
    // A lease still holding less than one estimate keeps it: the new share is added to it.
    const held: AmountLease = lease ?? { account, record, held: 0, available: 0, estimates: 0, size: 0, lastEstimate: estimate, expiresAt: 0, lastUsedAt: now, count, returned: false };
    held.available = sumUsd([held.available, subtractUsd(amount, estimate)]);
    held.held = sumUsd([held.held, amount]);
    Object.assign(held, { account, estimates: shares, size: amount, lastEstimate: estimate, count, lastUsedAt: now, expiresAt });
    this.hold(held);
    writeRecordLater(held);
    return { amount: estimate, lease: held };
  }

  private renew(lease: AmountLease): void {
    const shares = Math.min(Math.floor((lease.account.limit - lease.count) / (LEASE_SHARE * lease.lastEstimate)), lease.estimates * 2, MAX_LEASE);
    // Near the limit there is nothing to renew: requests reserve exactly once this lease is used up.
    if (!(shares >= 2)) return;
    const renewal = (async () => {
      try {
        await Promise.resolve();
        const amount = times(lease.lastEstimate, shares);
        const expiresAt = this.expiryOf(lease.account, this.now());
        // Only while its record exists: a lease reclaimed meanwhile is not revived.
        const count = await lease.account.takeIfFits(amount, { id: lease.record, expiresAt, renewal: true });
        if (count === undefined) {
          lease.count = lease.account.limit;
          return;
        }
        lease.count = count;
        lease.held = sumUsd([lease.held, amount]);
        // Given back (shutdown, sweep) while the write was on its way: the new share goes back with the rest.
        if (lease.returned) {
          lease.unused = sumUsd([lease.unused ?? 0, amount]);
          return;
        }
        lease.available = sumUsd([lease.available, amount]);
        Object.assign(lease, { estimates: shares, size: amount, expiresAt });
      } catch (error) {
        logger.warn('could not renew an amount lease; requests reserve in the store', { error: error as Error });
      } finally {
        lease.renewing = undefined;
      }
    })();
    lease.renewing = renewal;
  }

  private giveBack(lease: AmountLease): void {
    if (this.leases.get(lease.account.id) === lease) this.leases.delete(lease.account.id);
    if (lease.returned) return;
    lease.returned = true;
    lease.unused = lease.available;
    lease.available = 0;
    // After its window a counter is not read any more (the next window is another counter): nothing to give
    // back, and its record goes with the item's TTL. Else the next flush gives it back and removes the record.
    if (lease.account.windowEnd > this.now()) writeRecordLater(lease, true);
    else lease.closed = true;
  }

  private hold(lease: AmountLease): void {
    this.leases.set(lease.account.id, lease);
    if (!this.sweeper) {
      this.sweeper = setInterval(() => this.sweep(), Math.min(SWEEP_MS, settings().GW_QUOTA_LEASE_IDLE_MS));
      this.sweeper.unref();
    }
  }

  private stopSweeper(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
  }

  private expiryOf(account: AmountAccount, now: number): number {
    return Math.min(account.windowEnd, now + settings().GW_QUOTA_LEASE_TTL_MS);
  }
}

/** `estimate × shares`, exact for USD amounts (whole token counts stay whole). */
function times(estimate: number, shares: number): number {
  return unitsToUsd(usdToUnits(estimate) * BigInt(shares));
}

let table: AmountLeases | undefined;

/** This process's amount leases. */
export function amountLeases(): AmountLeases {
  table ??= new AmountLeases();
  return table;
}

const exactReservations = new AsyncLocalStorage<true>();

/**
 * Runs `work` with every reservation it makes written to the store exactly, none taken from this process's
 * leases: for a reservation that outlives the request that made it (a batch's, kept with the batch record until
 * its results settle it, possibly in another process), where a lease share would only sit unused and show as spent.
 */
export function withExactReservations<T>(work: () => Promise<T>): Promise<T> {
  return exactReservations.run(true, work);
}

/** True when leases may serve this reservation: GW_QUOTA_LEASES is on and the caller did not ask for exact ones. */
export function leasesServe(): boolean {
  return settings().GW_QUOTA_LEASES && exactReservations.getStore() === undefined;
}

/** Reserves an estimate: leased when leases serve, else one exact conditional write. Undefined: refused. */
export async function reserveAmount(account: AmountAccount, estimate: number): Promise<Reserved | undefined> {
  if (!leasesServe()) {
    const count = await account.takeExact(estimate);
    return count === undefined ? undefined : { amount: estimate };
  }
  return amountLeases().reserve(account, estimate);
}

/**
 * A limit counter (CounterRepository) as a lease account. `fitsExactly`: the exact reservation must fit whole
 * (GW_TOKEN_LIMIT_RESERVATION), else it is admitted while the counter is below the limit.
 */
export function counterAccount(key: CounterKey, limit: number, deps: EnforcementDependencies, fitsExactly = false): AmountAccount {
  const records: LeaseRecords = {
    name: key.pk,
    merges: true,
    write: (op, charge) => deps.counters.writeLease(key, op, charge),
    read: () => deps.counters.leaseRecords(key),
    reclaim: (record) => deps.counters.reclaimLease(key, record),
  };
  return {
    id: key.pk,
    windowEnd: key.windowEnd,
    limit,
    known: 0,
    takeIfFits: (amount, lease) => takeReclaiming(() => deps.counters.incrementIfFits(key, amount, limit, lease), records, deps.now()),
    takeExact: (amount) => takeReclaiming(() => (fitsExactly ? deps.counters.incrementIfFits(key, amount, limit) : deps.counters.incrementBelow(key, amount, limit)), records, deps.now()),
    charge: (amount) => ({ kind: 'counter', key, amount }),
    nextWindow: () => {
      const cut = key.pk.lastIndexOf('#') + 1;
      const next = nextRateWindow(key.pk.slice(cut));
      return next ? counterAccount({ pk: `${key.pk.slice(0, cut)}${next.id}`, windowEnd: next.end }, limit, deps, fitsExactly) : undefined;
    },
    records,
    deps,
  };
}

/** The account id of a workspace budget's gate in one period (also the key admission files its lease under). */
export const BUDGET_ACCOUNT = 'budget';

/** A workspace budget with a limit, its gate item as a lease account; every write is noted in the snapshot. */
export function budgetAccount(budget: WorkspaceBudget, deps: EnforcementDependencies): AmountAccount {
  const noted = (amount: number, gate: number | undefined) => {
    if (gate !== undefined) deps.snapshots.noteBudgetCharge({ workspaceId: budget.workspaceId, epoch: budget.epoch, amount, gate });
    return gate;
  };
  const headroom = subtractUsd(budget.creditLimit ?? 0, budget.settledUsage);
  const gate = deps.budgets.gateLeases;
  const records: LeaseRecords = {
    name: `budget gate of workspace ${budget.workspaceId} (${budget.epoch})`,
    // A charge to the budget may go to a shard (negative amounts): the gate's record writes go alone.
    merges: false,
    write: async (op) => {
      const value = await gate.writeLease(budget.workspaceId, budget.epoch, op);
      if (value !== undefined && op.kind === 'give-back') noted(-op.unused, value);
      return value !== undefined;
    },
    read: () => gate.leaseRecords(budget.workspaceId, budget.epoch),
    reclaim: (record) => gate.reclaimLease(budget.workspaceId, budget.epoch, record),
  };
  return {
    id: `${BUDGET_ACCOUNT}#${budget.workspaceId}#${budget.epoch}`,
    windowEnd: Number.POSITIVE_INFINITY,
    limit: headroom,
    known: subtractUsd(budget.currentUsage, budget.settledUsage),
    takeIfFits: async (amount, lease) => noted(amount, await takeReclaiming(() => deps.budgets.reserve(budget, amount, true, lease), records, deps.now())),
    takeExact: async (amount) => noted(amount, await takeReclaiming(() => deps.budgets.reserve(budget, amount), records, deps.now())),
    charge: (amount) => ({ kind: 'budget', workspaceId: budget.workspaceId, amount, period: { epoch: budget.epoch, gated: true } }),
    records,
    deps,
  };
}

/** Gives back every amount lease and writes the buffered charges: at shutdown, and before tests read counters. */
export async function returnAllAmountLeases(): Promise<void> {
  await table?.returnAll();
  await flushCharges();
}
