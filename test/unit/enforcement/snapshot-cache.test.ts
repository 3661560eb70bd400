import { describe, expect, it } from 'vitest';
import { EnforcementSnapshots } from '../../../shared/gateway/enforcement/snapshot-cache.js';
import type { PolicyRecord } from '../../../shared/store/policy-repository.js';
import type { WorkspaceBudget } from '../../../shared/store/workspace-budget-repository.js';

function budget(usage: number): WorkspaceBudget {
  return { workspaceId: 'ws', creditLimit: 10, periodicReset: 'none', currentUsage: usage, settledUsage: usage, status: 'active', nextResetAt: null, epoch: 'start' };
}

/** A loader that answers with its call number, so each test can tell which load a snapshot came from. */
function countingLoader() {
  const calls: string[] = [];
  const gates: Array<() => void> = [];
  let hold = false;
  const load = async (workspaceId: string) => {
    calls.push(workspaceId);
    const number = calls.length;
    if (hold) await new Promise<void>((resolve) => gates.push(resolve));
    return { policies: [{ id: `load-${number}` } as PolicyRecord], budget: budget(number) };
  };
  return { calls, load, holdLoads: (value: boolean) => (hold = value), releaseAll: () => gates.splice(0).forEach((open) => open()) };
}

describe('enforcement snapshots', () => {
  it('serve a workspace from memory until the TTL passes (injected clock), then stale while one read refreshes it', async () => {
    let now = 1_000;
    const loader = countingLoader();
    const snapshots = new EnforcementSnapshots(loader.load, () => 5_000, () => now);
    expect(await snapshots.get('ws')).toMatchObject({ fresh: true, policies: [{ id: 'load-1' }] });
    now += 4_999;
    expect(await snapshots.get('ws')).toMatchObject({ fresh: false, policies: [{ id: 'load-1' }] });
    now += 1;
    // Past the TTL: the stale snapshot answers at once (so it is not `fresh`), and a background read replaces it.
    expect(await snapshots.get('ws')).toMatchObject({ fresh: false, policies: [{ id: 'load-1' }] });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(await snapshots.get('ws')).toMatchObject({ fresh: false, policies: [{ id: 'load-2' }] });
    expect(loader.calls).toEqual(['ws', 'ws']);
  });

  it('share one load between concurrent requests of a workspace', async () => {
    const loader = countingLoader();
    const snapshots = new EnforcementSnapshots(loader.load, () => 5_000, () => 0);
    const all = await Promise.all(Array.from({ length: 20 }, () => snapshots.get('ws')));
    expect(loader.calls).toHaveLength(1);
    expect(new Set(all.map((snapshot) => snapshot.policies[0].id))).toEqual(new Set(['load-1']));
  });

  it('never keep a snapshot with TTL 0', async () => {
    const loader = countingLoader();
    const snapshots = new EnforcementSnapshots(loader.load, () => 0, () => 0);
    await snapshots.get('ws');
    await snapshots.get('ws');
    expect(loader.calls).toHaveLength(2);
  });

  it('refresh bypasses memory and keeps the new read', async () => {
    const loader = countingLoader();
    const snapshots = new EnforcementSnapshots(loader.load, () => 5_000, () => 0);
    await snapshots.get('ws');
    expect(await snapshots.refresh('ws')).toMatchObject({ fresh: true, policies: [{ id: 'load-2' }] });
    expect(await snapshots.get('ws')).toMatchObject({ fresh: false, policies: [{ id: 'load-2' }] });
  });

  it('forget drops snapshots, and a load that began before it is not kept', async () => {
    const loader = countingLoader();
    const snapshots = new EnforcementSnapshots(loader.load, () => 5_000, () => 0);
    loader.holdLoads(true);
    const stale = snapshots.get('ws');
    snapshots.forget('ws');
    loader.releaseAll();
    expect((await stale).policies[0].id).toBe('load-1');
    loader.holdLoads(false);
    expect(await snapshots.get('ws')).toMatchObject({ fresh: true, policies: [{ id: 'load-2' }] });
  });

  it('take in a budget this process just charged', async () => {
    const loader = countingLoader();
    const snapshots = new EnforcementSnapshots(loader.load, () => 5_000, () => 0);
    await snapshots.get('ws');
    snapshots.updateBudget(budget(42));
    expect((await snapshots.get('ws')).budget?.currentUsage).toBe(42);
    expect(loader.calls).toHaveLength(1);
  });

  it('do not keep a failed load', async () => {
    let fail = true;
    const snapshots = new EnforcementSnapshots(
      async () => {
        if (fail) throw new Error('store down');
        return { policies: [] };
      },
      () => 5_000,
      () => 0,
    );
    await expect(snapshots.get('ws')).rejects.toThrow('store down');
    fail = false;
    expect(await snapshots.get('ws')).toEqual({ policies: [], fresh: true });
  });
});
