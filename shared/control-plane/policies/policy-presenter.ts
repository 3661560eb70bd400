import type { PolicyKind, PolicyRecord } from '../../store/policy-repository.js';
import type { PolicyResponse } from './schemas.js';

/** The spec's resource type of a policy, the same for rate and usage limits. */
export const POLICY_OBJECT = 'policy_usage_limits';

/** The public shape of a stored policy: every field present, null where a kind does not have it. */
export function toPolicyResponse(record: PolicyRecord): PolicyResponse {
  return {
    id: record.id,
    object: POLICY_OBJECT,
    kind: record.kind,
    name: record.name ?? null,
    conditions: record.conditions.map(({ key, value }) => ({ key, value })),
    group_by: record.group_by.map(({ key }) => ({ key })),
    type: record.type,
    unit: record.unit,
    value: record.value,
    enforcement: record.enforcement ?? 'reserve',
    credit_limit: record.credit_limit ? { type: record.credit_limit.type, value: record.credit_limit.value } : null,
    periodic_reset: record.periodic_reset ?? null,
    status: record.status,
    set_by: record.set_by ?? 'workspace',
    workspace_id: record.workspace_id,
    organisation_id: record.organisation_id,
    created_at: record.created_at,
    updated_at: record.updated_at,
    archived_at: record.archived_at ?? null,
    version: record.version,
  };
}

/** How a kind is named in paths and messages. */
export const POLICY_KIND_LABELS: Record<PolicyKind, { path: string; label: string }> = {
  rate_limit: { path: 'rate-limits', label: 'rate-limit policy' },
  usage_limit: { path: 'usage-limits', label: 'usage-limit policy' },
};
