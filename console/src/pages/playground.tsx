import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, segment, type Api, type Json, type Page } from '../api';
import { CopyButton, ErrorBanner, Field, Section, TextInput, text } from '../components';
import { gatewayRoot } from '../mount';
import { useCapability } from '../resources/capabilities';
import { curlSnippet, pythonSnippet, typescriptSnippet, type PlaygroundRequest, type Route } from '../playground/snippets';
import { streamChat } from '../playground/stream';

interface Message {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

const ROUTE_HEADERS: Record<Route['kind'], string> = { virtual_key: 'x-gw-virtual-key', provider: 'x-gw-provider', config: 'x-gw-config' };
const ROUTE_LABELS: Record<Route['kind'], string> = { virtual_key: 'Virtual key', provider: 'Provider', config: 'Saved config' };

/** Each route's choices, from the API; a list the key may not read just leaves that kind empty. */
function useChoices(api: Api): Record<Route['kind'], { value: string; label: string }[]> {
  const [choices, setChoices] = useState<Record<Route['kind'], { value: string; label: string }[]>>({ virtual_key: [], provider: [], config: [] });
  useEffect(() => {
    const list = (path: string, pick: (row: Json) => { value: string; label: string }) =>
      api.get<Page>(path, { limit: '100' }).then(
        (page) => page.data.map(pick),
        () => [],
      );
    void Promise.all([
      list('/v1/virtual-keys', (row) => ({ value: String(row.id), label: `${text(row.name)} (${text(row.provider)})` })),
      list('/v1/providers', (row) => ({ value: `@${String(row.slug ?? row.id)}`, label: `${text(row.name ?? row.slug)} (${text(row.provider ?? row.ai_provider)})` })),
      list('/v1/configs', (row) => ({ value: String(row.id), label: text(row.name) })),
    ]).then(([virtual_key, provider, config]) => setChoices({ virtual_key, provider, config }));
  }, [api.credential.value]);
  return choices;
}

/** The request's log record (cost, tokens, latency) once gw has written it: records land just after the response. */
async function recordOf(api: Api, traceId: string): Promise<Json | undefined> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const page = await api.get<Page>('/v1/logs', { trace_id: traceId, limit: '1' });
    if (page.data[0]) return page.data[0];
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return undefined;
}

