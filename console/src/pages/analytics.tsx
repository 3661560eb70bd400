import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import type { Api, Json } from '../api';
import { ErrorBanner, Field, Section, Table, TextInput, text, useLoad } from '../components';
import { rangeBounds, TimeRangePicker, type RangeState } from '../time-range';
import { CHARTS, chartKeys, num, timelines, type Metric } from './analytics-series';
import { TopLists } from './analytics-top';
import { useNames } from '../names';

const GROUPS = ['model', 'provider', 'api_key', 'workspace'] as const;
const PALETTE = ['#1763b8', '#1a7f37', '#c2410c', '#7c3aed', '#b91c1c', '#6b7280'];
const DARK_PALETTE = ['#7cc4ff', '#56d364', '#fb923c', '#c4b5fd', '#ff7b72', '#9aa4b0'];

interface Analytics {
  rows: Json[];
  series?: Json[];
}

/** Axis labels that stay readable for fractions of a cent (uPlot's default rounds them to 0). */
const tick = (value: number) => (value !== 0 && Math.abs(value) < 0.01 ? value.toExponential(1) : String(Number(value.toFixed(4))));

/** One chart: a line per group key (uPlot's legend names each with textContent, never as HTML). */
function Chart({ data, label, lines }: { data: number[][]; label: string; lines: string[] }) {
  const holder = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!holder.current) return;
    const dark = document.documentElement.dataset.theme === 'dark';
    const colours = dark ? DARK_PALETTE : PALETTE;
    const plot = new uPlot(
      {
        width: Math.max(240, holder.current.clientWidth),
        height: 220,
        title: label,
        series: [{}, ...lines.map((line, index) => ({ label: line, stroke: colours[index % colours.length], width: 2, points: { show: true, size: 4 } }))],
        scales: { y: { range: (_plot, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
        axes: [{ stroke: dark ? '#ccc' : '#333' }, { stroke: dark ? '#ccc' : '#333', size: 60, values: (_plot, splits) => splits.map(tick) }],
      },
      data as uPlot.AlignedData,
      holder.current,
    );
    return () => plot.destroy();
  }, [data, label]);
  return <div ref={holder} class="chart" role="img" aria-label={`${label} over time, by ${lines.join(', ') || 'nothing yet'}`} />;
}

export function AnalyticsPage({ api }: { api: Api }) {
  const [groupBy, setGroupBy] = useState<string>('model');
  const [metadataKey, setMetadataKey] = useState('');
  const [interval, setInterval] = useState<'hour' | 'day'>('hour');
  const [shown, setShown] = useState<Metric[]>(['requests', 'errors', 'tokens', 'cost', 'latency_p50_ms', 'latency_p95_ms']);
  const [range, setRange] = useState<RangeState>({ range: '24h' });
  // The window is fixed when the range is chosen, so the charts' time axis does not move under a re-render.
  const { from, to } = useMemo(() => {
    const bounds = rangeBounds(range);
    return { from: bounds.from ?? new Date(Date.now() - 86_400_000).toISOString(), to: bounds.to ?? new Date(Date.now() + 60_000).toISOString() };
  }, [range.range, range.from, range.to]);
  const group = groupBy === 'metadata' ? `metadata.${metadataKey}` : groupBy;
  const analytics = useLoad(() => api.get<Analytics>('/v1/analytics', { group_by: group, interval, from, to }), [group, interval, from, to]);
  const rows = analytics.data?.rows ?? [];
  // API keys and workspaces are grouped by id: shown by name where one exists.
  const names = useNames(api);
  const label = useCallback((key: unknown) => ((groupBy === 'api_key' || groupBy === 'workspace') && typeof key === 'string' ? (names.get(key) ?? key) : text(key)), [groupBy, names]);
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
        <fieldset class="inline" aria-label="Charts">
          {(Object.keys(CHARTS) as Metric[]).map((name) => (
            <label class="inline">
              <input type="checkbox" checked={shown.includes(name)} onChange={(event) => setShown((event.target as HTMLInputElement).checked ? [...shown, name] : shown.filter((item) => item !== name))} />
              {CHARTS[name]}
            </label>
          ))}
        </fieldset>
      </form>
      <TimeRangePicker value={range} onChange={setRange} allowAll={false} />
      <ErrorBanner error={analytics.error} onRetry={analytics.reload} />
      {analytics.data === undefined ? (
        analytics.error ? null : (
          <p class="muted" role="status">
            Loading analytics…
          </p>
        )
      ) : (
      <>
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
      <Charts analytics={analytics.data} shown={shown} window={{ from, to, interval }} label={label} />
      <Table<Json>
        label="Analytics by group"
        rows={rows}
        empty="No requests in this period."
        columns={[
          { label: group, cell: (row) => <span title={String(row.key)}>{label(row.key)}</span> },
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
      <TopLists api={api} from={from} to={to} />
      </>
      )}
    </Section>
  );
}

function Charts({ analytics, shown, window, label }: { analytics: Analytics; shown: Metric[]; window: { from: string; to: string; interval: 'hour' | 'day' }; label: (key: string) => string }) {
  // Computed once per answer and choice, so the charts are not rebuilt on every render.
  const charts = useMemo(() => {
    const lines = chartKeys(analytics.rows);
    const names = [...lines.keys.map(label), ...(lines.other ? ['other'] : [])];
    return (Object.keys(CHARTS) as Metric[]).filter((metric) => shown.includes(metric)).map((metric) => ({ metric, names, data: timelines(analytics.series ?? [], metric, window, lines) }));
  }, [analytics, shown.join(), window.from, window.to, window.interval, label]);
  return (
    <div class="charts">
      {charts.map(({ metric, names, data }) => (
        <Chart key={metric} label={CHARTS[metric]} lines={names} data={data} />
      ))}
    </div>
  );
}
