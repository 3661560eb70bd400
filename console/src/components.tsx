import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError } from './api';

/** Loads data for a view; `reload` runs the loader again (after a change, or on a timer). */
export function useLoad<T>(loader: () => Promise<T>, deps: unknown[]): { data?: T; error?: Error; loading: boolean; reload: () => void } {
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let current = true;
    setState((previous) => ({ ...previous, loading: true }));
    loader().then(
      (data) => current && setState({ data, loading: false }),
      (error: Error) => current && setState({ error, loading: false }),
    );
    return () => {
      current = false;
    };
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((value) => value + 1), []);
  return { ...state, reload };
}

export function ErrorBanner({ error }: { error?: Error }) {
  if (!error) return null;
  const denied = error instanceof ApiError && error.status === 403;
  return (
    <p class={`banner ${denied ? 'denied' : 'error'}`} role="alert">
      {denied ? 'Not allowed: ' : 'Error: '}
      {error.message}
      {error instanceof ApiError && error.code ? <code> ({error.code})</code> : null}
    </p>
  );
}

export interface Column<T> {
  label: string;
  cell: (row: T) => ComponentChildren;
}

export function Table<T>({ rows, columns, empty, label, onOpen }: { rows: T[]; columns: Column<T>[]; empty: string; label: string; onOpen?: (row: T) => void }) {
  if (rows.length === 0) return <p class="muted">{empty}</p>;
  return (
    <table aria-label={label}>
      <thead>
        <tr>
          {columns.map((column) => (
            <th scope="col">{column.label}</th>
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
