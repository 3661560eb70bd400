import type { Json } from '../api';
import { segment } from '../api';
import { text, when, type Column } from '../components';
import { named, type Names } from '../names';

/** The sortable figures (GET /v1/logs `sort`) and the column each one heads. */
export const SORTS = [
  ['created_at', 'Time'],
  ['latency_ms', 'Latency (ms)'],
  ['total_tokens', 'Tokens'],
  ['cost', 'Cost (USD)'],
] as const;

export interface LogColumn extends Column<Json> {
  id: string;
  sort?: string;
}

const usage = (row: Json) => row.usage as Json | null | undefined;

/** Every column the explorer can show; the chooser picks which (kept in the URL as `cols`). Keys show their names. */
export const logColumns = (names: Names): LogColumn[] => [
  { id: 'time', label: 'Time', sort: 'created_at', cell: (row) => when(row.created_at) },
  { id: 'status', label: 'Status', cell: (row) => <span class={`status s${String(row.status).charAt(0)}`}>{text(row.status)}</span> },
  { id: 'endpoint', label: 'Endpoint', cell: (row) => text(row.endpoint) },
  { id: 'provider', label: 'Provider', cell: (row) => text(row.provider) },
  { id: 'model', label: 'Model', cell: (row) => text(row.model) },
  { id: 'latency', label: 'Latency (ms)', sort: 'latency_ms', cell: (row) => text(row.latency_ms) },
  { id: 'tokens', label: 'Tokens', sort: 'total_tokens', cell: (row) => text(usage(row)?.total_tokens) },
  { id: 'cost', label: 'Cost (USD)', sort: 'cost', cell: (row) => (typeof row.cost === 'number' ? row.cost.toFixed(6) : '—') },
  { id: 'cache', label: 'Cache', cell: (row) => text(row.cache_status) },
  { id: 'user', label: 'User', cell: (row) => text((row.metadata as Json | undefined)?._user) },
  { id: 'key', label: 'API key', cell: (row) => named(names, row.api_key_id) },
  { id: 'virtual_key', label: 'Virtual key', cell: (row) => named(names, row.virtual_key_id) },
  { id: 'retries', label: 'Retries', cell: (row) => text(row.retry_count) },
  {
    id: 'trace',
    label: 'Trace',
    cell: (row) => (
      // Its own link: opening the trace must not also open the row.
      <a href={`#/traces/${segment(String(row.trace_id))}`} onClick={(event) => event.stopPropagation()} aria-label={`Trace of request ${String(row.id)}`}>
        trace
      </a>
    ),
  },
];

const COLUMN_CHOICES = logColumns(new Map());

export const DEFAULT_COLUMNS = ['time', 'status', 'provider', 'model', 'latency', 'tokens', 'cost', 'cache', 'trace'];

/** The column chooser: a disclosure of checkboxes, one per column. */
export function ColumnChooser({ shown, onChange }: { shown: string[]; onChange: (next: string[]) => void }) {
  return (
    <details class="chooser">
      <summary>Columns</summary>
      <fieldset>
        <legend>Columns shown</legend>
        {COLUMN_CHOICES.map((column) => (
          <label class="inline">
            <input
              type="checkbox"
              checked={shown.includes(column.id)}
              onChange={(event) => {
                const on = (event.target as HTMLInputElement).checked;
                onChange(COLUMN_CHOICES.map((each) => each.id).filter((id) => (id === column.id ? on : shown.includes(id))));
              }}
            />
            {column.label}
          </label>
        ))}
      </fieldset>
    </details>
  );
}
