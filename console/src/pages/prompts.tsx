import { useState } from 'preact/hooks';
import { segment, type Api, type Json, type Page } from '../api';
import { ErrorBanner, Field, JsonView, Section, Table, TextInput, text, useLoad } from '../components';
import { useCapability } from '../resources/capabilities';
import { WriteNote } from '../resources/write-note';

const STARTER_MESSAGES = JSON.stringify([{ role: 'system', content: 'You are helpful.' }, { role: 'user', content: 'Hello {{name}}' }], null, 2);

function parseJson(source: string): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: JSON.parse(source) };
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
}

export function PromptsPage({ api }: { api: Api }) {
  const prompts = useLoad(() => api.get<Page>('/v1/prompts', { limit: '100' }), []);
  const [selected, setSelected] = useState<Json>();
  const write = useCapability(api, { scope: 'prompts:write' });
  const [name, setName] = useState('');
  const [model, setModel] = useState('gpt-4o-mini');
  const [messages, setMessages] = useState(STARTER_MESSAGES);
  const [variables, setVariables] = useState('{"name": "Ada"}');
  const [preview, setPreview] = useState<unknown>();
  const [error, setError] = useState<Error>();
  const parsedMessages = parseJson(messages);
  const parsedVariables = parseJson(variables);

  const open = (row: Json) => {
    setSelected(row);
    setName(String(row.name));
    setModel(String(row.model ?? ''));
    setMessages(JSON.stringify(row.messages ?? [], null, 2));
    setPreview(undefined);
  };
  const save = () => {
    if (!parsedMessages.ok) return;
    setError(undefined);
    const body: Json = { name, messages: parsedMessages.value };
    if (model) body.model = model;
    const request = selected ? api.patch(`/v1/prompts/${segment(String(selected.id))}`, body) : api.post('/v1/prompts', body);
    request.then((result) => {
      setSelected(result);
      prompts.reload();
    }, setError);
  };
  const render = () => {
    if (!selected || !parsedVariables.ok) return;
    setError(undefined);
    api.post<{ data: unknown }>(`/v1/prompts/${segment(String(selected.id))}/render`, { variables: parsedVariables.value }).then((result) => setPreview(result.data), setError);
  };
  return (
    <Section title="Prompts">
      <ErrorBanner error={error ?? prompts.error} />
      <div class="split">
        <div>
          <Table<Json>
            label="Prompts"
            rows={prompts.data?.data ?? []}
            empty={prompts.loading ? 'Loading…' : 'No prompts.'}
            onOpen={open}
            columns={[
              { label: 'Name', cell: (row) => text(row.name) },
              { label: 'Id', cell: (row) => <code>{text(row.id)}</code> },
              { label: 'Version', cell: (row) => text(row.version ?? row.latest_version) },
            ]}
          />
        </div>
        <form
          class="editor"
          aria-label="Prompt editor"
          onSubmit={(event) => {
            event.preventDefault();
            save();
          }}
        >
          <TextInput label="name" name="prompt_name" value={name} onInput={setName} />
          <TextInput label="model" name="prompt_model" value={model} onInput={setModel} />
          <Field label="messages (JSON; {{variables}} allowed)">
            <textarea name="prompt_messages" rows={10} spellcheck={false} value={messages} onInput={(event) => setMessages((event.target as HTMLTextAreaElement).value)} />
          </Field>
          {parsedMessages.ok ? null : <p class="invalid">{parsedMessages.message}</p>}
          <WriteNote write={write} what="prompts" />
          <button type="submit" disabled={write.can !== 'yes' || !parsedMessages.ok || !name} title={write.reason}>
            {selected ? 'Save new version' : 'Create prompt'}
          </button>
          <Field label="variables (JSON)">
            <textarea name="prompt_variables" rows={3} spellcheck={false} value={variables} onInput={(event) => setVariables((event.target as HTMLTextAreaElement).value)} />
          </Field>
          <button type="button" disabled={!selected || !parsedVariables.ok} onClick={render}>
            Render preview
          </button>
          {preview ? <JsonView value={preview} label="Rendered prompt" /> : null}
        </form>
      </div>
    </Section>
  );
}
