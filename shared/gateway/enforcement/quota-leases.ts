import { logger } from '../../observability/logger.js';
import { settings } from '../../settings.js';
import type { CounterKey, CounterRepository } from '../../store/counter-repository.js';
import { returnAllAmountLeases } from './amount-leases.js';

/**
 * Quota leases (issue #48): a process takes a share of a request counter's remaining quota with one conditional
 * `ADD` (CounterRepository.incrementIfFits: the whole share must fit under the limit) and admits requests against
 * it from memory, so steady traffic makes no store round trip to admit. Exactness: a lease is taken only where it
 * fits, so the store's count (settled slots plus every live lease) never passes the limit; shares shrink with
 * what is left (1/LEASE_SHARE of it) and below LEASE_SHARE units left a process takes one exact slot per request
 * (`count < limit`), as without leases. Unused units go back (one `ADD -n`) when a lease expires, when it idles,
 * and at shutdown. A lease never outlives its counter's window: a process that crashes holding one loses at most
 * its unused units until that window ends.
 */

/** A lease is at most 1/LEASE_SHARE of what is left, so several processes can hold one each. */
const LEASE_SHARE = 8;
/** The first lease of a counter in a process; each lease used up within its life doubles the next, to the share. */
const FIRST_LEASE = 4;
const MAX_LEASE = 1_000;
/** How often held leases are checked for expiry, idleness and renewal. */
const SWEEP_MS = 1_000;
/** A new lease is taken in the background once the current one is down to this fraction. */
const RENEW_AT = 0.25;

interface Lease {
  key: CounterKey;
  limit: number;
  /** Units still free in memory. */
  units: number;
  /** Size of the current lease, the next one's base. */
  size: number;
  expiresAt: number;
  lastUsedAt: number;
  /** The store's count after the last write: what is left is `limit - count`. */
  count: number;
  renewing?: Promise<void>;
}

export class QuotaLeases {
  private readonly leases = new Map<string, Lease>();
  private readonly acquiring = new Map<string, Promise<boolean>>();
  private sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly counters: CounterRepository,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Takes one request slot of `key` (limit `limit`): from this process's lease when it holds one, else with one
   * store write (a new lease, or near the limit one exact slot). False when the limit is reached.
   */
  async takeSlot(key: CounterKey, limit: number): Promise<boolean> {
    const now = this.now();
    const lease = this.leases.get(key.pk);
    if (lease && lease.expiresAt > now && lease.units > 0) {
      lease.units--;
      lease.lastUsedAt = now;
      if (lease.units <= lease.size * RENEW_AT && !lease.renewing) this.renewInBackground(lease);
      return true;
    }
    // One store write per counter at a time: requests that arrive meanwhile wait for it, then take from it.
    const waiting = lease?.renewing ?? this.acquiring.get(key.pk);
    if (waiting) {
      await waiting;
      return this.takeSlot(key, limit);
    }
    const acquired = this.acquire(key, limit, lease, now);
    this.acquiring.set(key.pk, acquired);
    try {
      return await acquired;
    } finally {
      this.acquiring.delete(key.pk);
    }
  }

  /** Gives every lease's unused units back (shutdown; tests that read counters). */
  async returnAll(): Promise<void> {
    const leases = [...this.leases.values()];
    this.leases.clear();
    await Promise.all(leases.map((lease) => this.giveBack(lease)));
    this.stopSweeper();
  }

  /** Gives back the leases that expired or idled; run by a timer while any lease is held. */
  async sweep(): Promise<void> {
    const now = this.now();
    const idleMs = settings().GW_QUOTA_LEASE_IDLE_MS;
    for (const [pk, lease] of this.leases) {
      if (lease.renewing) continue;
      if (lease.expiresAt <= now || now - lease.lastUsedAt >= idleMs) {
        this.leases.delete(pk);
        await this.giveBack(lease);
      } else if (lease.expiresAt - now <= SWEEP_MS * 2 && lease.key.windowEnd > lease.expiresAt) {
        // In use and about to expire: renewed here, between requests, so none of them waits for it.
        this.renewInBackground(lease);
      }
    }
    if (this.leases.size === 0) this.stopSweeper();
  }

