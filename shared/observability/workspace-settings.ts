import { LRUCache } from 'lru-cache';
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

// Read on the after-path (bodies) and by analytics reads; a change is in force within this time.
const cache = new LRUCache<string, WorkspaceObservabilitySettings>({ max: 5_000, ttl: 5_000 });

export function observabilitySettingsOf(stored: Partial<Record<keyof WorkspaceObservabilitySettings, unknown>> | undefined): WorkspaceObservabilitySettings {
  return {
    log_request_bodies: stored?.log_request_bodies !== false,
    membersViewAnalytics: stored?.membersViewAnalytics !== false,
    managersViewAnalytics: stored?.managersViewAnalytics !== false,
  };
}

export async function workspaceObservabilitySettings(workspaceId: string, fresh = false): Promise<WorkspaceObservabilitySettings> {
  const cached = fresh ? undefined : cache.get(workspaceId);
  if (cached) return cached;
  const workspace = await new WorkspaceRepository().getWorkspace(workspaceId);
  const value = observabilitySettingsOf((workspace as { settings?: Record<string, unknown> } | undefined)?.settings);
  cache.set(workspaceId, value);
  return value;
}
