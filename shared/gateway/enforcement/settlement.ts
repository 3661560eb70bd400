import { costOfUsage, firstUnpricedCharge, mediaUnits, subtractUsd, tokenCounts, unpricedCost, unpricedMediaCost } from '../../observability/pricing/index.js';
import type { RequestLogger } from '../../observability/logger.js';
import { settings } from '../../settings.js';
import { defaultEnforcementDependencies, type Admission, type EnforcementDependencies } from './admission.js';
import { amountLeases, BUDGET_ACCOUNT } from './amount-leases.js';
import { chargeLater } from './charge-buffer.js';
import { applyCharges, forgetReservation, journalCharges, recordReservation, type Charge } from './charge-journal.js';

export interface SettledUsage {
  usage?: Record<string, unknown>;
  /** Served from gw's response cache: nothing was used at a provider, so nothing is charged. */
  cacheHit: boolean;
  provider?: string;
  model?: string;
  /** Already priced by the caller (a batch's results at the provider's batch price): used instead of the standard price. */
  cost?: number | null;
}

/** How long past the longest possible upstream call a reservation waits before a replay gives it back. */
const RESERVATION_SLACK_MS = 15 * 60_000;

/**
 * Right after admission: stores what settlement would have to give back, so the reservations of a request
 * whose process dies are returned once they expire (charge-journal.ts). Kept on the admission so settlement
 * deletes the record only after it was written.
 */
export function rememberReservations(admission: Admission | undefined, now: number, log: RequestLogger): void {
  if (!admission?.reserves) return;
  const expiresAt = now + settings().GW_UPSTREAM_MAX_DURATION_MS + RESERVATION_SLACK_MS;
  // Only what was reserved in the store: a leased reservation is part of its lease (amount-leases.ts).
  const inStore = giveBackCharges(admission).filter((charge) => leaseOf(admission, charge) === undefined);
  admission.reservationRecord = recordReservation(admission.requestId, expiresAt, inStore).catch((error: unknown) => {
    log.warn('could not record a reservation (it is still settled normally)', { error: error as Error });
  });
}

/**
 * After a response (or the end of its stream): prices it and replaces every reservation with what it really
 * used. Returns the cost for the request log: a number in USD, or null when the model has no price. Settles an
 * admission once, however often it is called (the response path and the log path share the result). Never
 * throws: a charge that fails goes to the charge journal and is applied by a replay.
 */
export function settleUsage(admission: Admission | undefined, settled: SettledUsage, log: RequestLogger, deps: EnforcementDependencies = defaultEnforcementDependencies()): Promise<number | null> {
  if (admission?.settlement) return admission.settlement;
  const settlement = settleOnce(admission, settled, log, deps);
  if (admission) admission.settlement = settlement;
  return settlement;
}

async function settleOnce(admission: Admission | undefined, settled: SettledUsage, log: RequestLogger, deps: EnforcementDependencies): Promise<number | null> {
  let cost: number | null = null;
  try {
    cost = settled.cacheHit ? 0 : settled.cost !== undefined ? settled.cost : await costOfUsage(settled.provider, settled.model, settled.usage);
  } catch (error) {
    log.error('could not price the response', { provider: settled.provider, model: settled.model, error: error as Error });
  }
  if (!admission?.claim()) return cost;
  const counts = settled.cacheHit ? undefined : tokenCounts(settled.usage);
  const tokens = counts?.total ?? 0;
  // What cost limits count: the price, or for a model nobody prices its tokens at the default rates
  // (pricing/unpriced.ts), as admission reserved them: an unknown price never means "no limit". The log keeps null.
  // Media units (images, characters, audio seconds) of an unpriced model count at the default media rates too.
  const media = settled.cacheHit || cost !== null ? undefined : mediaUnits(settled.usage);
  const limitCost = cost ?? (counts ? unpricedCost(counts) : 0) + unpricedMediaCost(media);
  if (cost === null && (counts || media) && firstUnpricedCharge(settled.provider, settled.model)) log.warn('unpriced model: cost limits are charged its usage at the default rates (said once per model)', { provider: settled.provider, model: settled.model, charged_usd: limitCost });
  const charges: Charge[] = [];
  // A soft check reserved nothing: its charge is batched (charge-buffer.ts), it decides nothing exactly.
  const unreserved = new Set<string>();
  for (const counter of admission.tokenCounters) {
    // With a reservation, only the difference between the real tokens and the reserved ones is added.
    charges.push({ kind: 'counter', key: counter.key, amount: tokens - counter.reserved });
    if (counter.reserved === 0) unreserved.add(counter.key.pk);
  }
  for (const { key, measure, reserved } of admission.creditCounters) {
    charges.push({ kind: 'counter', key, amount: measure === 'tokens' ? tokens - reserved : subtractUsd(limitCost, reserved) });
    if (reserved === 0) unreserved.add(key.pk);
  }
  if (admission.chargesWorkspace) {
    // The budget's own numbers decide exhaustion, so this process refuses as soon as its charge exhausts it.
    charges.push({ kind: 'budget', workspaceId: admission.workspaceId, amount: subtractUsd(limitCost, admission.budgetReserved), period: admission.budgetPeriod });
  }
  await finish(admission, charges, log, deps, unreserved);
  return cost;
}

