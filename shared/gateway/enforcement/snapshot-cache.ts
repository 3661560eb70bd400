import { maxStaleFor, RefreshingCache } from '../../cache/refreshing-cache.js';
import { sumUsd } from '../../observability/pricing/usd.js';
import { settings } from '../../settings.js';
import { listActivePolicies, type PolicyRecord } from '../../store/policy-repository.js';
import { WorkspaceBudgetRepository, type WorkspaceBudget } from '../../store/workspace-budget-repository.js';
import type { UnpricedModels } from './target-estimate.js';
import type { BudgetChargeNote } from './workspace-budget.js';
import { merged } from '../../merged.js';

/** What enforcement needs of a workspace: its active policies (the enabled kinds only) and its budget. */
export interface EnforcementSnapshot {
  policies: PolicyRecord[];
  /** Undefined when USAGE_LIMITS_ENABLED is OFF or the workspace is gone. */
  budget?: WorkspaceBudget;
  /** The workspace's `settings.unpriced_models` (docs/enforcement.md); absent: `reserve`. */
  unpricedModels?: UnpricedModels;
  /** True when this snapshot was read from the store for the caller (not served from memory). */
  fresh: boolean;
}

type Snapshot = Omit<EnforcementSnapshot, 'fresh'>;
type Loader = (workspaceId: string) => Promise<Snapshot>;

const MAX_WORKSPACES = 10_000;

/**
 * Per-workspace snapshots kept in memory for GW_POLICY_CACHE_TTL_MS, then served stale while one background read
 * refreshes them, for at most GW_CACHE_MAX_STALE_MS more (refreshing-cache.ts): a warm request reads no policy from
 * the store, not even the first one after the TTL. Concurrent requests of a workspace share one load. `forget`
 * drops snapshots at once (the local runtime calls it after a policy or workspace change); a load that started
 * before a `forget` is not kept.
 */
export class EnforcementSnapshots {
  private readonly cache: RefreshingCache<string, Snapshot>;

  constructor(
    private readonly load: Loader = loadSnapshot,
    ttlMs: () => number = () => settings().GW_POLICY_CACHE_TTL_MS,
    now: () => number = Date.now,
  ) {
    this.cache = new RefreshingCache<string, Snapshot>({ name: 'enforcement-snapshots', max: MAX_WORKSPACES, ttlMs, maxStaleMs: () => maxStaleFor(ttlMs()), now });
  }

  /** From memory when there (fresh or stale: `fresh: false`), else read for the caller (`fresh: true`). */
  async get(workspaceId: string): Promise<EnforcementSnapshot> {
    // The loader also runs for a background refresh while a stale snapshot is answered: only a snapshot that IS
    // the loaded one was read for this caller.
    let loaded: Snapshot | undefined;
    const snapshot = await this.cache.get(workspaceId, async () => (loaded = await this.load(workspaceId)));
    return merged(snapshot, { fresh: snapshot === loaded });
  }

  /** Starts reading a workspace no snapshot is held for (refreshing-cache.ts `prefetch`); nothing when one is. */
  prefetch(workspaceId: string): void {
    this.cache.prefetch(workspaceId, () => this.load(workspaceId));
  }

  /** Reads the store again, bypassing memory (concurrent refreshes of a workspace share one read). */
  async refresh(workspaceId: string): Promise<EnforcementSnapshot> {
    return merged(await this.cache.refresh(workspaceId, () => this.load(workspaceId)), { fresh: true });
  }

  /**
   * Puts a budget this process just wrote (a charge's result) into the workspace's snapshot, so this process
   * refuses as soon as its own charges exhaust the budget; other processes see it within the TTL.
   */
  updateBudget(budget: WorkspaceBudget): void {
    this.cache.update(budget.workspaceId, (snapshot) => merged(snapshot, { budget }));
  }

  /**
   * Follows a charge this process wrote to its workspace's budget counters (workspace-budget.ts): a write to
   * the gate tells its new value; a write to a shard lowers the settled usage, which stays an upper bound of
   * the real one. Returns the budget as the snapshot now holds it (undefined: none held for that period).
   */
  noteBudgetCharge(note: BudgetChargeNote): WorkspaceBudget | undefined {
    let updated: WorkspaceBudget | undefined;
    this.cache.update(note.workspaceId, (snapshot) => {
      const budget = snapshot.budget;
      if (!budget || budget.epoch !== note.epoch) return snapshot;
      updated =
        note.gate === undefined
          ? merged(budget, { settledUsage: sumUsd([budget.settledUsage, note.amount]), currentUsage: sumUsd([budget.currentUsage, note.amount]) })
          : merged(budget, { currentUsage: sumUsd([budget.settledUsage, note.gate]) });
      return merged(snapshot, { budget: updated });
    });
    return updated;
  }

  /** Drops one workspace's snapshot, or all of them. */
  forget(workspaceId?: string): void {
    this.cache.forget(workspaceId === undefined ? undefined : (key) => key === workspaceId);
  }
}

async function loadSnapshot(workspaceId: string): Promise<Omit<EnforcementSnapshot, 'fresh'>> {
  const { POLICY_ENABLED, USAGE_LIMITS_ENABLED } = settings();
  // The budget and the unpriced-models setting live on one item: one read, beside the policies' query.
  const [policies, workspace] = await Promise.all([POLICY_ENABLED ? listActivePolicies(workspaceId) : Promise.resolve([]), budgets().readWithSettings(workspaceId)]);
  return {
    // Archived policies never reach here (the query keeps active ones); the status is checked again anyway.
    policies: policies.filter((policy) => policy.status === 'active' && (policy.kind !== 'usage_limit' || USAGE_LIMITS_ENABLED)),
    budget: USAGE_LIMITS_ENABLED ? workspace?.budget : undefined,
    unpricedModels: workspace?.settings?.unpriced_models,
  };
}

let budgetRepository: WorkspaceBudgetRepository | undefined;
function budgets(): WorkspaceBudgetRepository {
  budgetRepository ??= new WorkspaceBudgetRepository();
  return budgetRepository;
}

let shared: EnforcementSnapshots | undefined;

/** The process's snapshots. */
export function enforcementSnapshots(): EnforcementSnapshots {
  shared ??= new EnforcementSnapshots();
  return shared;
}

/**
 * Makes a policy or budget change count at once in this process. The local runtime runs the control plane and
 * the gateway in one process and calls this after each change; a Lambda sees changes within the TTL.
 */
export function forgetEnforcementSnapshots(workspaceId?: string): void {
  shared?.forget(workspaceId);
}
