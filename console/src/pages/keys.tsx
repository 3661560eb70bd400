import { useState } from 'preact/hooks';
import { segment, type Api, type Json, type Page } from '../api';
import { ErrorBanner, Field, Section, SecretOnce, Table, TextInput, text, useLoad, when } from '../components';

export function KeysPage({ api }: { api: Api }) {
  return (
    <>
      <ApiKeys api={api} />
      <VirtualKeys api={api} />
    </>
  );
}

function ApiKeys({ api }: { api: Api }) {
  const keys = useLoad(() => api.get<Page>('/v1/api-keys', { limit: '100' }), []);
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState('completions:write');
  const [secret, setSecret] = useState<string>();
  const [error, setError] = useState<Error>();
  const act = (work: () => Promise<Json | void>) => {
    setError(undefined);
    work().then((result) => {
      if (result && typeof result.key === 'string') setSecret(result.key);
      keys.reload();
    }, setError);
  };
  return (
    <Section title="API keys">
      {secret ? <SecretOnce secret={secret} onDone={() => setSecret(undefined)} /> : null}
      <ErrorBanner error={error ?? keys.error} />
      <form
        class="filters"
        aria-label="Create an API key"
        onSubmit={(event) => {
          event.preventDefault();
          act(() => api.post('/v1/api-keys', { name, scopes: scopes.split(/[\s,]+/).filter(Boolean) }));
        }}
      >
        <TextInput label="name" name="api_key_name" value={name} onInput={setName} />
        <TextInput label="scopes (comma-separated)" name="api_key_scopes" value={scopes} onInput={setScopes} />
        <button type="submit">Create API key</button>
      </form>
      <Table<Json>
        label="API keys"
        rows={keys.data?.data ?? []}
        empty={keys.loading ? 'Loading…' : 'No API keys.'}
        columns={[
          { label: 'Name', cell: (row) => text(row.name) },
          { label: 'Key', cell: (row) => <code>{text(row.masked)}</code> },
          { label: 'Kind', cell: (row) => `${text(row.kind)} / ${text(row.type)}` },
          { label: 'Status', cell: (row) => text(row.status) },
          { label: 'Expires', cell: (row) => when(row.expires_at) },
          {
            label: 'Actions',
            cell: (row) =>
              row.status === 'active' ? (
                <span class="actions">
                  <button type="button" aria-label={`Rotate ${String(row.name)}`} onClick={() => act(() => api.post(`/v1/api-keys/${segment(String(row.id))}/rotate`))}>
                    Rotate
                  </button>
                  <button type="button" class="danger" aria-label={`Revoke ${String(row.name)}`} onClick={() => confirm(`Revoke ${String(row.name)}?`) && act(() => api.delete(`/v1/api-keys/${segment(String(row.id))}`))}>
                    Revoke
                  </button>
                </span>
              ) : null,
          },
        ]}
      />
    </Section>
  );
}

function VirtualKeys({ api }: { api: Api }) {
  const keys = useLoad(() => api.get<Page>('/v1/virtual-keys', { limit: '100' }), []);
  const [form, setForm] = useState({ name: '', provider: 'openai', credential: '', custom_host: '' });
  const [error, setError] = useState<Error>();
  const act = (work: () => Promise<unknown>) => {
    setError(undefined);
    work().then(() => keys.reload(), setError);
  };
  return (
    <Section title="Virtual keys">
      <ErrorBanner error={error ?? keys.error} />
      <form
        class="filters"
        aria-label="Create a virtual key"
        onSubmit={(event) => {
          event.preventDefault();
          const body: Json = { name: form.name, provider: form.provider };
          if (form.credential) body.credential = form.credential;
          if (form.custom_host) body.custom_host = form.custom_host;
          act(() => api.post('/v1/virtual-keys', body).then(() => setForm({ ...form, name: '', credential: '' })));
        }}
      >
        <TextInput label="name" name="vk_name" value={form.name} onInput={(name) => setForm({ ...form, name })} />
        <TextInput label="provider" name="vk_provider" value={form.provider} onInput={(provider) => setForm({ ...form, provider })} />
        <Field label="credential">
          <input name="vk_credential" type="password" autoComplete="off" value={form.credential} onInput={(event) => setForm({ ...form, credential: (event.target as HTMLInputElement).value })} />
        </Field>
        <TextInput label="custom host (optional)" name="vk_custom_host" value={form.custom_host} onInput={(custom_host) => setForm({ ...form, custom_host })} />
        <button type="submit">Create virtual key</button>
      </form>
      <Table<Json>
        label="Virtual keys"
        rows={keys.data?.data ?? []}
        empty={keys.loading ? 'Loading…' : 'No virtual keys.'}
        columns={[
          { label: 'Name', cell: (row) => text(row.name) },
          { label: 'Id', cell: (row) => <code>{text(row.id)}</code> },
          { label: 'Provider', cell: (row) => text(row.provider) },
          { label: 'Status', cell: (row) => text(row.status) },
          { label: 'Created', cell: (row) => when(row.created_at) },
          {
            label: 'Actions',
            cell: (row) => (
              <button type="button" class="danger" aria-label={`Revoke ${String(row.name)}`} onClick={() => confirm(`Delete virtual key ${String(row.name)}?`) && act(() => api.delete(`/v1/virtual-keys/${segment(String(row.id))}`))}>
                Revoke
              </button>
            ),
          },
        ]}
      />
    </Section>
  );
}
