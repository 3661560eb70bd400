import { onDrain } from '../../observability/background.js';
import { logger } from '../../observability/logger.js';
import { sumUsd } from '../../observability/pricing/usd.js';
import { merged } from '../../merged.js';
import { applyCharges, journalCharges, type Charge } from './charge-journal.js';
import type { EnforcementDependencies } from './types.js';

/**
 * Charges without a write per request (issue #44): amounts that need not reach the store before the next
 * admission — what a leased reservation's settlement leaves over once its lease went back, the unused part of a
 * lease given back, the charges of a budget without a limit and of soft checks — are summed in memory per counter
 * and written as one `ADD` per counter per flush. A flush runs on a short timer, when a lease is given back or
 * goes into debt (`flushSoon`), at shutdown (`flushCharges`, from returnAllQuotaLeases) and at the end of a
 * classic Lambda invocation (the background drain calls every `onDrain` flusher), so nothing waits in a frozen
 * environment. A write that fails goes to the charge journal for a replay, as a per-request charge would.
 * Lease records (lease-reports.ts) are written here too: a lease's report of what it used and its give-back run in
 * the flush, merged into the same write as the counter's charge where the counter allows it.
 */

/** How long a charge waits in memory at most (while the process runs). */
const FLUSH_MS = 1_000;

/** A lease record's write, run by a flush: given the counter's pending charge, returns what of it is left to write. */
export interface RecordWork {
  run(charge: Charge | undefined): Promise<Charge | undefined>;
}

interface Pending {
  charge?: Charge;
  deps: EnforcementDependencies;
  work: Set<RecordWork>;
}

const pending = new Map<string, Pending>();
let timer: ReturnType<typeof setTimeout> | undefined;
let flushing: Promise<void> = Promise.resolve();
let registered = false;

/** The counter a charge goes to: charges with the same name are summed into one write. */
function nameOf(charge: Charge): string {
  if (charge.kind === 'counter') return `counter#${charge.key.pk}`;
  return `budget#${charge.workspaceId}#${charge.period ? `${charge.period.epoch}#${charge.period.gated}` : 'current'}`;
}

/** Adds a charge to what the next flush writes. `urgent`: flushed at once (a debt over a lease, a give-back). */
export function chargeLater(charge: Charge, deps: EnforcementDependencies, urgent = false): void {
  if (charge.amount === 0) return;
  const entry = entryOf(charge, deps);
  entry.charge = plus(entry.charge, charge);
  flushSoon(urgent ? 0 : FLUSH_MS);
}

/** Has the next flush run a lease record's write on `counter`'s item (a charge of it names which; its amount is ignored). */
export function recordLater(counter: Charge, deps: EnforcementDependencies, work: RecordWork, urgent = false): void {
  entryOf(counter, deps).work.add(work);
  flushSoon(urgent ? 0 : FLUSH_MS);
}

/** Two charges of one counter summed; USD amounts exactly ($0.1 + $0.2 = $0.3), token counts are whole either way. */
export function plus(charge: Charge | undefined, more: Charge): Charge {
  return charge ? merged(charge, { amount: sumUsd([charge.amount, more.amount]) }) : more;
}

function entryOf(charge: Charge, deps: EnforcementDependencies): Pending {
  if (!registered) {
    registered = true;
    onDrain(flushCharges);
  }
  const name = nameOf(charge);
  let entry = pending.get(name);
  if (!entry) {
    entry = { deps, work: new Set() };
    pending.set(name, entry);
  }
  return entry;
}

function flushSoon(delayMs: number): void {
  if (timer && delayMs > 0) return;
  if (timer) clearTimeout(timer);
  timer = setTimeout(() => void flushCharges().catch((error: unknown) => logger.warn('charge flush failed', { error: error as Error })), delayMs);
  timer.unref();
}

/**
 * Writes every summed charge and lease record now: one write per counter. Resolves once this and earlier flushes
 * are done. The batch is taken when the earlier flushes are done, so record writes never overtake each other.
 */
export function flushCharges(): Promise<void> {
  if (timer) clearTimeout(timer);
  timer = undefined;
  const previous = flushing;
  flushing = (async () => {
    await previous.catch(() => undefined);
    const batch = [...pending.values()];
    pending.clear();
    // Record writes first, each given its counter's charge to carry; what they leave is written as before.
    const left = await Promise.all(batch.map(async (entry) => ({ deps: entry.deps, charge: await runRecordWork(entry) })));
    const due = left.filter((entry): entry is { deps: EnforcementDependencies; charge: Charge } => entry.charge !== undefined && entry.charge.amount !== 0);
    if (due.length === 0) return;
    // Grouped by their dependencies (one set in service; tests may inject their own).
    const byDeps = new Map<EnforcementDependencies, Charge[]>();
    for (const { charge, deps } of due) byDeps.set(deps, [...(byDeps.get(deps) ?? []), charge]);
    for (const [deps, charges] of byDeps) {
      const failed = await applyCharges(charges, deps);
      if (failed.length > 0) {
        logger.error('could not write batched charges; journaled for a replay', { failed: failed.length });
        await journalCharges(failed);
      }
    }
  })();
  return flushing;
}

async function runRecordWork(entry: Pending): Promise<Charge | undefined> {
  let charge = entry.charge?.amount === 0 ? undefined : entry.charge;
  for (const work of entry.work) {
    try {
      charge = await work.run(charge);
    } catch (error) {
      logger.warn('a lease record write failed', { error: error as Error });
    }
  }
  return charge;
}

/** Charges waiting in memory (for tests and health). */
export function bufferedCharges(): number {
  return pending.size;
}