export function PlaygroundPage({ api }: { api: Api }) {
  const choices = useChoices(api);
  const [kind, setKind] = useState<Route['kind']>('virtual_key');
  const [routeValue, setRouteValue] = useState('');
  const [model, setModel] = useState('gpt-4o-mini');
  const [maxTokens, setMaxTokens] = useState('');
  const [messages, setMessages] = useState<Message[]>([{ role: 'user', content: '' }]);
  const [answer, setAnswer] = useState('');
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<Error>();
  const [traceId, setTraceId] = useState<string>();
  const [record, setRecord] = useState<Json | { denied: true }>();
  // Calling models needs a gw API key with completions:write: GET /v1/me says whether the key holds it (and should
  // gw refuse a send anyway, Send stays disabled from then on).
  const [refused, setDenied] = useState<string | undefined>(api.credential.kind === 'jwt' ? 'the playground needs a gw API key with the completions:write scope; a JWT is read-only' : undefined);
  const calling = useCapability(api, { scope: 'completions:write' });
  const denied = refused ?? (calling.can === 'no' ? calling.reason : undefined);
  const abort = useRef<AbortController | undefined>(undefined);
  const options = choices[kind];
  const value = routeValue || options[0]?.value || '';
  const body: Json = { model, messages: messages.filter((message) => message.content.trim()), ...(maxTokens ? { max_tokens: Number(maxTokens) } : {}) };
  const request: PlaygroundRequest = { root: gatewayRoot(), route: { kind, value }, body, traceId };

  const send = () => {
    const id = `playground-${crypto.randomUUID()}`;
    abort.current = new AbortController();
    setAnswer('');
    setError(undefined);
    setRecord(undefined);
    setTraceId(id);
    setSending(true);
    streamChat(api.credential, { [ROUTE_HEADERS[kind]]: value, 'x-gw-trace-id': id }, body, (piece) => setAnswer((previous) => previous + piece), abort.current.signal)
      .then(
        // The answer is in; its cost comes from the log record. A key that may call models but not read logs gets a note, not an error.
        () => recordOf(api, id).then(setRecord, (thrown: Error) => (thrown instanceof ApiError && thrown.status === 403 ? setRecord({ denied: true }) : setError(thrown))),
        (thrown: Error) => (thrown instanceof ApiError && thrown.status === 403 && thrown.code === 'missing_scope' ? setDenied(thrown.message) : setError(thrown)),
      )
      .finally(() => setSending(false));
  };

  return (
    <Section title="Playground">
      <div class="split">
        <form
          class="editor"
          aria-label="Playground request"
          onSubmit={(event) => {
            event.preventDefault();
            send();
          }}
        >
          <div class="filters">
            <Field label="route through">
              <select name="route_kind" aria-label="route through" value={kind} onChange={(event) => (setKind((event.target as HTMLSelectElement).value as Route['kind']), setRouteValue(''))}>
                {(Object.keys(ROUTE_LABELS) as Route['kind'][]).map((option) => (
                  <option value={option}>{ROUTE_LABELS[option]}</option>
                ))}
              </select>
            </Field>
            {options.length > 0 ? (
              <Field label={ROUTE_LABELS[kind].toLowerCase()}>
                <select name="route_value" aria-label={ROUTE_LABELS[kind].toLowerCase()} value={value} onChange={(event) => setRouteValue((event.target as HTMLSelectElement).value)}>
                  {options.map((option) => (
                    <option value={option.value}>{option.label}</option>
                  ))}
                </select>
              </Field>
            ) : (
              <TextInput label={ROUTE_LABELS[kind].toLowerCase()} name="route_value" value={routeValue} onInput={setRouteValue} placeholder={kind === 'provider' ? 'openai or @slug' : 'id'} />
            )}
            <TextInput label="model" name="model" value={model} onInput={setModel} />
            <TextInput label="max tokens (optional)" name="max_tokens" value={maxTokens} onInput={setMaxTokens} />
          </div>
          {messages.map((message, index) => (
            <div class="message">
              <Field label={`message ${index + 1} role`}>
                <select aria-label={`message ${index + 1} role`} value={message.role} onChange={(event) => setMessages(messages.map((item, at) => (at === index ? { ...item, role: (event.target as HTMLSelectElement).value as Message['role'] } : item)))}>
                  <option value="system">system</option>
                  <option value="user">user</option>
                  <option value="assistant">assistant</option>
                </select>
              </Field>
              <Field label={`message ${index + 1}`}>
                <textarea aria-label={`message ${index + 1}`} rows={3} value={message.content} onInput={(event) => setMessages(messages.map((item, at) => (at === index ? { ...item, content: (event.target as HTMLTextAreaElement).value } : item)))} />
              </Field>
            </div>
          ))}
          <span class="actions">
            <button type="button" onClick={() => setMessages([...messages, { role: messages.at(-1)?.role === 'user' ? 'assistant' : 'user', content: '' }])}>
              Add message
            </button>
            <button type="submit" title={denied} disabled={Boolean(denied) || sending || !value || !body.messages || (body.messages as Message[]).length === 0}>
              {sending ? 'Sending…' : 'Send'}
            </button>
            {sending ? (
              <button type="button" onClick={() => abort.current?.abort()}>
                Stop
              </button>
            ) : null}
          </span>
          {denied ? (
            <p class="muted" data-testid="write-disabled">
              Your key can't send requests: {denied}
            </p>
          ) : null}
        </form>
        <div>
          <ErrorBanner error={error} />
          <h3>Answer</h3>
          <pre class="json answer" aria-label="Answer" aria-live="polite" data-testid="playground-answer">
            {answer || (sending ? '…' : '—')}
          </pre>
          {traceId ? <Outcome traceId={traceId} record={record} sending={sending} /> : null}
          <Snippets request={request} />
        </div>
      </div>
    </Section>
  );
}

function Outcome({ traceId, record, sending }: { traceId: string; record?: Json | { denied: true }; sending: boolean }) {
  if (record && 'denied' in record) return <p class="muted">Cost and tokens need the logs:read scope.</p>;
  const usage = (record?.usage ?? {}) as Json;
  return (
    <dl class="facts" aria-label="Request outcome">
      <dt>Trace</dt>
      <dd>
        <a href={`#/traces/${segment(traceId)}`}>{traceId}</a>
      </dd>
      <dt>Cost (USD)</dt>
      <dd data-testid="playground-cost">{typeof record?.cost === 'number' ? record.cost.toFixed(6) : sending || !record ? '…' : '—'}</dd>
      <dt>Tokens</dt>
      <dd data-testid="playground-tokens">{record ? `${text(usage.prompt_tokens)} in / ${text(usage.completion_tokens)} out` : '…'}</dd>
      <dt>Latency</dt>
      <dd>{record ? `${text(record.latency_ms)} ms` : '…'}</dd>
      <dt>Log</dt>
      <dd>{record?.id ? <a href={`#/logs/${segment(String(record.id))}`}>{String(record.id)}</a> : '…'}</dd>
    </dl>
  );
}

const LANGUAGES = [
  ['curl', curlSnippet],
  ['TypeScript', typescriptSnippet],
  ['Python', pythonSnippet],
] as const;

function Snippets({ request }: { request: PlaygroundRequest }) {
  const [language, setLanguage] = useState<(typeof LANGUAGES)[number][0]>('curl');
  const code = LANGUAGES.find(([name]) => name === language)![1](request);
  return (
    <>
      <h3>As code</h3>
      <span class="actions" role="group" aria-label="Snippet language">
        {LANGUAGES.map(([name]) => (
          <button type="button" aria-pressed={language === name} onClick={() => setLanguage(name)}>
            {name}
          </button>
        ))}
        <CopyButton text={code} label={`Copy as ${language}`} />
      </span>
      <pre class="json" aria-label={`${language} snippet`} data-testid="playground-snippet">
        {code}
      </pre>
    </>
  );
}
