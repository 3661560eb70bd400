import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import type { Api, Json } from '../api';
import { ErrorBanner, Field, Section, Table, TextInput, text, useLoad } from '../components';

const GROUPS = ['model', 'provider', 'api_key', 'workspace'] as const;
const METRICS = {
  requests: 'Requests',
  errors: 'Errors',
  cost: 'Cost (USD)',
  tokens: 'Tokens',
  latency_p50_ms: 'Latency p50 (ms)',
  latency_p95_ms: 'Latency p95 (ms)',
  cache_hit_rate: 'Cache hit rate',
} as const;
type Metric = keyof typeof METRICS;

interface Analytics {
  rows: Json[];
  series?: Json[];
}

const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

function metricOf(point: Json, metric: Metric): number {
  if (metric === 'tokens') return num(point.prompt_tokens) + num(point.completion_tokens);
  if (metric === 'cache_hit_rate') return num(point.requests) ? num(point.cache_hits) / num(point.requests) : 0;
  return num(point[metric]);
}

/**
 * One value per interval bucket over the whole window (empty buckets are 0, so the line shows quiet hours too);
 * points of several group keys in one bucket are summed, latency keeps the bucket's worst value.
 */
function timeline(series: Json[], metric: Metric, from: string, to: string, interval: 'hour' | 'day'): [number[], number[]] {
  const step = interval === 'hour' ? 3600_000 : 86_400_000;
  const buckets = new Map<number, Json[]>();
  for (const point of series) {
    const time = Date.parse(String(point.time ?? point.bucket ?? ''));
    if (!Number.isFinite(time)) continue;
    const bucket = Math.floor(time / step) * step;
    buckets.set(bucket, [...(buckets.get(bucket) ?? []), point]);
  }
  const start = Math.floor((Date.parse(from) || Date.now() - 86_400_000) / step) * step;
  const end = Math.max(start, Date.parse(to) || Date.now());
  const times: number[] = [];
  for (let time = start; time <= end && times.length < 2000; time += step) times.push(time);
  const values = times.map((time) => {
    const points = buckets.get(time) ?? [];
    if (points.length === 0) return 0;
    if (metric.startsWith('latency')) return Math.max(...points.map((point) => metricOf(point, metric)));
    if (metric === 'cache_hit_rate') {
      const requests = points.reduce((sum, point) => sum + num(point.requests), 0);
      return requests ? points.reduce((sum, point) => sum + num(point.cache_hits), 0) / requests : 0;
    }
    return points.reduce((sum, point) => sum + metricOf(point, metric), 0);
  });
  return [times.map((time) => time / 1000), values];
}

function Chart({ data, label }: { data: [number[], number[]]; label: string }) {
  const holder = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!holder.current) return;
    const dark = document.documentElement.dataset.theme === 'dark';
    const plot = new uPlot(
      {
        width: Math.max(320, holder.current.clientWidth),
        height: 260,
        series: [{}, { label, stroke: dark ? '#7cc4ff' : '#1763b8', width: 2, fill: dark ? 'rgba(124,196,255,0.15)' : 'rgba(23,99,184,0.1)', points: { show: true, size: 5 } }],
        scales: { y: { range: (_plot, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
        axes: [{ stroke: dark ? '#ccc' : '#333' }, { stroke: dark ? '#ccc' : '#333' }],
      },
      data,
      holder.current,
    );
    return () => plot.destroy();
  }, [data, label]);
  return <div ref={holder} class="chart" role="img" aria-label={`${label} over time`} />;
}

