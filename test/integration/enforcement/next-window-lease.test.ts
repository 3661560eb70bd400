import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AmountLeases, counterAccount } from '../../../shared/gateway/enforcement/amount-leases.js';
import { flushCharges } from '../../../shared/gateway/enforcement/charge-buffer.js';
import { EnforcementSnapshots } from '../../../shared/gateway/enforcement/snapshot-cache.js';
import type { EnforcementDependencies } from '../../../shared/gateway/enforcement/types.js';
import { rateWindow } from '../../../shared/gateway/enforcement/windows.js';
import { CounterRepository, counterKey, type CounterKey, type IncrementResult } from '../../../shared/store/counter-repository.js';
import type { LeaseTake } from '../../../shared/store/lease-records.js';
import { WorkspaceBudgetRepository } from '../../../shared/store/workspace-budget-repository.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { eventually } from './enforcement-support.js';

// Issue #48: a rate window's first requests each waited for a new lease's write (the AWS-shaped bench saw 3 store
// round trips before the first byte on the minute, under 3 policies: one new counter each). A process whose lease is
// in use takes the next window's lease before the current window ends, so steady traffic never waits at a boundary.

/** Counts the conditional takes that reach the store: what a request would wait for. */
class CountedCounters extends CounterRepository {
  takes = 0;
  override incrementIfFits(key: CounterKey, amount: number, limit: number, lease?: LeaseTake): Promise<IncrementResult> {
    this.takes++;
    return super.incrementIfFits(key, amount, limit, lease);
  }
  override incrementBelow(key: CounterKey, amount: number, limit: number): Promise<IncrementResult> {
    this.takes++;
    return super.incrementBelow(key, amount, limit);
  }
}

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startTestGateway();
}, 120_000);
afterAll(() => gateway?.close());

/** A lease holder on the real store with a clock of the test's own, its store takes counted. */
function holderAt(start: number) {
  const time = { now: start };
  const counters = new CountedCounters();
  const deps: EnforcementDependencies = { counters, budgets: new WorkspaceBudgetRepository(), snapshots: new EnforcementSnapshots(async () => ({ policies: [] })), now: () => time.now };
  return { time, counters, deps, holder: new AmountLeases(() => time.now), policy: `next-window-${randomUUID()}` };
}

describe('a lease of the next rate window', () => {
  it('is taken before the window ends while its lease is in use, so the new window\'s first request makes no store call (a new window waits for its first lease)', async () => {
    const window = rateWindow('rpm', Date.now());
    const { time, counters, deps, holder, policy } = holderAt(window.end - 1_500);
    const keyOf = (of: { id: string; end: number }): CounterKey => ({ pk: counterKey(policy, 'rate', 'g', of.id), windowEnd: of.end });
    const current = counterAccount(keyOf(window), 1_000, deps);

    expect(await holder.reserve(current, 1)).toMatchObject({ lease: expect.anything() });
    expect(counters.takes).toBe(1);

    // The sweep, 1.5 s before the minute: the next minute's lease is taken in the background.
    holder.sweep();
    const nextWindow = rateWindow('rpm', window.end);
    const next = counterAccount(keyOf(nextWindow), 1_000, deps);
    await eventually(async () => ((await counters.read(keyOf(nextWindow), nextWindow.start)) > 0 ? true : undefined), 'the next window\'s lease');
    const takesBefore = counters.takes;

    // The new minute: its first requests reserve from that lease (4 units, like the current one), with no store call
    // of their own (two of them: a third would leave a quarter and renew, in the background).
    time.now = nextWindow.start + 10;
    for (let request = 0; request < 2; request++) expect(await holder.reserve(next, 1)).toMatchObject({ lease: expect.anything() });
    expect(counters.takes).toBe(takesBefore);

    // Given back, the new window's counter holds what was used in it (the ended window's is read by nobody: its unused
    // part is not written back).
    await holder.returnAll();
    await flushCharges();
    expect(await counters.read(keyOf(nextWindow), nextWindow.start)).toBe(2);
  });

  it('is not taken for a lease nobody uses any more, nor for a usage limit\'s period', async () => {
    const window = rateWindow('rpm', Date.now());
    const { time, counters, deps, holder, policy } = holderAt(window.end - 30_000);
    const credit: CounterKey = { pk: counterKey(policy, 'credit', 'g', 'all'), windowEnd: Number.POSITIVE_INFINITY };
    expect(await holder.reserve(counterAccount(credit, 1_000, deps), 1)).toMatchObject({ lease: expect.anything() });
    const rate: CounterKey = { pk: counterKey(policy, 'rate', 'g', window.id), windowEnd: window.end };
    expect(await holder.reserve(counterAccount(rate, 1_000, deps), 1)).toMatchObject({ lease: expect.anything() });
    // Idle past GW_QUOTA_LEASE_IDLE_MS (15 s) when the window's end comes near: given back, nothing taken ahead.
    time.now = window.end - 1_000;
    holder.sweep();
    await holder.returnAll();
    await flushCharges();
    expect(counters.takes).toBe(2);
    const nextWindow = rateWindow('rpm', window.end);
    expect(await counters.read({ pk: counterKey(policy, 'rate', 'g', nextWindow.id), windowEnd: nextWindow.end }, nextWindow.start)).toBe(0);
  });
});
