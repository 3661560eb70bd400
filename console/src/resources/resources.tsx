import { segment, type Json } from '../api';
import { text, when } from '../components';
import { named } from '../names';
import type { ResourceDescription } from './describe';
import { DownloadLink } from './download';

const tags = (value: unknown) =>
  value && typeof value === 'object' && Object.keys(value).length > 0
    ? Object.entries(value as Record<string, string>)
        .map(([key, item]) => `${key}=${item}`)
        .join(', ')
    : '—';
const deleteAction = (path: string, noun: string, label = 'Delete') => ({
  label,
  danger: true,
  confirm: (row: Json) => `${label} ${noun} ${String(row.name ?? row.id)}?`,
  run: (api: import('../api').Api, row: Json) => api.delete(`${path}/${segment(String(row.id))}`),
});

/** Rotation asks for the new credential in a masked field; the value goes straight into the PATCH and is never shown back. */
const rotateCredential = (path: string) => ({
  label: 'Rotate',
  input: { label: 'new credential (stored, never shown again)', secret: true },
  run: async (api: import('../api').Api, row: Json, credential?: string) => {
    if (credential) await api.patch(`${path}/${segment(String(row.id))}`, { credential });
  },
});

export const VIRTUAL_KEYS: ResourceDescription = {
  title: 'Virtual keys',
  path: '/v1/virtual-keys',
  readScope: 'virtual_keys:read',
  write: { scope: 'virtual_keys:write' },
  note: 'A stored provider credential, sent as x-gw-virtual-key. The credential is write-only: gw never returns it.',
  columns: [
    { label: 'Name', cell: (row) => text(row.name) },
    { label: 'Id', cell: (row) => <code>{text(row.id)}</code> },
    { label: 'Provider', cell: (row) => text(row.provider) },
    { label: 'Custom host', cell: (row) => text(row.custom_host) },
    { label: 'Status', cell: (row) => text(row.status) },
    { label: 'Created', cell: (row) => when(row.created_at) },
  ],
  create: {
    label: 'Create a virtual key',
    fields: [
      { name: 'name', label: 'name', kind: 'text', optional: true },
      { name: 'provider', label: 'provider', kind: 'text', initial: 'openai' },
      { name: 'credential', label: 'credential', kind: 'secret', optional: true },
      { name: 'custom_host', label: 'custom host (optional)', kind: 'text', optional: true },
      { name: 'azure', label: 'azure settings (JSON, optional)', kind: 'json', optional: true, placeholder: '{"resource_name": "…", "deployment_id": "…"}' },
      { name: 'aws', label: 'aws settings (JSON, optional)', kind: 'json', optional: true, placeholder: '{"region": "us-east-1"}' },
    ],
  },
  actions: [rotateCredential('/v1/virtual-keys'), deleteAction('/v1/virtual-keys', 'virtual key', 'Revoke')],
};

export const INTEGRATIONS: ResourceDescription = {
  title: 'Integrations',
  path: '/v1/integrations',
  readScope: 'integrations:read',
  write: { scope: 'integrations:write', adminOnly: true },
  note: 'Organisation-wide provider credentials (organisation admin keys manage them), shared with workspaces that enable them as providers.',
  columns: [
    { label: 'Name', cell: (row) => text(row.name) },
    { label: 'Slug', cell: (row) => <code>{text(row.slug)}</code> },
    { label: 'Provider', cell: (row) => text(row.provider) },
    { label: 'Credential', cell: (row) => text((row.credential as Json | undefined)?.masked) },
    { label: 'Tags', cell: (row) => tags(row.tags) },
    { label: 'Shared with', cell: (row, names) => (Array.isArray(row.shared_with_workspaces) ? row.shared_with_workspaces.map((id: unknown) => named(names, id)).join(', ') || 'none' : text(row.shared_with_workspaces)) },
  ],
  create: {
    label: 'Create an integration',
    fields: [
      { name: 'name', label: 'name', kind: 'text' },
      { name: 'provider', label: 'provider', kind: 'text', initial: 'openai' },
      { name: 'credential', label: 'credential', kind: 'secret', optional: true },
      { name: 'custom_host', label: 'custom host (optional)', kind: 'text', optional: true },
      { name: 'tags', label: 'tags (key=value, …)', kind: 'tags', optional: true },
      { name: 'shared_with_workspaces', label: 'shared with (workspace ids, or all)', kind: 'text', optional: true },
    ],
    body: (body) => ({ ...body, ...(typeof body.shared_with_workspaces === 'string' ? { shared_with_workspaces: body.shared_with_workspaces === 'all' ? 'all' : body.shared_with_workspaces.split(/[\s,]+/).filter(Boolean) } : {}) }),
  },
  actions: [rotateCredential('/v1/integrations'), deleteAction('/v1/integrations', 'integration')],
};