export function AnalyticsPage({ api }: { api: Api }) {
  const [groupBy, setGroupBy] = useState<string>('model');
  const [metadataKey, setMetadataKey] = useState('');
  const [interval, setInterval] = useState<'hour' | 'day'>('hour');
  const [metric, setMetric] = useState<Metric>('requests');
  const [from, setFrom] = useState(() => new Date(Date.now() - 24 * 3600_000).toISOString());
  const [to, setTo] = useState(() => new Date(Date.now() + 3600_000).toISOString());
  const group = groupBy === 'metadata' ? `metadata.${metadataKey}` : groupBy;
  const analytics = useLoad(() => api.get<Analytics>('/v1/analytics', { group_by: group, interval, from, to }), [group, interval, from, to]);
  const rows = analytics.data?.rows ?? [];
  const totals = rows.reduce<Record<string, number>>((sum, row) => {
    for (const name of ['requests', 'errors', 'prompt_tokens', 'completion_tokens', 'cost', 'cache_hits']) sum[name] = (sum[name] ?? 0) + num(row[name]);
    return sum;
  }, {});
  return (
    <Section title="Analytics">
      <form class="filters" aria-label="Analytics options" onSubmit={(event) => event.preventDefault()}>
        <Field label="group by">
          <select name="group_by" value={groupBy} onChange={(event) => setGroupBy((event.target as HTMLSelectElement).value)}>
            {[...GROUPS, 'metadata'].map((name) => (
              <option value={name}>{name}</option>
            ))}
          </select>
        </Field>
        {groupBy === 'metadata' ? <TextInput label="metadata key" value={metadataKey} onInput={setMetadataKey} placeholder="_user" /> : null}
        <Field label="interval">
          <select name="interval" value={interval} onChange={(event) => setInterval((event.target as HTMLSelectElement).value as 'hour' | 'day')}>
            <option value="hour">hour</option>
            <option value="day">day</option>
          </select>
        </Field>
        <Field label="chart">
          <select name="metric" value={metric} onChange={(event) => setMetric((event.target as HTMLSelectElement).value as Metric)}>
            {Object.entries(METRICS).map(([value, label]) => (
              <option value={value}>{label}</option>
            ))}
          </select>
        </Field>
        <TextInput label="from" value={from} onInput={setFrom} />
        <TextInput label="to" value={to} onInput={setTo} />
      </form>
      <ErrorBanner error={analytics.error} />
      <dl class="facts totals" aria-label="Totals">
        <dt>Requests</dt>
        <dd data-testid="total-requests">{totals.requests ?? 0}</dd>
        <dt>Errors</dt>
        <dd data-testid="total-errors">{totals.errors ?? 0}</dd>
        <dt>Tokens</dt>
        <dd data-testid="total-tokens">{(totals.prompt_tokens ?? 0) + (totals.completion_tokens ?? 0)}</dd>
        <dt>Cost (USD)</dt>
        <dd data-testid="total-cost">{(totals.cost ?? 0).toFixed(6)}</dd>
        <dt>Cache hit rate</dt>
        <dd>{totals.requests ? `${(((totals.cache_hits ?? 0) / totals.requests) * 100).toFixed(1)} %` : '—'}</dd>
      </dl>
      {analytics.data ? <Chart data={timeline(analytics.data.series ?? [], metric, from, to, interval)} label={METRICS[metric]} /> : null}
      <Table<Json>
        label="Analytics by group"
        rows={rows}
        empty={analytics.loading ? 'Loading…' : 'No requests in this period.'}
        columns={[
          { label: group, cell: (row) => text(row.key) },
          { label: 'Requests', cell: (row) => text(row.requests) },
          { label: 'Errors', cell: (row) => text(row.errors) },
          { label: 'Prompt tokens', cell: (row) => text(row.prompt_tokens) },
          { label: 'Completion tokens', cell: (row) => text(row.completion_tokens) },
          { label: 'Cost (USD)', cell: (row) => num(row.cost).toFixed(6) },
          { label: 'Cache hits', cell: (row) => text(row.cache_hits) },
          { label: 'p50 (ms)', cell: (row) => text(row.latency_p50_ms) },
          { label: 'p95 (ms)', cell: (row) => text(row.latency_p95_ms) },
        ]}
      />
    </Section>
  );
}
