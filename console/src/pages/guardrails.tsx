import { useState } from 'preact/hooks';
import { segment, type Api, type Json, type Page } from '../api';
import { ErrorBanner, Field, Section, Table, TextInput, text, useLoad } from '../components';
import { useCapability } from '../resources/capabilities';
import { WriteNote } from '../resources/write-note';

const EXAMPLES: Record<string, unknown> = {
  request_params_check: { tools: { blockedTypes: ['code_interpreter'] }, params: { blockedKeys: ['logit_bias'] } },
  add_prefix: { prefix: 'Answer briefly. ', position: 'last_user' },
  allowed_request_types: { mode: 'allow', endpoints: ['chat/completions', 'embeddings'] },
};

export function GuardrailsPage({ api }: { api: Api }) {
  const guardrails = useLoad(() => api.get<Page>('/v1/guardrails', { limit: '100' }), []);
  const [name, setName] = useState('');
  const [type, setType] = useState('add_prefix');
  const [config, setConfig] = useState(JSON.stringify(EXAMPLES.add_prefix, null, 2));
  const [error, setError] = useState<Error>();
  // The guardrail opened from the list: the form edits it (PUT, a new version) instead of creating one.
  const [selected, setSelected] = useState<Json>();
  const [saved, setSaved] = useState<string>();
  const write = useCapability(api, { scope: 'guardrails:write' });
  let parsed: unknown;
  let parseError: string | undefined;
  try {
    parsed = JSON.parse(config);
  } catch (thrown) {
    parseError = (thrown as Error).message;
  }
  const act = (work: () => Promise<unknown>) => {
    setError(undefined);
    work().then(() => guardrails.reload(), setError);
  };
  const open = (row: Json) => {
    setSelected(row);
    setName(String(row.name ?? ''));
    setType(String(row.type));
    setConfig(JSON.stringify(row.config ?? {}, null, 2));
    setSaved(undefined);
    setError(undefined);
  };
  const save = () => {
    setError(undefined);
    setSaved(undefined);
    const request = selected ? api.put<Json>(`/v1/guardrails/${segment(String(selected.id))}`, { name, type, config: parsed }) : api.post<Json>('/v1/guardrails', { name, type, config: parsed });
    request.then((result) => {
      if (selected) {
        setSelected(result);
        setSaved(`Saved version ${String(result.version)}`);
      }
      guardrails.reload();
    }, setError);
  };
  const types = selected && !(String(selected.type) in EXAMPLES) ? [...Object.keys(EXAMPLES), String(selected.type)] : Object.keys(EXAMPLES);
  return (
    <Section title="Guardrails">
      <ErrorBanner error={guardrails.error} />
      <WriteNote write={write} what="guardrails" />
      <form
        class="editor"
        aria-label={selected ? `Edit guardrail ${String(selected.name)}` : 'Create a guardrail'}
        onSubmit={(event) => {
          event.preventDefault();
          if (!parseError) save();
        }}
      >
        <TextInput label="name" name="guardrail_name" value={name} onInput={setName} />
        <Field label="type">
          <select
            name="guardrail_type"
            value={type}
            onChange={(event) => {
              const next = (event.target as HTMLSelectElement).value;
              setType(next);
              setConfig(JSON.stringify(EXAMPLES[next] ?? {}, null, 2));
            }}
          >
            {types.map((value) => (
              <option value={value}>{value}</option>
            ))}
          </select>
        </Field>
        <Field label="config (JSON)">
          <textarea name="guardrail_config" rows={8} spellcheck={false} value={config} onInput={(event) => setConfig((event.target as HTMLTextAreaElement).value)} />
        </Field>
        {parseError ? <p class="invalid">{parseError}</p> : null}
        <button type="submit" disabled={write.can !== 'yes' || Boolean(parseError) || !name} title={write.reason}>
          {selected ? 'Save new version' : 'Create guardrail'}
        </button>
        {selected ? (
          <button
            type="button"
            onClick={() => {
              setSelected(undefined);
              setName('');
              setType('add_prefix');
              setConfig(JSON.stringify(EXAMPLES.add_prefix, null, 2));
            }}
          >
            New guardrail
          </button>
        ) : null}
        {saved ? <p role="status">{saved}</p> : null}
        {/* gw's 400 (its message names the config field) belongs beside the form that sent it. */}
        <ErrorBanner error={error} />
      </form>
      <Table<Json>
        label="Guardrails"
        rows={guardrails.data?.data ?? []}
        empty={guardrails.loading ? 'Loading…' : 'No guardrails.'}
        onOpen={open}
        columns={[
          { label: 'Name', cell: (row) => text(row.name) },
          { label: 'Type', cell: (row) => text(row.type) },
          { label: 'Id', cell: (row) => <code>{text(row.id)}</code> },
          { label: 'Version', cell: (row) => text(row.version) },
          {
            label: 'Actions',
            cell: (row) => (
              <button type="button" class="danger" disabled={write.can !== 'yes'} title={write.reason} aria-label={`Delete ${String(row.name)}`} onClick={() => confirm(`Delete guardrail ${String(row.name)}?`) && act(() => api.delete(`/v1/guardrails/${segment(String(row.id))}`))}>
                Delete
              </button>
            ),
          },
        ]}
      />
    </Section>
  );
}
