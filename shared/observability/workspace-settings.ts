import { maxStaleFor, RefreshingCache } from '../cache/refreshing-cache.js';
import { settings } from '../settings.js';
import { WorkspaceRepository } from '../store/workspace-repository.js';

/**
 * The observability settings of a workspace (PATCH /v1/workspaces/{id} `settings`), each on unless set to
 * false: whether request/response bodies are kept in logs, and whether members' and managers' own keys and
 * tokens may read analytics.
 */
export interface WorkspaceObservabilitySettings {
  log_request_bodies: boolean;
  membersViewAnalytics: boolean;
  managersViewAnalytics: boolean;
}

export const DEFAULT_OBSERVABILITY_SETTINGS: WorkspaceObservabilitySettings = { log_request_bodies: true, membersViewAnalytics: true, managersViewAnalytics: true };

// Read on every request's after-path (whether bodies are kept): stale-while-revalidate, so no request's log
// record waits on the store for it after warm-up. Workspace-level like the policies and budget, it shares their
// TTL (GW_POLICY_CACHE_TTL_MS): a change is in force within it plus the staleness bound.
const ttlMs = () => settings().GW_POLICY_CACHE_TTL_MS;
const cache = new RefreshingCache<string, WorkspaceObservabilitySettings>({ name: 'workspace observability settings', max: 5_000, ttlMs, maxStaleMs: () => maxStaleFor(ttlMs()) });

export function observabilitySettingsOf(stored: Partial<Record<keyof WorkspaceObservabilitySettings, unknown>> | undefined): WorkspaceObservabilitySettings {
  return {
    log_request_bodies: stored?.log_request_bodies !== false,
    membersViewAnalytics: stored?.membersViewAnalytics !== false,
    managersViewAnalytics: stored?.managersViewAnalytics !== false,
  };
}

/** The workspace's settings; `fresh` reads the store (analytics visibility decides access with it). */
export function workspaceObservabilitySettings(workspaceId: string, fresh = false): Promise<WorkspaceObservabilitySettings> {
  const load = async () => {
    const workspace = await new WorkspaceRepository().getWorkspace(workspaceId);
    return observabilitySettingsOf((workspace as { settings?: Record<string, unknown> } | undefined)?.settings);
  };
  return fresh ? cache.refresh(workspaceId, load) : cache.get(workspaceId, load);
}
