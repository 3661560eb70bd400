import { describe, expect, it } from 'vitest';
import { Admission, type EnforcementDependencies } from '../../../shared/gateway/enforcement/admission.js';
import { EnforcementSnapshots } from '../../../shared/gateway/enforcement/snapshot-cache.js';
import { flushCharges } from '../../../shared/gateway/enforcement/charge-buffer.js';
import { releaseAdmission, settleUsage as settleOnly } from '../../../shared/gateway/enforcement/settlement.js';
import type { RequestLogger } from '../../../shared/observability/logger.js';
import type { CounterKey, CounterRepository } from '../../../shared/store/counter-repository.js';
import type { WorkspaceBudgetRepository } from '../../../shared/store/workspace-budget-repository.js';

/** Counters that record what would be written, so the arithmetic of settling is checked on its own. */
function recordingDependencies() {
  const writes: Array<{ op: 'add' | 'release'; pk: string; amount: number }> = [];
  const counters = {
    add: async (key: CounterKey, amount: number) => {
      writes.push({ op: 'add', pk: key.pk, amount });
      return amount;
    },
    release: async (key: CounterKey, amount: number) => {
      writes.push({ op: 'release', pk: key.pk, amount });
    },
  } as unknown as CounterRepository;
  const deps: EnforcementDependencies = { counters, budgets: {} as WorkspaceBudgetRepository, snapshots: new EnforcementSnapshots(async () => ({ policies: [] })), now: Date.now };
  return { writes, deps };
}

/**
 * Settles, then writes what settlement batched (charge-buffer.ts: soft checks' charges, which reserve nothing, are
 * written once per counter per flush), so every write is seen.
 */
async function settleUsage(...args: Parameters<typeof settleOnly>): Promise<number | null> {
  const cost = await settleOnly(...args);
  await flushCharges();
  return cost;
}

const warnings: string[] = [];
const log: RequestLogger = { info: () => undefined, warn: (message) => warnings.push(message), error: () => undefined };
const key = (name: string): CounterKey => ({ pk: name, windowEnd: Number.POSITIVE_INFINITY });
const usage = { prompt_tokens: 1_000_000, completion_tokens: 1_000_000, total_tokens: 2_000_000 };

function admission(): Admission {
  return new Admission({
    workspaceId: 'ws',
    requestSlots: [key('requests')],
    tokenCounters: [key('tokens-reserved'), key('tokens-plain')].map((counterKey, index) => ({ key: counterKey, reserved: index === 0 ? 300 : 0 })),
    creditCounters: [
      { key: key('credit-cost'), measure: 'cost', owner: 'credit-cost', reserved: 0 },
      { key: key('credit-tokens'), measure: 'tokens', owner: 'credit-tokens', reserved: 0 },
    ],
    chargesWorkspace: false,
  });
}

