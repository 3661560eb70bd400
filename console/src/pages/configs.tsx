import { useEffect, useState } from 'preact/hooks';
import { segment, type Api, type Json, type Page } from '../api';
import { ErrorBanner, Field, Section, Table, TextInput, text, useLoad, when } from '../components';
import type { validateConfigText } from '../config-validation';
import { useCapability } from '../resources/capabilities';
import { WriteNote } from '../resources/write-note';

const STARTER = JSON.stringify({ strategy: { mode: 'fallback' }, targets: [{ provider: 'openai', virtual_key: 'vk-…' }, { provider: 'anthropic', virtual_key: 'vk-…' }] }, null, 2);

export function ConfigsPage({ api }: { api: Api }) {
  const configs = useLoad(() => api.get<Page>('/v1/configs', { limit: '100' }), []);
  const [selected, setSelected] = useState<Json>();
  const [name, setName] = useState('');
  const [source, setSource] = useState(STARTER);
  const [error, setError] = useState<Error>();
  const [saved, setSaved] = useState<string>();
  const write = useCapability(api, { scope: 'configs:write' });
  // The schema (zod) is half the console's bytes: it loads with this page only.
  const [validate, setValidate] = useState<typeof validateConfigText>();
  useEffect(() => {
    void import('../config-validation').then((module) => setValidate(() => module.validateConfigText));
  }, []);
  const check = validate ? validate(source) : ({ ok: false, message: 'Loading the config schema…' } as const);
  const versions = useLoad(() => (selected ? api.get<Page>(`/v1/configs/${segment(String(selected.id))}/versions`) : Promise.resolve(undefined)), [selected?.id, saved]);

  const open = (row: Json) => {
    setSelected(row);
    setName(String(row.name));
    setSource(JSON.stringify(row.config, null, 2));
    setSaved(undefined);
  };
  const save = () => {
    if (!check.ok) return;
    setError(undefined);
    const request = selected ? api.put(`/v1/configs/${segment(String(selected.id))}`, { name, config: check.value }) : api.post('/v1/configs', { name, config: check.value });
    request.then((result) => {
      setSelected(result);
      setSaved(`Saved version ${String(result.version)}`);
      configs.reload();
    }, setError);
  };
  return (
    <Section title="Configs">
      <ErrorBanner error={configs.error} />
      <div class="split">
        <div>
          <Table<Json>
            label="Saved configs"
            rows={configs.data?.data ?? []}
            empty={configs.loading ? 'Loading…' : 'No saved configs.'}
            onOpen={open}
            columns={[
              { label: 'Name', cell: (row) => text(row.name) },
              { label: 'Id', cell: (row) => <code>{text(row.id)}</code> },
              { label: 'Version', cell: (row) => text(row.version) },
            ]}
          />
          <button
            type="button"
            onClick={() => {
              setSelected(undefined);
              setName('');
              setSource(STARTER);
            }}
          >
            New config
          </button>
        </div>
        <form
          class="editor"
          aria-label="Config editor"
          onSubmit={(event) => {
            event.preventDefault();
            save();
          }}
        >
          <TextInput label="name" name="config_name" value={name} onInput={setName} />
          <Field label="config (JSON)">
            <textarea name="config_json" rows={18} spellcheck={false} value={source} onInput={(event) => setSource((event.target as HTMLTextAreaElement).value)} />
          </Field>
          <p class={check.ok ? 'valid' : 'invalid'} role="status" data-testid="config-validation">
            {check.ok ? 'Valid config' : check.message}
          </p>
          <WriteNote write={write} what="configs" />
          <button type="submit" disabled={write.can !== 'yes' || !check.ok || !name} title={write.reason}>
            {selected ? 'Save new version' : 'Create config'}
          </button>
          {saved ? <p role="status">{saved}</p> : null}
          {/* gw's 400 (or 409 for a concurrent update) belongs beside the form that sent it. */}
          <ErrorBanner error={error} />
          {selected && versions.data ? (
            <Table<Json>
              label="Versions"
              rows={versions.data.data}
              empty="No versions."
              onOpen={(row) => setSource(JSON.stringify(row.config, null, 2))}
              columns={[
                { label: 'Version', cell: (row) => text(row.version) },
                { label: 'Saved', cell: (row) => when(row.created_at) },
              ]}
            />
          ) : null}
        </form>
      </div>
    </Section>
  );
}
