/** Scopes an API key can carry. Admin keys hold every scope implicitly. */
export const SCOPES = [
  'completions:write',
  'prompts:read',
  'prompts:write',
  'prompts:render',
  'configs:read',
  'configs:write',
  'virtual_keys:read',
  'virtual_keys:write',
  'policies:read',
  'policies:write',
  'workspaces:read',
  'workspaces:write',
  'api_keys:read',
  'api_keys:write',
  'users:read',
  'users:write',
  'audit_logs:read',
  'logs:read',
  'deployments:create',
  'deployments:read',
  'deployments:update',
  'deployments:delete',
  'deployments:list',
] as const;

export type Scope = (typeof SCOPES)[number];
