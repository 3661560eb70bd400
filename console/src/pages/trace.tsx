import { useState } from 'preact/hooks';
import { segment, type Api, type Json } from '../api';
import { ErrorBanner, Section, Table, TextInput, text, useLoad, when } from '../components';
import { navigate, useHashQuery } from '../router';
import { rangeBounds, TimeRangePicker } from '../time-range';

interface Bar {
  name: string;
  kind: string;
  status: string;
  start: number;
  duration: number;
  detail: string;
}

/** A span's start and duration in ms, whichever way the record spells them. */
function toBar(span: Json): Bar {
  const start = Date.parse(String(span.start_time ?? span.started_at ?? span.start ?? '')) || Number(span.start_ms ?? 0);
  const end = Date.parse(String(span.end_time ?? span.ended_at ?? span.end ?? '')) || 0;
  const duration = Number(span.duration_ms ?? span.latency_ms ?? (end && start ? end - start : 0));
  const attributes = (span.attributes ?? {}) as Json;
  const detail = [attributes.provider ?? span.provider, attributes.target_path ?? span.target_path, attributes['http.status_code'] ?? span.http_status].filter(Boolean).join(' · ');
  return { name: String(span.name ?? 'span'), kind: String(span.kind ?? ''), status: String(span.status ?? attributes.status ?? ''), start, duration, detail };
}

/**
 * A request as a bar of its own, from its start to its last byte: its record is written when it ends (`created_at`)
 * after `latency_ms`, while its spans stop where gw's stages stop (a stream's attempt at its first byte), so without
 * it the waterfall ended long before the request did.
 */
function requestBar(request: Json): Bar | undefined {
  const end = Date.parse(String(request.created_at ?? ''));
  const duration = Number(request.latency_ms);
  if (Number.isNaN(end) || !Number.isFinite(duration)) return undefined;
  const detail = [request.model, request.stream === true ? 'streamed, to the last byte' : 'to the last byte'].filter(Boolean).join(' · ');
  return { name: 'request', kind: 'request', status: Number(request.status) >= 400 ? 'error' : 'ok', start: end - duration, duration, detail };
}

export function Waterfall({ spans, requests = [] }: { spans: Json[]; requests?: Json[] }) {
  const wholes = requests.map(requestBar).filter((bar): bar is Bar => bar !== undefined);
  const bars = [...wholes, ...spans.map(toBar)].sort((a, b) => a.start - b.start || (a.kind === 'request' ? -1 : 1));
  if (bars.length === 0) return <p class="muted">No spans recorded.</p>;
  const origin = Math.min(...bars.map((bar) => bar.start));
  const total = Math.max(1, ...bars.map((bar) => bar.start - origin + bar.duration));
  return (
    <ol class="waterfall" aria-label="Spans">
      {bars.map((bar) => (
        <li class={`span ${bar.kind} ${bar.status === 'error' ? 'failed' : ''}`}>
          <span class="span-name">
            {bar.name}
            {bar.detail ? <small> {bar.detail}</small> : null}
          </span>
          <span class="span-track" aria-hidden="true">
            <span class="span-bar" style={{ left: `${((bar.start - origin) / total) * 100}%`, width: `${Math.max(0.5, (bar.duration / total) * 100)}%` }} />
          </span>
          <span class="span-time">{bar.duration.toFixed(1)} ms</span>
        </li>
      ))}
    </ol>
  );
}

export function TracePage({ api, traceId }: { api: Api; traceId?: string }) {
  const [input, setInput] = useState(traceId ?? '');
  const [query, setQuery] = useHashQuery();
  const traces = useLoad(() => (traceId ? Promise.resolve(undefined) : api.get<{ data: Json[] }>('/v1/traces', { limit: '50', ...rangeBounds(query) })), [traceId, query.range, query.from, query.to]);
  const trace = useLoad(() => (traceId ? api.get<{ trace_id: string; requests: Json[]; spans: Json[] }>(`/v1/traces/${segment(traceId)}`) : Promise.resolve(undefined)), [traceId]);
  return (
    <Section title={traceId ? `Trace ${traceId}` : 'Traces'}>
      <form
        class="filters"
        aria-label="Find a trace"
        onSubmit={(event) => {
          event.preventDefault();
          if (input.trim()) navigate(`/traces/${segment(input.trim())}`);
        }}
      >
        <TextInput label="trace id" name="trace_id" value={input} onInput={setInput} />
        <button type="submit">Open</button>
      </form>
      <ErrorBanner error={traceId ? trace.error : traces.error} onRetry={traceId ? trace.reload : traces.reload} />
      {!traceId ? <TimeRangePicker value={query} onChange={(range) => setQuery({ ...query, ...range })} /> : null}
      {(traceId ? trace : traces).loading && !(traceId ? trace.data : traces.data) ? (
        <p class="muted" role="status">
          Loading…
        </p>
      ) : null}
      {traceId && trace.data ? (
        <>
          <Waterfall spans={trace.data.spans ?? []} requests={trace.data.requests ?? []} />
          <h3>Requests</h3>
          <Table<Json>
            label="Requests of the trace"
            rows={trace.data.requests ?? []}
            empty="No requests."
            onOpen={(row) => navigate(`/logs/${segment(String(row.id))}`)}
            columns={[
              { label: 'Time', cell: (row) => when(row.created_at) },
              { label: 'Status', cell: (row) => text(row.status) },
              { label: 'Model', cell: (row) => text(row.model) },
              { label: 'Latency (ms)', cell: (row) => text(row.latency_ms) },
            ]}
          />
        </>
      ) : null}
      {!traceId && traces.data ? (
        <Table<Json>
          label="Traces"
          rows={traces.data.data ?? []}
          empty="No traces yet."
          onOpen={(row) => navigate(`/traces/${segment(String(row.trace_id))}`)}
          columns={[
            { label: 'Trace', cell: (row) => text(row.trace_id) },
            { label: 'Started', cell: (row) => when(row.started_at ?? row.created_at ?? row.first_at) },
            { label: 'Requests', cell: (row) => text(row.requests ?? row.request_count) },
            { label: 'Errors', cell: (row) => text(row.errors ?? row.error_count) },
          ]}
        />
      ) : null}
    </Section>
  );
}
