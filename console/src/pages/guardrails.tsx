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
  return (
    <Section title="Guardrails">
      <ErrorBanner error={error ?? guardrails.error} />
      <WriteNote write={write} what="guardrails" />
      <form
        class="editor"
        aria-label="Create a guardrail"
        onSubmit={(event) => {
          event.preventDefault();
          if (!parseError) act(() => api.post('/v1/guardrails', { name, type, config: parsed }));
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
              setConfig(JSON.stringify(EXAMPLES[next], null, 2));
            }}
          >
            {Object.keys(EXAMPLES).map((value) => (
              <option value={value}>{value}</option>
            ))}
          </select>
        </Field>
        <Field label="config (JSON)">
          <textarea name="guardrail_config" rows={8} spellcheck={false} value={config} onInput={(event) => setConfig((event.target as HTMLTextAreaElement).value)} />
        </Field>
        {parseError ? <p class="invalid">{parseError}</p> : null}
        <button type="submit" disabled={write.can !== 'yes' || Boolean(parseError) || !name} title={write.reason}>
          Create guardrail
        </button>
      </form>
      <Table<Json>
        label="Guardrails"
        rows={guardrails.data?.data ?? []}
        empty={guardrails.loading ? 'Loading…' : 'No guardrails.'}
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
