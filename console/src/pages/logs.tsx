import { useEffect, useState } from 'preact/hooks';
import { segment, type Api, type Json, type Page } from '../api';
import { Field, LoadState, Section, Table, useLoad } from '../components';
import { navigate, useHashQuery } from '../router';
import { rangeBounds, TimeRangePicker } from '../time-range';
import { LogDetail } from './log-detail';
import { useNames } from '../names';
import { ColumnChooser, DEFAULT_COLUMNS, logColumns, type LogColumn } from './log-columns';
import { FILTER_NAMES, filterQuery, LogFilterBar, type Filters } from './log-filters';

const PAGE_SIZES = ['20', '50', '100'];

/**
 * The logs explorer. Everything that shapes the view (range, filters, sort, page size, columns) lives in the URL, so
 * a view can be shared as a link; the position in the list is a stack of gw's cursors, so paging reaches any row.
 */
export function LogsPage({ api, logId }: { api: Api; logId?: string }) {
  if (logId) return <LogDetail api={api} logId={logId} />;
  return <LogList api={api} />;
}

function LogList({ api }: { api: Api }) {
  const [query, setQuery] = useHashQuery();
  const filters: Filters = Object.fromEntries(FILTER_NAMES.filter((name) => query[name]).map((name) => [name, query[name]]));
  const sort = query.sort ?? 'created_at';
  const order = query.order === 'asc' ? 'asc' : 'desc';
  const limit = PAGE_SIZES.includes(query.limit ?? '') ? query.limit! : '50';
  const shown = query.cols ? query.cols.split(',') : DEFAULT_COLUMNS;
  const view = JSON.stringify([filters, query.range, query.from, query.to, sort, order, limit]);
  // Cursors of the pages before this one; reset whenever the view changes.
  const [cursors, setCursors] = useState<string[]>([]);
  const [live, setLive] = useState(false);
  useEffect(() => setCursors([]), [view]);
  const cursor = cursors.at(-1);
  const logs = useLoad(() => {
    const bounds = rangeBounds(query);
    return api.get<Page>('/v1/logs', { ...filterQuery(filters), ...bounds, sort: sort === 'created_at' ? undefined : sort, order: order === 'desc' ? undefined : order, limit, cursor });
  }, [view, cursor]);
  useEffect(() => {
    // Live refresh follows the first page only: a later page is a position in a list that keeps growing.
    if (!live || cursor) return;
    const timer = setInterval(logs.reload, 5000);
    return () => clearInterval(timer);
  }, [live, cursor, logs.reload]);

  const update = (next: Record<string, string | undefined>) => setQuery({ ...query, ...next });
  const sortBy = (field: string) => update(field === sort ? { sort: field === 'created_at' ? undefined : field, order: order === 'desc' ? 'asc' : undefined } : { sort: field === 'created_at' ? undefined : field, order: undefined });
  const names = useNames(api);
  const columns = logColumns(names).filter((column) => shown.includes(column.id)).map((column) => withSortHeader(column, sort, order, sortBy));
  const first = cursors.length * Number(limit) + 1;
  const rows = logs.data?.data ?? [];
  return (
    <Section
      title="Logs"
      actions={
        <label class="inline">
          <input type="checkbox" checked={live} onChange={(event) => setLive((event.target as HTMLInputElement).checked)} /> Live refresh
        </label>
      }
    >
      <TimeRangePicker value={query} onChange={(range) => update({ range: range.range, from: range.from, to: range.to })} />
      <LogFilterBar
        key={view}
        api={api}
        filters={filters}
        from={rangeBounds(query).from}
        onChange={(next) => setQuery({ ...Object.fromEntries(Object.entries(query).filter(([name]) => !(FILTER_NAMES as readonly string[]).includes(name))), ...next })}
      />
      <div class="list-tools">
        <Field label="sort by">
          <select name="sort" value={`${sort}:${order}`} onChange={(event) => {
            const [field, direction] = (event.target as HTMLSelectElement).value.split(':');
            update({ sort: field === 'created_at' ? undefined : field, order: direction === 'asc' ? 'asc' : undefined });
          }}>
            <option value="created_at:desc">newest first</option>
            <option value="created_at:asc">oldest first</option>
            <option value="cost:desc">most expensive first</option>
            <option value="latency_ms:desc">slowest first</option>
            <option value="total_tokens:desc">most tokens first</option>
            <option value="cost:asc">cheapest first</option>
            <option value="latency_ms:asc">fastest first</option>
            <option value="total_tokens:asc">fewest tokens first</option>
          </select>
        </Field>
        <Field label="rows per page">
          <select name="limit" value={limit} onChange={(event) => update({ limit: (event.target as HTMLSelectElement).value })}>
            {PAGE_SIZES.map((size) => (
              <option value={size}>{size}</option>
            ))}
          </select>
        </Field>
        <ColumnChooser shown={shown} onChange={(next) => update({ cols: next.join(',') })} />
        <button type="button" onClick={logs.reload}>
          Refresh
        </button>
      </div>
      <LoadState load={logs} what="request logs">
        {(page) => (
          <Table<Json>
            label="Request logs"
            rows={page.data}
            empty={cursors.length > 0 ? 'No more requests.' : 'No requests match these filters in this range.'}
            onOpen={(row) => navigate(`/logs/${segment(String(row.id))}`)}
            columns={columns}
          />
        )}
      </LoadState>
      <div class="pager" role="group" aria-label="Paging">
        <button type="button" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
          Previous page
        </button>
        <span class="muted" data-testid="log-rows-shown">
          {rows.length > 0 ? `Rows ${first}–${first + rows.length - 1}` : ''}
        </span>
        <button type="button" disabled={!logs.data?.next_cursor || logs.loading} onClick={() => logs.data?.next_cursor && setCursors([...cursors, logs.data.next_cursor])}>
          Next page
        </button>
      </div>
    </Section>
  );
}

/** A sortable column's header: a button that sorts by it (descending first), with aria-sort saying the current order. */
function withSortHeader(column: LogColumn, sort: string, order: 'asc' | 'desc', sortBy: (field: string) => void): LogColumn {
  if (!column.sort) return column;
  const active = column.sort === sort;
  const field = column.sort;
  return {
    ...column,
    sorted: active ? (order === 'asc' ? 'ascending' : 'descending') : 'none',
    header: (
      <button type="button" class="sort" onClick={() => sortBy(field)} aria-label={`Sort by ${column.label}`}>
        {column.label} {active ? (order === 'asc' ? '▲' : '▼') : ''}
      </button>
    ),
  };
}
