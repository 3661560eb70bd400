import type { UserRecord } from '../../store/user-repository.js';
import type { User } from './schemas.js';

export function presentUser(record: UserRecord): User {
  return {
    object: 'user',
    id: record.id,
    organisation_id: record.organisation_id,
    email: record.email,
    name: record.name ?? null,
    role: record.role,
    status: record.status,
    workspaces: record.workspaces.map(({ workspace_id, role }) => ({ workspace_id, role })),
    invited_by: record.invited_by ?? null,
    created_at: record.created_at,
    updated_at: record.updated_at ?? null,
  };
}
