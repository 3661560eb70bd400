import { useEffect, useState } from 'preact/hooks';
import { segment, type Api, type Json, type Page } from '../api';
import { CopyButton, ErrorBanner, JsonView, Section, Table, TextInput, text, useLoad, when } from '../components';
import { curlFor } from '../curl';
import { gatewayRoot } from '../mount';
import { navigate } from '../router';

const FILTERS = ['trace_id', 'user', 'provider', 'model', 'status', 'cache_status', 'api_key_id', 'from', 'to'] as const;
type Filters = Partial<Record<(typeof FILTERS)[number], string>>;

export function LogsPage({ api, logId }: { api: Api; logId?: string }) {
  const [filters, setFilters] = useState<Filters>({});
  const [applied, setApplied] = useState<Filters>({});
  const [live, setLive] = useState(false);
  const logs = useLoad(() => api.get<Page>('/v1/logs', { ...applied, limit: '50' }), [JSON.stringify(applied)]);
  useEffect(() => {
    if (!live) return;
    const timer = setInterval(logs.reload, 5000);
    return () => clearInterval(timer);
  }, [live, logs.reload]);

  if (logId) return <LogDetail api={api} logId={logId} />;
  return (
    <Section
      title="Logs"
      actions={
        <label class="inline">
          <input type="checkbox" checked={live} onChange={(event) => setLive((event.target as HTMLInputElement).checked)} /> Live refresh
        </label>
      }
    >
      <form
        class="filters"
        aria-label="Log filters"
        onSubmit={(event) => {
          event.preventDefault();
          setApplied({ ...filters });
        }}
      >
        {FILTERS.map((name) => (
          <TextInput key={name} name={name} label={name.replace('_', ' ')} value={filters[name] ?? ''} placeholder={name === 'from' || name === 'to' ? 'ISO 8601' : ''} onInput={(value) => setFilters({ ...filters, [name]: value })} />
        ))}
        <button type="submit">Apply</button>
        <button type="button" onClick={logs.reload}>
          Refresh
        </button>
      </form>
      <ErrorBanner error={logs.error} />
      <Table<Json>
        label="Request logs"
        rows={logs.data?.data ?? []}
        empty={logs.loading ? 'Loading…' : 'No requests match.'}
        onOpen={(row) => navigate(`/logs/${segment(String(row.id))}`)}
        columns={[
          { label: 'Time', cell: (row) => when(row.created_at) },
          { label: 'Status', cell: (row) => <span class={`status s${String(row.status).charAt(0)}`}>{text(row.status)}</span> },
          { label: 'Endpoint', cell: (row) => text(row.endpoint) },
          { label: 'Provider', cell: (row) => text(row.provider) },
          { label: 'Model', cell: (row) => text(row.model) },
          { label: 'Latency (ms)', cell: (row) => text(row.latency_ms) },
          { label: 'Tokens', cell: (row) => text((row.usage as Json | undefined)?.total_tokens) },
          { label: 'Cost (USD)', cell: (row) => (typeof row.cost === 'number' ? row.cost.toFixed(6) : '—') },
          { label: 'Cache', cell: (row) => text(row.cache_status) },
        ]}
      />
    </Section>
  );
}

function LogDetail({ api, logId }: { api: Api; logId: string }) {
  const record = useLoad(() => api.get(`/v1/logs/${segment(logId)}`), [logId]);
  const data = record.data;
  const curl = data ? curlFor(data, gatewayRoot()) : '';
  return (
    <Section
      title={`Request ${logId}`}
      actions={
        <button type="button" onClick={() => navigate('/logs')}>
          Back to logs
        </button>
      }
    >
      <ErrorBanner error={record.error} />
      {data ? (
        <>
          <dl class="facts">
            <dt>Status</dt>
            <dd data-testid="log-status">{text(data.status)}</dd>
            <dt>Model</dt>
            <dd data-testid="log-model">{text(data.model)}</dd>
            <dt>Provider</dt>
            <dd>{text(data.provider)}</dd>
            <dt>Trace</dt>
            <dd>
              <a href={`#/traces/${segment(String(data.trace_id))}`}>{text(data.trace_id)}</a>
            </dd>
            <dt>Latency</dt>
            <dd>{text(data.latency_ms)} ms</dd>
          </dl>
          <h3>Reproduce</h3>
          <pre class="json" aria-label="curl command">
            {curl}
          </pre>
          <CopyButton text={curl} label="Copy curl" />
          <h3>Record</h3>
          <JsonView value={data} label="Full log record" />
        </>
      ) : (
        <p class="muted">Loading…</p>
      )}
    </Section>
  );
}