/**
 * A request that ended without a response: every reservation is given back; a workspace provider's request
 * slots too (its limits count the calls it served); policies' request slots when no provider answered (gw
 * refused it itself: bad input, unknown virtual key, a config without a match).
 */
export async function releaseAdmission(admission: Admission | undefined, reachedProvider: boolean, log: RequestLogger, deps: EnforcementDependencies = defaultEnforcementDependencies()): Promise<void> {
  if (!admission?.claim()) return;
  const charges = giveBackCharges(admission);
  for (const key of admission.providerSlots) charges.push({ kind: 'counter', key, amount: -1 });
  if (!reachedProvider) for (const key of admission.requestSlots) charges.push({ kind: 'counter', key, amount: -1 });
  await finish(admission, charges, log, deps);
}

/** The charges that undo every reservation of an admission. */
function giveBackCharges(admission: Admission): Charge[] {
  const charges: Charge[] = [];
  for (const counter of admission.tokenCounters) if (counter.reserved > 0) charges.push({ kind: 'counter', key: counter.key, amount: -counter.reserved });
  for (const counter of admission.creditCounters) if (counter.reserved > 0) charges.push({ kind: 'counter', key: counter.key, amount: -counter.reserved });
  if (admission.budgetReserved > 0) charges.push({ kind: 'budget', workspaceId: admission.workspaceId, amount: -admission.budgetReserved, period: admission.budgetPeriod });
  return charges;
}

/** The amount lease a charge's reservation came from, if any. */
function leaseOf(admission: Admission, charge: Charge) {
  return admission.leased.get(charge.kind === 'counter' ? charge.key.pk : BUDGET_ACCOUNT);
}

/**
 * Applies the non-zero charges: a leased reservation's difference in its lease (memory); the charges of a budget
 * without a limit and of soft checks batched (one write per counter per flush, charge-buffer.ts); the rest — exact
 * reservations near a limit — at once, as they decide the next admissions. Journals those that fail, then drops
 * the reservation record.
 */
async function finish(admission: Admission, charges: Charge[], log: RequestLogger, deps: EnforcementDependencies, unreserved: ReadonlySet<string> = new Set()): Promise<void> {
  const now: Charge[] = [];
  for (const charge of charges) {
    if (charge.amount === 0) continue;
    const lease = leaseOf(admission, charge);
    if (lease) amountLeases().settle(lease, charge.amount);
    else if (charge.kind === 'budget' ? charge.period?.gated === false : unreserved.has(charge.key.pk)) chargeLater(charge, deps);
    else now.push(charge);
  }
  const failed = await applyCharges(now, deps);
  if (failed.length > 0) {
    log.error('could not charge usage to a policy or budget; journaled for a replay', { failed: failed.length });
    await journalCharges(failed);
  }
  if (admission.reservationRecord) {
    await admission.reservationRecord;
    await forgetReservation(admission.requestId).catch((error: unknown) => {
      // Left behind, the record would give the reservation back a second time when it expires.
      log.error('could not drop a settled reservation record', { error: error as Error });
    });
  }
}
