import { LRUCache } from 'lru-cache';

/** What one slot of a bucket held when a lookup last read it. */
export interface ObservedSlot {
  key: string;
  expiresAt: number;
  /** The slot's bytes as read: a conditional write or delete expects exactly these. */
  record: Uint8Array;
}

/** Where an entry was seen: a bucket, one of its slots, and the bytes that slot held. */
export interface SlotLocation {
  pk: string;
  slot: number;
  record: Uint8Array;
}

export type ObservedBucket = Array<ObservedSlot | undefined>;

/**
 * What this process saw of buckets on its recent lookups, so an insert can choose a slot (the same entry's,
 * an empty or expired one, else the one expiring soonest) without reading the bucket again, and an eviction
 * knows where an entry sits. It is a hint: a slot another process changed meanwhile fails the insert's
 * condition and is skipped. Bounded, and short-lived so hints do not go stale.
 */
export class SlotMemory {
  private readonly buckets = new LRUCache<string, ObservedBucket>({ max: 20_000, ttl: 60_000 });
  private readonly locations = new LRUCache<string, SlotLocation[]>({ max: 20_000, ttl: 60_000 });

  bucket(pk: string): ObservedBucket | undefined {
    return this.buckets.get(pk);
  }

  rememberBucket(pk: string, slots: ObservedBucket): void {
    this.buckets.set(pk, slots);
  }

  forgetBucket(pk: string): void {
    this.buckets.delete(pk);
  }

  rememberLocation(scopeKey: string, key: string, location: SlotLocation): void {
    const id = `${scopeKey}\u0000${key}`;
    const known = this.locations.get(id) ?? [];
    if (!known.some((entry) => entry.pk === location.pk && entry.slot === location.slot)) this.locations.set(id, [...known, location]);
  }

  /** Where `key` was last seen, and forgets it. */
  takeLocations(scopeKey: string, key: string): SlotLocation[] {
    const id = `${scopeKey}\u0000${key}`;
    const known = this.locations.get(id) ?? [];
    this.locations.delete(id);
    return known;
  }
}

/** The slot an insert writes: the entry's own, else an empty or expired one, else the soonest to expire. */
export function chooseSlot(slots: ObservedBucket, key: string, now: number): number {
  const own = slots.findIndex((slot) => slot?.key === key);
  if (own >= 0) return own;
  const free = slots.findIndex((slot) => !slot || slot.expiresAt <= now);
  if (free >= 0) return free;
  let oldest = 0;
  for (let i = 1; i < slots.length; i++) if (slots[i]!.expiresAt < slots[oldest]!.expiresAt) oldest = i;
  return oldest;
}
