import { segment, type Api, type Json } from '../api';
import { CopyButton, JsonView, LoadState, Section, Table, text, useLoad, when } from '../components';
import { curlFor } from '../curl';
import { gatewayRoot } from '../mount';
import { navigate } from '../router';
import { Conversation } from './conversation';
import { named, useNames, type Names } from '../names';

/** What a media request was billed by (issue #47), shown beside the tokens when the record has it. */
const MEDIA_USAGE = ['images', 'image_size', 'image_quality', 'characters', 'audio_seconds'];
const num = (value: unknown) => (typeof value === 'number' ? value : undefined);

/** One request: what it asked and got, the tries it took, what it cost, what guardrails said, and how to send it again. */
export function LogDetail({ api, logId }: { api: Api; logId: string }) {
  const record = useLoad(() => api.get(`/v1/logs/${segment(logId)}`), [logId]);
  const names = useNames(api);
  return (
    <Section
      title={`Request ${logId}`}
      actions={
        <button type="button" onClick={() => history.back()}>
          Back to logs
        </button>
      }
    >
      <LoadState load={record} what="the request">
        {(data) => <RecordView data={data} names={names} />}
      </LoadState>
    </Section>
  );
}

function RecordView({ data, names }: { data: Json; names: Names }) {
  const curl = curlFor(data, gatewayRoot());
  const usage = (data.usage ?? null) as Json | null;
  const spans = (data.spans as Json[] | undefined) ?? [];
  const verdicts = spans.filter((span) => String(span.name).startsWith('guardrail'));
  const attempts = (data.attempts as Json[] | undefined) ?? [];
  return (
    <>
      <dl class="facts">
        <dt>Time</dt>
        <dd>{when(data.created_at)}</dd>
        <dt>Status</dt>
        <dd data-testid="log-status">{text(data.status)}</dd>
        <dt>Model</dt>
        <dd data-testid="log-model">{text(data.model)}</dd>
        <dt>Provider</dt>
        <dd>{text(data.provider)}</dd>
        <dt>Endpoint</dt>
        <dd>
          {text(data.endpoint)}
          {data.stream === true ? ' (streamed)' : ''}
        </dd>
        <dt>Trace</dt>
        <dd>
          <a href={`#/traces/${segment(String(data.trace_id))}`}>{text(data.trace_id)}</a>
        </dd>
        <dt>Latency</dt>
        <dd>
          {text(data.latency_ms)} ms{num(data.ttft_ms) !== undefined ? `, first byte after ${String(data.ttft_ms)} ms` : ''}
        </dd>
        <dt>Cache</dt>
        <dd>{text(data.cache_status)}</dd>
        <dt>API key</dt>
        <dd title={String(data.api_key_id)}>{named(names, data.api_key_id)}</dd>
        {data.virtual_key_id ? (
          <>
            <dt>Virtual key</dt>
            <dd title={String(data.virtual_key_id)}>{named(names, data.virtual_key_id)}</dd>
          </>
        ) : null}
        {data.error ? (
          <>
            <dt>Error</dt>
            <dd class="invalid">{[(data.error as Json).code, (data.error as Json).message].filter(Boolean).join(': ')}</dd>
          </>
        ) : null}
      </dl>
      <h3>Cost and tokens</h3>
      <dl class="facts" aria-label="Cost and tokens">
        <dt>Cost</dt>
        <dd data-testid="log-cost">{typeof data.cost === 'number' ? `$${data.cost.toFixed(6)}` : 'not priced'}</dd>
        {usage ? (
          ['prompt_tokens', 'completion_tokens', 'cached_tokens', 'reasoning_tokens', 'total_tokens', ...MEDIA_USAGE.filter((name) => usage[name] !== undefined && usage[name] !== null)].map((name) => (
            <>
              <dt>{name.replaceAll('_', ' ')}</dt>
              <dd>{text(usage[name])}</dd>
            </>
          ))
        ) : (
          <>
            <dt>Tokens</dt>
            <dd>not reported</dd>
          </>
        )}
      </dl>
      <h3>Conversation</h3>
      <Conversation request={data.request_body} response={data.response_body} />
      <h3>Attempts</h3>
      <Table<Json>
        label="Attempts"
        rows={attempts}
        empty="No upstream call (answered by gw itself, or refused before routing)."
        columns={[
          { label: 'Target', cell: (row) => text(row.target_path) },
          { label: 'Provider', cell: (row) => text(row.provider) },
          { label: 'Model', cell: (row) => text(row.model) },
          { label: 'Try', cell: (row) => (Number(row.retry) > 0 ? `retry ${String(row.retry)}` : 'first') },
          { label: 'Status', cell: (row) => text(row.status) },
          { label: 'Latency (ms)', cell: (row) => text(row.latency_ms) },
          { label: 'Outcome', cell: (row) => (Number(row.status) >= 200 && Number(row.status) < 400 ? (row.target_path === data.last_used_option || attempts.length === 1 ? 'answered' : 'ok') : text(row.error_code ?? 'failed')) },
        ]}
      />
      <h3>Guardrails</h3>
      {verdicts.length === 0 ? (
        <p class="muted">No guardrail ran on this request.</p>
      ) : (
        <ul class="verdicts" aria-label="Guardrail verdicts">
          {verdicts.map((span) => (
            <li class={span.status === 'error' ? 'invalid' : 'valid'}>
              {String(span.name)}: {Object.entries((span.attributes ?? {}) as Json).map(([key, value]) => `${key}=${String(value)}`).join(', ') || String(span.status)}
            </li>
          ))}
        </ul>
      )}
      <h3>Reproduce</h3>
      <pre class="json" aria-label="curl command">
        {curl}
      </pre>
      <CopyButton text={curl} label="Copy curl" />
      <h3>Request body</h3>
      <JsonView value={data.request_body} label="Request body" />
      <h3>Response body</h3>
      <JsonView value={data.response_body} label="Response body" />
      <details>
        <summary>Full record</summary>
        <JsonView value={data} label="Full log record" />
      </details>
      <p>
        <button type="button" onClick={() => navigate(`/traces/${segment(String(data.trace_id))}`)}>
          Open trace
        </button>
      </p>
    </>
  );
}
