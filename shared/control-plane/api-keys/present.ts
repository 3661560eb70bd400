import { effectiveStatus, isRotationDue, type ApiKeyRecord } from '../../store/api-key-repository.js';
import type { ApiKey } from './schemas.js';

/** The API shape of a key: masked only, status as the gateway sees it now, never the hash or the raw key. */
export function presentApiKey(record: ApiKeyRecord, now = Date.now()): ApiKey {
  return {
    object: 'api_key',
    id: record.id,
    name: record.name,
    description: record.description ?? null,
    kind: record.kind,
    type: record.type,
    user_id: record.user_id ?? null,
    organisation_id: record.organisation_id,
    workspace_id: record.workspace_id,
    masked: record.masked,
    scopes: record.scopes,
    status: effectiveStatus(record, now),
    expires_at: record.expires_at ?? null,
    rotation_policy: record.rotation_policy ?? null,
    next_rotation_at: record.next_rotation_at ?? null,
    last_rotated_at: record.last_rotated_at ?? null,
    rotation_due: isRotationDue(record, now),
    metadata: record.metadata ?? {},
    created_by: record.created_by ?? null,
    created_at: record.created_at,
    updated_at: record.updated_at ?? null,
    revoked_at: record.revoked_at ?? null,
  };
}