export const PROVIDERS: ResourceDescription = {
  title: 'Providers',
  path: '/v1/providers',
  readScope: 'providers:read',
  write: { scope: 'providers:write' },
  note: 'Integrations enabled in this workspace, with their own limits; send x-gw-provider: @<slug>.',
  columns: [
    { label: 'Name', cell: (row) => text(row.name) },
    { label: 'Slug', cell: (row) => <code>@{text(row.slug)}</code> },
    { label: 'Provider', cell: (row) => text(row.provider) },
    { label: 'Enabled', cell: (row) => (row.enabled ? 'yes' : 'no') },
    { label: 'Budget', cell: (row) => (row.budget ? `$${text((row.budget as Json).limit_usd)} / ${text((row.budget as Json).period)}` : '—') },
    { label: 'Rate limits', cell: (row) => (Array.isArray(row.rate_limits) && row.rate_limits.length ? row.rate_limits.map((limit: Json) => `${text(limit.value)} ${text(limit.type)} ${text(limit.unit)}`).join(', ') : '—') },
    { label: 'Tags', cell: (row) => tags(row.tags) },
  ],
  create: {
    label: 'Enable a provider',
    fields: [
      { name: 'integration_id', label: 'integration (id or slug)', kind: 'text' },
      { name: 'name', label: 'name (optional)', kind: 'text', optional: true },
      { name: 'tags', label: 'tags (key=value, …)', kind: 'tags', optional: true },
      { name: 'budget', label: 'budget (JSON, optional)', kind: 'json', optional: true, placeholder: '{"limit_usd": 100, "period": "monthly"}' },
      { name: 'rate_limits', label: 'rate limits (JSON, optional)', kind: 'json', optional: true, placeholder: '[{"type": "requests", "unit": "rpm", "value": 60}]' },
    ],
  },
  actions: [
    { label: 'Disable', when: (row) => row.enabled === true, run: (api, row) => api.patch(`/v1/providers/${segment(String(row.id))}`, { enabled: false }) },
    { label: 'Enable', when: (row) => row.enabled !== true, run: (api, row) => api.patch(`/v1/providers/${segment(String(row.id))}`, { enabled: true }) },
    deleteAction('/v1/providers', 'provider', 'Remove'),
  ],
};

export const MCP_SERVERS: ResourceDescription = {
  title: 'MCP servers',
  path: '/v1/mcp-servers',
  readScope: 'mcp_servers:read',
  write: { scope: 'mcp_servers:write' },
  note: 'Remote MCP servers reached through gw at /v1/mcp/<slug>; open one for what its handshake said and its tools.',
  columns: [
    { label: 'Name', cell: (row) => text(row.name) },
    { label: 'Gateway path', cell: (row) => <code>{text(row.gateway_path)}</code> },
    { label: 'Server', cell: (row) => `${text(row.server_name)} ${row.server_version ? String(row.server_version) : ''}` },
    { label: 'Sync', cell: (row) => <span class={`sync ${String(row.sync_status)}`}>{text(row.sync_status)}</span> },
    { label: 'Synced', cell: (row) => when(row.synced_at) },
    { label: 'Auth', cell: (row) => text((row.auth as Json | undefined)?.type) },
    { label: 'Allowed tools', cell: (row) => ((row.tools as Json | undefined)?.allow as string[] | undefined)?.join(', ') ?? 'all' },
  ],
  create: {
    label: 'Register an MCP server',
    fields: [
      { name: 'name', label: 'name', kind: 'text' },
      { name: 'url', label: 'url', kind: 'text', placeholder: 'https://mcp.example.com/mcp' },
      { name: 'token', label: 'bearer token (optional)', kind: 'secret', optional: true },
      { name: 'allow', label: 'allowed tools (optional)', kind: 'list', optional: true, placeholder: 'search, read_*' },
      { name: 'deny', label: 'denied tools (optional)', kind: 'list', optional: true },
    ],
    body: mcpServerBody,
  },
  actions: [deleteAction('/v1/mcp-servers', 'MCP server')],
  // PATCH: a new url or token runs the handshake again; an empty token keeps the stored one (never shown).
  edit: {
    method: 'PATCH',
    fields: (row) => {
      const tools = (row.tools ?? {}) as Json;
      return [
        { name: 'name', label: 'name', kind: 'text', initial: String(row.name ?? '') },
        { name: 'url', label: 'url', kind: 'text', initial: typeof row.url === 'string' ? row.url : '' },
        { name: 'token', label: 'new bearer token (optional)', kind: 'secret', optional: true },
        { name: 'allow', label: 'allowed tools (optional)', kind: 'list', optional: true, initial: ((tools.allow as string[] | undefined) ?? []).join(', ') },
        { name: 'deny', label: 'denied tools (optional)', kind: 'list', optional: true, initial: ((tools.deny as string[] | undefined) ?? []).join(', ') },
      ];
    },
    body: mcpServerBody,
  },
  detail: (api, row) => api.get(`/v1/mcp-servers/${segment(String(row.id))}/metadata`),
};

