import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError } from './api';

export interface Load<T> {
  data?: T;
  error?: Error;
  loading: boolean;
  reload: () => void;
}

/**
 * Loads data for a view; `reload` runs the loader again (after a change, on a timer, from Retry). A reload that
 * fails keeps what was shown (with the error beside it): a live refresh while gw is away must not wipe the rows.
 * New inputs (other filters) drop the old data at once, so rows never stand for a query they did not answer.
 */
export function useLoad<T>(loader: () => Promise<T>, deps: unknown[]): Load<T> {
  const key = JSON.stringify(deps);
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean; key: string }>({ loading: true, key });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let current = true;
    setState((previous) => (previous.key === key ? { ...previous, loading: true } : { loading: true, key }));
    loader().then(
      (data) => current && setState({ data, loading: false, key }),
      (error: Error) => current && setState((previous) => ({ data: previous.key === key ? previous.data : undefined, error, loading: false, key })),
    );
    return () => {
      current = false;
    };
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((value) => value + 1), []);
  const fresh: { data?: T; error?: Error; loading: boolean } = state.key === key ? state : { loading: true };
  return { data: fresh.data, error: fresh.error, loading: fresh.loading, reload };
}

/** What a failed call means to a person: gw unreachable is said as such, not as the browser's "Failed to fetch". */
export function describeError(error: Error): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof TypeError) return `gw cannot be reached (${error.message}). Check that it is running, then retry.`;
  return error.message;
}

export function ErrorBanner({ error, onRetry }: { error?: Error; onRetry?: () => void }) {
  if (!error) return null;
  const denied = error instanceof ApiError && error.status === 403;
  return (
    <div class={`banner ${denied ? 'denied' : 'error'}`} role="alert">
      {denied ? 'Not allowed: ' : 'Error: '}
      {describeError(error)}
      {error instanceof ApiError && error.code ? <code> ({error.code})</code> : null}
      {onRetry && !denied ? (
        <button type="button" class="retry" onClick={onRetry}>
          Retry
        </button>
      ) : null}
    </div>
  );
}

/**
 * The honest states of a load: an error with Retry (what was shown stays below it, marked as possibly stale), a
 * loading note while nothing is shown yet, and the content (or its empty state) only once gw answered.
 */
export function LoadState<T>({ load, children, what }: { load: Load<T>; children: (data: T) => ComponentChildren; what: string }) {
  return (
    <>
      <ErrorBanner error={load.error} onRetry={load.reload} />
      {load.data === undefined ? (
        load.error ? null : (
          <p class="muted" role="status">
            Loading {what}…
          </p>
        )
      ) : (
        <div class={load.error ? 'stale' : undefined} aria-busy={load.loading ? 'true' : undefined}>
          {load.error ? <p class="muted">Showing {what} from the last successful load.</p> : null}
          {children(load.data)}
        </div>
      )}
    </>
  );
}

export interface Column<T> {
  label: string;
  cell: (row: T) => ComponentChildren;
  /** Shown instead of the label in the header (a sort button); the label still names the column. */
  header?: ComponentChildren;
  /** aria-sort of a sortable column. */
  sorted?: 'ascending' | 'descending' | 'none';
}

export function Table<T>({ rows, columns, empty, label, onOpen }: { rows: T[]; columns: Column<T>[]; empty: string; label: string; onOpen?: (row: T) => void }) {
  if (rows.length === 0) return <p class="muted">{empty}</p>;
  // The wrapper scrolls a wide table on its own, so the page never scrolls sideways on a phone.
  return (
    <div class="table-wrap">
    <table aria-label={label}>
      <thead>
        <tr>
          {columns.map((column) => (
            <th scope="col" aria-sort={column.sorted}>
              {column.header ?? column.label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr
            class={onOpen ? 'clickable' : undefined}
            tabIndex={onOpen ? 0 : undefined}
            onClick={onOpen ? () => onOpen(row) : undefined}
            onKeyDown={onOpen ? (event) => (event.key === 'Enter' || event.key === ' ') && (event.preventDefault(), onOpen(row)) : undefined}
          >
            {columns.map((column) => (
              <td>{column.cell(row)}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
    </div>
  );
}

export function Field({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <label class="field">
      <span>{label}</span>
      {children}
    </label>
  );
}

export function TextInput(props: { label: string; value: string; onInput: (value: string) => void; placeholder?: string; type?: 'text' | 'password'; name?: string }) {
  const onInput = (event: Event) => props.onInput((event.target as HTMLInputElement).value);
  return (
    <Field label={props.label}>
      {props.type === 'password' ? (
        <input name={props.name} type="password" autoComplete="off" value={props.value} placeholder={props.placeholder} onInput={onInput} />
      ) : (
        <input name={props.name} type="text" value={props.value} placeholder={props.placeholder} onInput={onInput} />
      )}
    </Field>
  );
}

export function JsonView({ value, label }: { value: unknown; label: string }) {
  return (
    <pre class="json" aria-label={label} tabIndex={0}>
      {JSON.stringify(value, null, 2)}
    </pre>
  );
}

export function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      onClick={() =>
        navigator.clipboard?.writeText(text).then(
          () => setCopied(true),
          () => setCopied(false),
        )
      }
    >
      {copied ? 'Copied' : label}
    </button>
  );
}

export function Section({ title, children, actions }: { title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <section>
      <header class="section-head">
        <h2>{title}</h2>
        {actions}
      </header>
      {children}
    </section>
  );
}

/** A one-time secret (a new raw key), shown once with a copy button and a warning. */
export function SecretOnce({ secret, onDone }: { secret: string; onDone: () => void }) {
  return (
    <div class="banner secret" role="status">
      <p>Copy this key now: gw shows it only once.</p>
      <code data-testid="raw-key">{secret}</code>
      <CopyButton text={secret} label="Copy key" />
      <button type="button" onClick={onDone}>
        Done
      </button>
    </div>
  );
}

export const when = (value: unknown) => (typeof value === 'string' && value ? new Date(value).toLocaleString() : '—');
export const text = (value: unknown) => (value === undefined || value === null || value === '' ? '—' : String(value));