describe('settling a response', () => {
  it('adds the real tokens (minus a reservation) and the cost (gpt-4o-mini: $0.15 + $0.60 per million)', async () => {
    const { writes, deps } = recordingDependencies();
    const cost = await settleUsage(admission(), { usage, cacheHit: false, provider: 'openai', model: 'gpt-4o-mini' }, log, deps);
    expect(cost).toBeCloseTo(0.75, 10);
    expect(writes).toEqual([
      { op: 'add', pk: 'tokens-reserved', amount: 2_000_000 - 300 },
      { op: 'add', pk: 'tokens-plain', amount: 2_000_000 },
      { op: 'add', pk: 'credit-cost', amount: cost },
      { op: 'add', pk: 'credit-tokens', amount: 2_000_000 },
    ]);
  });

  it('charges nothing for a cache hit, and gives a reservation back', async () => {
    const { writes, deps } = recordingDependencies();
    const cost = await settleUsage(admission(), { usage, cacheHit: true, provider: 'openai', model: 'gpt-4o-mini' }, log, deps);
    expect(cost).toBe(0);
    expect(writes).toEqual([{ op: 'add', pk: 'tokens-reserved', amount: -300 }]);
  });

  it('an unpriced model: cost null in the log, tokens counted, a cost limit charged at the default rates (and a warning logged)', async () => {
    const { writes, deps } = recordingDependencies();
    warnings.length = 0;
    const cost = await settleUsage(admission(), { usage, cacheHit: false, provider: 'ollama', model: 'llama3' }, log, deps);
    expect(cost).toBeNull();
    // One million prompt tokens at $15 and one million completion tokens at $75.
    expect(writes.find((write) => write.pk === 'credit-cost')).toEqual({ op: 'add', pk: 'credit-cost', amount: 90 });
    expect(writes.map((write) => write.pk)).toEqual(['tokens-reserved', 'tokens-plain', 'credit-cost', 'credit-tokens']);
    expect(warnings).toEqual(['unpriced model: cost limits are charged its usage at the default rates (said once per model)']);
    // Class: a per-request warning on the hot path. The next answer of the same model is charged alike, silently.
    const again = recordingDependencies();
    await settleUsage(admission(), { usage, cacheHit: false, provider: 'ollama', model: 'llama3' }, log, again.deps);
    expect(again.writes.find((write) => write.pk === 'credit-cost')).toEqual({ op: 'add', pk: 'credit-cost', amount: 90 });
    expect(warnings).toHaveLength(1);
  });

  it('replaces a reservation with the real cost without floating-point drift (0.3 − 0.1 is 0.2)', async () => {
    const { writes, deps } = recordingDependencies();
    const held = new Admission({ workspaceId: 'ws', requestSlots: [], tokenCounters: [], creditCounters: [{ key: key('credit-cost'), measure: 'cost', owner: 'c', reserved: 0.1 }], chargesWorkspace: false });
    // gpt-4o-mini: 2,000,000 completion tokens at $0.60 per million = $1.20; minus the $0.10 reserved.
    await settleUsage(held, { usage: { prompt_tokens: 0, completion_tokens: 2_000_000, total_tokens: 2_000_000 }, cacheHit: false, provider: 'openai', model: 'gpt-4o-mini' }, log, deps);
    expect(writes).toEqual([{ op: 'add', pk: 'credit-cost', amount: 1.1 }]);
  });

  it('settles an admission once, however often it is called', async () => {
    const { writes, deps } = recordingDependencies();
    const held = admission();
    await settleUsage(held, { usage, cacheHit: false, provider: 'openai', model: 'gpt-4o-mini' }, log, deps);
    await settleUsage(held, { usage, cacheHit: false, provider: 'openai', model: 'gpt-4o-mini' }, log, deps);
    await releaseAdmission(held, false, log, deps);
    expect(writes).toHaveLength(4);
  });
});

describe('releasing a request that got no response', () => {
  it('gives back reservations, and request slots when no provider answered', async () => {
    const { writes, deps } = recordingDependencies();
    await releaseAdmission(admission(), false, log, deps);
    expect(writes).toEqual([
      { op: 'add', pk: 'tokens-reserved', amount: -300 },
      { op: 'add', pk: 'requests', amount: -1 },
    ]);
  });

  it('keeps the request slot when a provider answered (the request counted)', async () => {
    const { writes, deps } = recordingDependencies();
    await releaseAdmission(admission(), true, log, deps);
    expect(writes).toEqual([{ op: 'add', pk: 'tokens-reserved', amount: -300 }]);
  });

  it('gives a workspace provider its request slot back even when the provider answered (with a failure)', async () => {
    const { writes, deps } = recordingDependencies();
    const held = new Admission({ workspaceId: 'ws', requestSlots: [key('requests')], providerSlots: [key('provider-requests')], tokenCounters: [], creditCounters: [], chargesWorkspace: false });
    await releaseAdmission(held, true, log, deps);
    expect(writes).toEqual([{ op: 'add', pk: 'provider-requests', amount: -1 }]);
  });
});