/** An MCP server's body from the form: a token becomes bearer auth, allow/deny lists become tool rules. */
function mcpServerBody({ token, allow, deny, ...body }: Json): Json {
  return {
    ...body,
    ...(token ? { auth: { type: 'bearer', token } } : {}),
    ...(allow || deny ? { tools: { ...(allow ? { allow } : {}), ...(deny ? { deny } : {}) } } : {}),
  };
}

export const DEPLOYMENTS: ResourceDescription = {
  title: 'Deployments',
  path: '/v1/deployments',
  readScope: 'deployments:read',
  write: { scope: 'deployments:delete' },
  note: 'Named configs sent as x-gw-deployment, production or not.',
  filters: [{ name: 'type', label: 'type', placeholder: 'production or non-production' }],
  columns: [
    { label: 'Name', cell: (row) => text(row.name) },
    { label: 'Slug', cell: (row) => <code>{text(row.slug)}</code> },
    { label: 'Type', cell: (row) => text(row.type) },
    { label: 'Config', cell: (row, names) => <code>{(row.config as Json | undefined)?.id ? `${named(names, (row.config as Json).id)}${(row.config as Json).version ? `@${String((row.config as Json).version)}` : ''}` : 'inline'}</code> },
    { label: 'Workspace', cell: (row, names) => (row.workspace_id ? named(names, row.workspace_id) : 'organisation') },
    { label: 'Updated', cell: (row) => when(row.updated_at) },
  ],
  create: {
    label: 'Create a deployment',
    fields: [
      { name: 'name', label: 'name', kind: 'text' },
      { name: 'type', label: 'type', kind: 'select', options: ['production', 'non-production'], initial: 'production' },
      { name: 'config', label: 'config (JSON: inline, or {"id": "cfg-…"})', kind: 'json', placeholder: '{"strategy": {"mode": "single"}, "targets": [{"provider": "openai"}]}' },
      { name: 'description', label: 'description (optional)', kind: 'text', optional: true },
    ],
  },
  actions: [deleteAction('/v1/deployments', 'deployment')],
  // PATCH: the fields sent replace the stored ones.
  edit: {
    method: 'PATCH',
    fields: (row) => [
      { name: 'name', label: 'name', kind: 'text', initial: String(row.name ?? '') },
      { name: 'type', label: 'type', kind: 'select', options: ['production', 'non-production'], initial: String(row.type ?? 'production') },
      { name: 'config', label: 'config (JSON: inline, or {"id": "cfg-…"})', kind: 'json', initial: JSON.stringify(row.config ?? {}) },
      { name: 'description', label: 'description (optional)', kind: 'text', optional: true, initial: typeof row.description === 'string' ? row.description : '' },
    ],
  },
};

