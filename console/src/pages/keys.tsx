import { segment } from '../api';
import type { Api } from '../api';
import { text, when } from '../components';
import type { ResourceDescription } from '../resources/describe';
import { ResourceView } from '../resources/resource-view';
import { VIRTUAL_KEYS } from '../resources/resources';

/** gw API keys: a new or rotated raw key comes back once (ResourceView shows `key` once, then forgets it). */
const API_KEYS: ResourceDescription = {
  title: 'API keys',
  path: '/v1/api-keys',
  readScope: 'api_keys:read',
  write: { scope: 'api_keys:write' },
  columns: [
    { label: 'Name', cell: (row) => text(row.name) },
    { label: 'Key', cell: (row) => <code>{text(row.masked)}</code> },
    { label: 'Kind', cell: (row) => `${text(row.kind)} / ${text(row.type)}` },
    { label: 'Scopes', cell: (row) => (Array.isArray(row.scopes) ? row.scopes.join(', ') : '—') },
    { label: 'Status', cell: (row) => text(row.status) },
    { label: 'Expires', cell: (row) => when(row.expires_at) },
  ],
  create: {
    label: 'Create an API key',
    fields: [
      { name: 'name', label: 'name', kind: 'text' },
      { name: 'scopes', label: 'scopes (comma-separated)', kind: 'list', initial: 'completions:write' },
    ],
  },
  actions: [
    { label: 'Rotate', when: (row) => row.status === 'active', run: (api, row) => api.post(`/v1/api-keys/${segment(String(row.id))}/rotate`) },
    { label: 'Revoke', danger: true, when: (row) => row.status === 'active', confirm: (row) => `Revoke ${String(row.name)}?`, run: (api, row) => api.delete(`/v1/api-keys/${segment(String(row.id))}`) },
  ],
};

export function KeysPage({ api }: { api: Api }) {
  return (
    <>
      <ResourceView api={api} resource={API_KEYS} />
      <ResourceView api={api} resource={VIRTUAL_KEYS} />
    </>
  );
}
