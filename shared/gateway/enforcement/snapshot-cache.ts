import { settings } from '../../settings.js';
import { listActivePolicies, type PolicyRecord } from '../../store/policy-repository.js';
import { WorkspaceBudgetRepository, type WorkspaceBudget } from '../../store/workspace-budget-repository.js';

/** What enforcement needs of a workspace: its active policies (the enabled kinds only) and its budget. */
export interface EnforcementSnapshot {
  policies: PolicyRecord[];
  /** Undefined when USAGE_LIMITS_ENABLED is OFF or the workspace is gone. */
  budget?: WorkspaceBudget;
  /** True when this snapshot was read from the store for the caller (not served from memory). */
  fresh: boolean;
}

type Loader = (workspaceId: string) => Promise<Omit<EnforcementSnapshot, 'fresh'>>;

interface Entry {
  value: Promise<Omit<EnforcementSnapshot, 'fresh'>>;
  expiresAt: number;
}

const MAX_WORKSPACES = 10_000;

/**
 * Per-workspace snapshots kept in memory for GW_POLICY_CACHE_TTL_MS, so a warm request reads no policy from
 * the store. Concurrent requests of a workspace share one load. `forget` drops snapshots at once (the local
 * runtime calls it after a policy or workspace change); a load that started before a `forget` is not kept.
 */
export class EnforcementSnapshots {
  private readonly entries = new Map<string, Entry>();
  private readonly refreshing = new Map<string, Promise<Omit<EnforcementSnapshot, 'fresh'>>>();
  private generation = 0;

  constructor(
    private readonly load: Loader = loadSnapshot,
    private readonly ttlMs: () => number = () => settings().GW_POLICY_CACHE_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  async get(workspaceId: string): Promise<EnforcementSnapshot> {
    const entry = this.entries.get(workspaceId);
    if (entry && entry.expiresAt > this.now()) return { ...(await entry.value), fresh: false };
    return { ...(await this.loadAndKeep(workspaceId)), fresh: true };
  }

  /** Reads the store again, bypassing memory (concurrent refreshes of a workspace share one read). */
  async refresh(workspaceId: string): Promise<EnforcementSnapshot> {
    let pending = this.refreshing.get(workspaceId);
    if (!pending) {
      pending = this.loadAndKeep(workspaceId).finally(() => this.refreshing.delete(workspaceId));
      this.refreshing.set(workspaceId, pending);
    }
    return { ...(await pending), fresh: true };
  }

  /**
   * Puts a budget this process just wrote (a charge's result) into the workspace's snapshot, so this process
   * refuses as soon as its own charges exhaust the budget; other processes see it within the TTL.
   */
  updateBudget(budget: WorkspaceBudget): void {
    const entry = this.entries.get(budget.workspaceId);
    if (!entry) return;
    const updated = entry.value.then((snapshot) => ({ ...snapshot, budget }));
    updated.catch(() => undefined);
    this.entries.set(budget.workspaceId, { value: updated, expiresAt: entry.expiresAt });
  }

  /** Drops one workspace's snapshot, or all of them. */
  forget(workspaceId?: string): void {
    this.generation++;
    if (workspaceId === undefined) this.entries.clear();
    else this.entries.delete(workspaceId);
  }

  private loadAndKeep(workspaceId: string): Promise<Omit<EnforcementSnapshot, 'fresh'>> {
    const generation = this.generation;
    const value = this.load(workspaceId);
    const ttl = this.ttlMs();
    if (ttl > 0) {
      if (this.entries.size >= MAX_WORKSPACES) this.entries.delete(this.entries.keys().next().value as string);
      this.entries.set(workspaceId, { value, expiresAt: this.now() + ttl });
    }
    value.then(
      () => {
        if (this.generation !== generation && this.entries.get(workspaceId)?.value === value) this.entries.delete(workspaceId);
      },
      () => {
        if (this.entries.get(workspaceId)?.value === value) this.entries.delete(workspaceId);
      },
    );
    return value;
  }
}

async function loadSnapshot(workspaceId: string): Promise<Omit<EnforcementSnapshot, 'fresh'>> {
  const { POLICY_ENABLED, USAGE_LIMITS_ENABLED } = settings();
  const [policies, budget] = await Promise.all([
    POLICY_ENABLED ? listActivePolicies(workspaceId) : Promise.resolve([]),
    USAGE_LIMITS_ENABLED ? budgets().read(workspaceId) : Promise.resolve(undefined),
  ]);
  return {
    // Archived policies never reach here (the query keeps active ones); the status is checked again anyway.
    policies: policies.filter((policy) => policy.status === 'active' && (policy.kind !== 'usage_limit' || USAGE_LIMITS_ENABLED)),
    budget,
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
