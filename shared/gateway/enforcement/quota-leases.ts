import type { CounterKey } from '../../store/counter-repository.js';
import { amountLeases, counterAccount, leasesServe, returnAllAmountLeases } from './amount-leases.js';
import type { EnforcementDependencies } from './types.js';

/**
 * Quota leases (issue #48) of request counts: a request is an amount of 1 on an amount lease (amount-leases.ts),
 * so a process takes a share of a `requests` counter's remaining quota with one conditional `ADD` (the whole share
 * must fit under the limit) and admits requests against it from memory. Shares shrink with what is left (at most
 * 1/8 of it); below two units' share a process takes one exact slot per request (`count < limit`), as without
 * leases. Unused units go back when a lease expires, idles, and at shutdown. A process that crashes holding one
 * costs at most its unused units until the lease's expiry and a grace, when a refusal reclaims them.
 */

/**
 * One request slot of a `requests` limit: leased when GW_QUOTA_LEASES is on, else one exact conditional write.
 * Returns whether it was taken. Given back (a refusal by another limit, a request no provider answered) with one
 * write to the counter, as a slot taken without a lease.
 */
export async function takeRequestSlot(deps: EnforcementDependencies, key: CounterKey, limit: number): Promise<boolean> {
  // Without leases: one exact slot, which (refused) still gives back the leases of processes that stopped.
  if (!leasesServe()) return (await counterAccount(key, limit, deps).takeExact(1)) !== undefined;
  return (await amountLeases().reserve(counterAccount(key, limit, deps), 1)) !== undefined;
}

/**
 * Gives back every lease this process holds, of request counts and of amounts, and writes the charges it batched
 * (charge-buffer.ts): at shutdown, and before tests read counters.
 */
export async function returnAllQuotaLeases(): Promise<void> {
  await returnAllAmountLeases();
}