  private async acquire(key: CounterKey, limit: number, previous: Lease | undefined, now: number): Promise<boolean> {
    const known = previous && previous.key.windowEnd === key.windowEnd ? previous.count : 0;
    const size = leaseSize(limit - known, previous && previous.units === 0 ? previous.size * 2 : FIRST_LEASE);
    if (previous) {
      this.leases.delete(key.pk);
      if (previous.units > 0) void this.giveBack(previous);
    }
    if (size > 1) {
      const taken = await this.counters.incrementIfFits(key, size, limit);
      if (taken.admitted) {
        // One unit serves this request; the rest wait in memory.
        this.hold({ key, limit, units: size - 1, size, expiresAt: this.expiryOf(key, now), lastUsedAt: now, count: taken.count });
        return true;
      }
    }
    // Near the limit: one exact slot, as without leases.
    const exact = await this.counters.incrementBelow(key, 1, limit);
    if (exact.admitted) this.hold({ key, limit, units: 0, size: 1, expiresAt: this.expiryOf(key, now), lastUsedAt: now, count: exact.count });
    return exact.admitted;
  }

  private renewInBackground(lease: Lease): void {
    const size = leaseSize(lease.limit - lease.count, lease.size * 2);
    // Near the limit there is nothing to renew: requests take exact slots once this lease is used up.
    if (size <= 1) return;
    const renewal = (async () => {
      try {
        await Promise.resolve();
        const taken = await this.counters.incrementIfFits(lease.key, size, lease.limit);
        if (!taken.admitted) return;
        lease.units += size;
        lease.size = size;
        // Returned (shutdown, sweep) while the write was on its way: the new units go straight back.
        if (this.leases.get(lease.key.pk) !== lease) await this.giveBack(lease);
        lease.count = taken.count;
        lease.expiresAt = this.expiryOf(lease.key, this.now());
      } catch (error) {
        logger.warn('could not renew a quota lease; requests take slots from the store', { error: error as Error });
      } finally {
        // Runs after the assignment below: the body awaited at least once.
        lease.renewing = undefined;
      }
    })();
    lease.renewing = renewal;
  }

  private hold(lease: Lease): void {
    this.leases.set(lease.key.pk, lease);
    if (!this.sweeper) {
      this.sweeper = setInterval(() => void this.sweep().catch((error: unknown) => logger.warn('quota lease sweep failed', { error: error as Error })), Math.min(SWEEP_MS, settings().GW_QUOTA_LEASE_IDLE_MS));
      this.sweeper.unref();
    }
  }

  private stopSweeper(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
  }

  private expiryOf(key: CounterKey, now: number): number {
    return Math.min(key.windowEnd, now + settings().GW_QUOTA_LEASE_TTL_MS);
  }

  /** Returns a lease's unused units, unless its window has ended (the next window is another counter). */
  private async giveBack(lease: Lease): Promise<void> {
    const units = lease.units;
    lease.units = 0;
    if (units <= 0 || lease.key.windowEnd <= this.now()) return;
    try {
      await this.counters.release(lease.key, units);
    } catch (error) {
      // The units stay counted until the window ends: fewer requests pass, never more.
      logger.warn('could not give back a quota lease', { error: error as Error, units });
    }
  }
}

/** A share of what is left, capped; 1 (an exact slot) when little is left. */
function leaseSize(left: number, wanted: number): number {
  const share = Math.floor(left / LEASE_SHARE);
  return Math.max(1, Math.min(share, wanted, MAX_LEASE));
}

const tables = new WeakMap<CounterRepository, QuotaLeases>();

/** The lease table of a counter repository (one per process in service; tests inject their own repository). */
export function quotaLeasesOf(counters: CounterRepository): QuotaLeases {
  let table = tables.get(counters);
  if (!table) {
    table = new QuotaLeases(counters);
    tables.set(counters, table);
    everyTable.add(new WeakRef(table));
  }
  return table;
}

const everyTable = new Set<WeakRef<QuotaLeases>>();

/**
 * Gives back every lease this process holds, of request counts and of amounts (amount-leases.ts), and writes the
 * charges it batched (charge-buffer.ts): at shutdown, and before tests read counters.
 */
export async function returnAllQuotaLeases(): Promise<void> {
  await Promise.all([...everyTable].map((reference) => reference.deref()?.returnAll()));
  await returnAllAmountLeases();
}

/**
 * One request slot of a `requests` limit: leased when GW_QUOTA_LEASES is on, else one exact conditional write.
 * Returns whether it was taken.
 */
export async function takeRequestSlot(counters: CounterRepository, key: CounterKey, limit: number): Promise<boolean> {
  if (!settings().GW_QUOTA_LEASES) return (await counters.incrementBelow(key, 1, limit)).admitted;
  return quotaLeasesOf(counters).takeSlot(key, limit);
}
