import type { WorkspaceRecord } from '../../store/workspace-repository.js';
import { observabilitySettingsOf } from '../../observability/workspace-settings.js';
import type { Workspace } from './schemas.js';

/** The API shape of a workspace: budget and key settings grouped, storage details left out. */
export function presentWorkspace(record: WorkspaceRecord): Workspace {
  return {
    object: 'workspace',
    id: record.id,
    organisation_id: record.organisation_id,
    name: record.name,
    slug: record.slug,
    description: record.description ?? null,
    metadata: record.metadata ?? {},
    budget: {
      credit_limit: record.budget_credit_limit ?? null,
      periodic_reset: record.budget_periodic_reset ?? 'none',
      // Hidden, like every other usage figure, from those the workspace's settings keep from usage.
      current_usage: record.usage_hidden ? null : (record.budget_current_usage ?? 0),
      status: record.budget_status ?? 'active',
      last_reset_at: record.budget_last_reset_at ?? null,
      next_reset_at: record.budget_next_reset_at ?? null,
    },
    api_key_settings: {
      max_api_keys: record.max_api_keys ?? null,
      default_expiry_days: record.api_key_default_expiry_days ?? null,
      max_expiry_days: record.api_key_max_expiry_days ?? null,
    },
    active_api_keys: record.active_api_keys ?? 0,
    default_guardrails: record.default_guardrails ?? [],
    settings: { ...observabilitySettingsOf(record.settings), unpriced_models: record.settings?.unpriced_models ?? 'reserve' },
    created_at: record.created_at,
    updated_at: record.updated_at ?? null,
  };
}