export const EXPORTS: ResourceDescription = {
  title: 'Exports',
  path: '/v1/exports',
  readScope: 'logs:read',
  note: 'Request logs matching filters, written as JSON Lines, Parquet or CSV; the list refreshes while one is running.',
  columns: [
    { label: 'Id', cell: (row) => <code>{text(row.id)}</code> },
    { label: 'Status', cell: (row) => <span data-testid="export-status">{text(row.status)}</span> },
    { label: 'Format', cell: (row) => text(row.format) },
    { label: 'Filters', cell: (row) => <code>{JSON.stringify(row.filters ?? {})}</code> },
    { label: 'Rows', cell: (row) => text(row.row_count) },
    { label: 'Created', cell: (row) => when(row.created_at) },
    { label: 'Download', cell: (row) => (row.status === 'completed' ? <DownloadLink row={row} /> : text(row.error)) },
  ],
  create: {
    label: 'Create an export',
    fields: [
      // The formats POST /v1/exports accepts (shared/control-plane/exports/schemas.ts).
      { name: 'format', label: 'format', kind: 'select', options: ['jsonl', 'parquet', 'csv'], initial: 'jsonl' },
      { name: 'model', label: 'model', kind: 'text', optional: true },
      { name: 'provider', label: 'provider', kind: 'text', optional: true },
      { name: 'status', label: 'status', kind: 'text', optional: true },
      { name: 'from', label: 'from (ISO time)', kind: 'text', optional: true },
      { name: 'to', label: 'to (ISO time)', kind: 'text', optional: true },
      { name: 'metadata', label: 'metadata (key=value, …)', kind: 'tags', optional: true },
    ],
  },
  pending: (row) => row.status === 'pending' || row.status === 'running',
  // gw keeps the workspace's exports (GET /v1/exports, newest first): every export of the workspace, whichever tab made it.
  pageSize: 20,
};

export const AUDIT_LOG: ResourceDescription = {
  title: 'Audit log',
  path: '/v1/audit-logs',
  readScope: 'audit_logs:read',
  filters: [
    { name: 'actor_id', label: 'actor', placeholder: 'API key id or jwt:<sub>' },
    { name: 'action', label: 'action', placeholder: 'api_key.create' },
    { name: 'from', label: 'from (ISO time)' },
    { name: 'to', label: 'to (ISO time)' },
  ],
  columns: [
    { label: 'Time', cell: (row) => when(row.at) },
    { label: 'Action', cell: (row) => <code>{text(row.action)}</code> },
    { label: 'Outcome', cell: (row) => text(row.outcome) },
    { label: 'Actor', cell: (row, names) => `${text((row.actor as Json | undefined)?.type)} ${named(names, (row.actor as Json | undefined)?.id)}` },
    { label: 'Resource', cell: (row) => `${text(row.resource_type)} ${row.resource_id ? String(row.resource_id) : ''}` },
  ],
};

export const USERS: ResourceDescription = {
  title: 'Users',
  path: '/v1/admin/users',
  readScope: 'users:read',
  write: { scope: 'users:write', adminOnly: true },
  note: 'Members of the organisation, invited here or provisioned by your identity provider through SCIM (/v1/scim/v2).',
  columns: [
    { label: 'Email', cell: (row) => text(row.email) },
    { label: 'Name', cell: (row) => text(row.name) },
    { label: 'Role', cell: (row) => text(row.role) },
    { label: 'Status', cell: (row) => text(row.status) },
    { label: 'Workspaces', cell: (row, names) => (Array.isArray(row.workspaces) ? row.workspaces.map((membership: Json) => `${named(names, membership.workspace_id)} (${text(membership.role)})`).join(', ') || '—' : '—') },
    { label: 'Invited by', cell: (row) => text(row.invited_by) },
  ],
  create: {
    path: '/v1/admin/users/invites',
    label: 'Invite a user',
    fields: [
      { name: 'email', label: 'email', kind: 'text' },
      { name: 'name', label: 'name (optional)', kind: 'text', optional: true },
      { name: 'role', label: 'role', kind: 'select', options: ['member', 'admin', 'owner'], initial: 'member' },
    ],
  },
  actions: [deleteAction('/v1/admin/users', 'user', 'Remove')],
};

/** Users your identity provider provisioned through SCIM 2.0; read only here, since the IdP owns them. */
export const SCIM_MEMBERS: ResourceDescription = {
  title: 'SCIM-provisioned members',
  path: '/v1/scim/v2/Users',
  readScope: 'scim',
  note: 'Provisioned by your identity provider at /v1/scim/v2 (an organisation admin key or the scim scope); change them there.',
  // SCIM answers a ListResponse (`Resources`, 1-based paging), not gw's `data` page.
  list: async (api) => ({ data: ((await api.get('/v1/scim/v2/Users', { count: '100' })).Resources as Json[] | undefined) ?? [] }),
  columns: [
    { label: 'User name', cell: (row) => text(row.userName) },
    { label: 'Name', cell: (row) => text(row.displayName ?? (row.name as Json | undefined)?.formatted) },
    { label: 'External id', cell: (row) => <code>{text(row.externalId)}</code> },
    { label: 'Active', cell: (row) => (row.active === false ? 'no' : 'yes') },
    { label: 'Groups', cell: (row) => (Array.isArray(row.groups) ? row.groups.map((group: Json) => text(group.display)).join(', ') || '—' : '—') },
  ],
};
