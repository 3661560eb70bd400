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
 */

/** How long a charge waits in memory at most (while the process runs). */
const FLUSH_MS = 1_000;

interface Pending {
  charge: Charge;
  deps: EnforcementDependencies;
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
  if (!registered) {
    registered = true;
    onDrain(flushCharges);
  }
  const name = nameOf(charge);
  const held = pending.get(name);
  // USD amounts are summed exactly ($0.1 + $0.2 = $0.3); token counts are whole numbers either way.
  if (held) held.charge = merged(held.charge, { amount: sumUsd([held.charge.amount, charge.amount]) });
  else pending.set(name, { charge, deps });
  if (urgent) flushSoon(0);
  else flushSoon(FLUSH_MS);
}

function flushSoon(delayMs: number): void {
  if (timer && delayMs > 0) return;
  if (timer) clearTimeout(timer);
  timer = setTimeout(() => void flushCharges().catch((error: unknown) => logger.warn('charge flush failed', { error: error as Error })), delayMs);
  timer.unref();
}

/** Writes every summed charge now: one write per counter. Resolves once this and earlier flushes are done. */
export function flushCharges(): Promise<void> {
  if (timer) clearTimeout(timer);
  timer = undefined;
  const batch = [...pending.values()].filter((entry) => entry.charge.amount !== 0);
  pending.clear();
  const previous = flushing;
  flushing = (async () => {
    await previous.catch(() => undefined);
    if (batch.length === 0) return;
    // Grouped by their dependencies (one set in service; tests may inject their own).
    const byDeps = new Map<EnforcementDependencies, Charge[]>();
    for (const { charge, deps } of batch) byDeps.set(deps, [...(byDeps.get(deps) ?? []), charge]);
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

/** Charges waiting in memory (for tests and health). */
export function bufferedCharges(): number {
  return pending.size;
}
