import { logger } from '../../observability/logger.js';
import { sumUsd } from '../../observability/pricing/usd.js';
import { settings } from '../../settings.js';
import { leaseRecordsOf, type LeaseRecord, type Taken } from '../../store/lease-records.js';
import type { LeaseRecords } from './types.js';

/**
 * Reclaiming the leases of processes that died holding them (issue #48). A lease is recorded on its counter item
 * (shared/store/lease-records.ts); its holder reports what it used with its batched charges and removes the record
 * when it gives the rest back. A record still there well past its expiry belongs to a process that stopped (killed,
 * out of memory, a classic Lambda environment reclaimed frozen): whoever is refused by the counter gives that
 * remainder back and tries once more. Only refusals look, so steady traffic pays nothing for this.
 *
 * The grace (twice the lease TTL) keeps a live holder safe from clock skew and from settlements still on their
 * way; the reclaim write is conditional on the record being exactly as read, so a holder that reported or renewed
 * meanwhile keeps its lease, and a holder that finds its record gone charges back what it used (lease-reports.ts).
 */

/** How long past its expiry a lease record is left to its holder. */
export function reclaimGraceMs(): number {
  return 2 * settings().GW_QUOTA_LEASE_TTL_MS;
}

/** True when a record's holder is past its lease by more than the grace: it has stopped, or will never use it again. */
export function abandoned(record: LeaseRecord, now: number): boolean {
  return record.expiresAt < now - reclaimGraceMs();
}

/**
 * Gives back every abandoned lease record of a counter (`records`: as a refusal returned them; read when it did
 * not). Returns how many were abandoned and the amount this call gave back (a concurrent caller may have given back
 * some first); each give-back is logged, since a crash must not pass silently.
 */
export async function reclaimAbandoned(counter: Pick<LeaseRecords, 'name' | 'read' | 'reclaim'>, now: number, records?: LeaseRecord[]): Promise<{ abandoned: number; given: number }> {
  const found = (records ?? (await counter.read())).filter((record) => abandoned(record, now));
  const given: number[] = [];
  for (const record of found) {
    if (!(await counter.reclaim(record))) continue;
    given.push(record.held);
    logger.warn('gave back the lease of a process that stopped holding it (its unreported share)', {
      counter: counter.name,
      lease: record.id,
      amount: record.held,
      expired_at: new Date(record.expiresAt).toISOString(),
    });
  }
  return { abandoned: found.length, given: sumUsd(given) };
}

/**
 * A conditional take that, when refused, gives back the counter's abandoned leases and tries once more if it found
 * any: given back by this call or by a concurrent one (whose reclaim made this one's fail), the room is there now.
 * The store's new value, or undefined when refused.
 */
export async function takeReclaiming(take: () => Promise<Taken>, counter: LeaseRecords, now: number): Promise<number | undefined> {
  const first = await take();
  if (first.admitted) return first.count;
  if (first.hopeless) return undefined;
  const reclaimed = await reclaimAbandoned(counter, now, first.item ? leaseRecordsOf(first.item) : undefined);
  if (reclaimed.abandoned === 0) return undefined;
  const second = await take();
  return second.admitted ? second.count : undefined;
}
