import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, type Api, type Json, type Page } from '../api';
import { ErrorBanner, Field, JsonView, Section, SecretOnce, Table, TextInput, useLoad } from '../components';
import { useNames } from '../names';
import { useCapability } from './capabilities';
import { bodyOf, type FormField, type ResourceDescription, type RowAction } from './describe';

/**
 * The one view every control-plane area uses: filters, a create form, the list with row actions, and a row's
 * detail. What the key may not do is disabled with the scope it needs as the reason, never left to fail with 403.
 */
export function ResourceView({ api, resource }: { api: Api; resource: ResourceDescription }) {
  const [filters, setFilters] = useState<Record<string, string>>({});
  const [applied, setApplied] = useState<Record<string, string>>({});
  // The cursors of the pages before this one (gw's next_cursor): Previous page pops one, Next page pushes one.
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  const list = useLoad(
    () => (resource.list ? resource.list(api) : api.get<Page>(resource.path, { limit: String(resource.pageSize ?? 100), ...applied, cursor })),
    [resource.path, JSON.stringify(applied), cursor],
  );
  const write = useCapability(api, resource.write);
  const names = useNames(api);
  const [error, setError] = useState<Error>();
  const [secret, setSecret] = useState<string>();
  const [selected, setSelected] = useState<Json>();
  const [asking, setAsking] = useState<{ action: RowAction; row: Json }>();
  const idOf = resource.idOf ?? ((row: Json) => String(row.id));
  const rows = list.data?.data ?? [];
  const allowed = write.can === 'yes';
  const why = write.can === 'no' ? `Your key can't change ${resource.title.toLowerCase()}: ${write.reason ?? `it needs ${resource.write?.scope}`}` : write.can === 'unknown' ? 'Checking what your key may do…' : undefined;
  const act = (work: () => Promise<unknown>) => {
    setError(undefined);
    work().then((result) => {
      const key = (result as Json | undefined)?.key;
      if (typeof key === 'string') setSecret(key);
      list.reload();
    }, setError);
  };
  const pending = resource.pending ? rows.some(resource.pending) : false;
  useEffect(() => {
    if (!pending) return;
    const timer = setInterval(list.reload, 2000);
    return () => clearInterval(timer);
  }, [pending]);

  const readDenied = list.error instanceof ApiError && list.error.status === 403;
  return (
    <Section title={resource.title}>
      {resource.note ? <p class="muted">{resource.note}</p> : null}
      {secret ? <SecretOnce secret={secret} onDone={() => setSecret(undefined)} /> : null}
      {readDenied ? (
        <p class="banner denied" role="status" data-testid="read-denied">
          Your key can't read {resource.title.toLowerCase()}: it needs the {resource.readScope} scope{list.error instanceof ApiError && list.error.code === 'admin_required' ? ' and an organisation admin key' : ''}.
        </p>
      ) : (
        <ErrorBanner error={list.error} onRetry={list.reload} />
      )}
      <ErrorBanner error={error} />
      {why && resource.write && (resource.create || resource.actions) ? (
        <p class="muted" data-testid="write-disabled">
          {why}
        </p>
      ) : null}
      {resource.create ? (
        <CreateForm
          resource={resource}
          disabled={!allowed}
          reason={why}
          onCreate={(body) =>
            act(() =>
              api.post(resource.create!.path ?? resource.path, body).then((created) => {
                resource.created?.(created);
                // Lists are newest first (or by name): the first page is where the new row is.
                setCursors([]);
                return created;
              }),
            )
          }
        />
      ) : null}
      {resource.filters && !readDenied ? (
        <form
          class="filters"
          aria-label={`Filter ${resource.title}`}
          onSubmit={(event) => {
            event.preventDefault();
            setApplied({ ...filters });
            setCursors([]);
          }}
        >
          {resource.filters.map((filter) => (
            <TextInput label={filter.label} name={`filter_${filter.name}`} value={filters[filter.name] ?? ''} placeholder={filter.placeholder} onInput={(value) => setFilters({ ...filters, [filter.name]: value })} />
          ))}
          <button type="submit">Apply filters</button>
        </form>
      ) : null}
      {/* A list gw never answered shows no empty state: the error above says why there is nothing. */}
      {readDenied || (list.error && !list.data) ? null : (
        <Table<Json>
          label={resource.title}
          rows={rows}
          empty={list.loading ? 'Loading…' : `No ${resource.title.toLowerCase()}.`}
          onOpen={setSelected}
          columns={[
            ...resource.columns.map((column) => ({ label: column.label, cell: (row: Json) => column.cell(row, names) })),
            ...(resource.actions
              ? [
                  {
                    label: 'Actions',
                    cell: (row: Json) => (
                      <span class="actions">
                        {resource.actions!.filter((action) => !action.when || action.when(row)).map((action) => (
                          <button
                            type="button"
                            class={action.danger ? 'danger' : undefined}
                            disabled={!allowed}
                            title={allowed ? undefined : why}
                            aria-label={`${action.label} ${String(row.name ?? idOf(row))}`}
                            onClick={(event) => {
                              event.stopPropagation();
                              if (action.input) return setAsking({ action, row });
                              if (action.confirm && !confirm(action.confirm(row))) return;
                              act(() => action.run(api, row));
                            }}
                          >
                            {action.label}
                          </button>
                        ))}
                      </span>
                    ),
                  },
                ]
              : []),
          ]}
        />
      )}
      {cursors.length > 0 || list.data?.next_cursor ? (
        <div class="pager" role="group" aria-label={`Pages of ${resource.title.toLowerCase()}`}>
          <button type="button" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
            Previous page
          </button>
          <span class="muted" data-testid="resource-page">
            Page {cursors.length + 1}
          </span>
          <button type="button" disabled={!list.data?.next_cursor || list.loading} onClick={() => list.data?.next_cursor && setCursors([...cursors, list.data.next_cursor])}>
            Next page
          </button>
        </div>
      ) : null}
      {asking ? (
        <ActionInput
          asking={asking}
          name={String(asking.row.name ?? idOf(asking.row))}
          onCancel={() => setAsking(undefined)}
          onSubmit={(value) => {
            setAsking(undefined);
            act(() => asking.action.run(api, asking.row, value));
          }}
        />
      ) : null}
      {selected ? (
        <Detail api={api} resource={resource} row={selected} onClose={() => setSelected(undefined)}>
          {resource.edit ? (
            <EditForm
              api={api}
              resource={resource}
              row={selected}
              path={`${resource.path}/${encodeURIComponent(idOf(selected))}`}
              disabled={!allowed}
              reason={why}
              onSaved={(saved) => {
                setSelected(saved);
                list.reload();
              }}
            />
          ) : null}
        </Detail>
      ) : null}
    </Section>
  );
}

/** The value a row action asks for, in a masked field when it is a secret; focused when it opens. */
function ActionInput({ asking, name, onSubmit, onCancel }: { asking: { action: RowAction; row: Json }; name: string; onSubmit: (value: string) => void; onCancel: () => void }) {
  const [value, setValue] = useState('');
  const box = useRef<HTMLInputElement>(null);
  useEffect(() => box.current?.focus(), []);
  const input = asking.action.input!;
  const onInput = (event: Event) => setValue((event.target as HTMLInputElement).value);
  return (
    <form
      class="filters action-input"
      aria-label={`${asking.action.label} ${name}`}
      onSubmit={(event) => {
        event.preventDefault();
        if (value) onSubmit(value);
      }}
    >
      <Field label={input.label}>
        {input.secret ? <input type="password" name="action_value" autoComplete="off" value={value} ref={box} onInput={onInput} /> : <input type="text" name="action_value" value={value} ref={box} onInput={onInput} />}
      </Field>
      <button type="submit" disabled={!value}>
        {asking.action.label}
      </button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </form>
  );
}

function CreateForm({ resource, disabled, reason, onCreate }: { resource: ResourceDescription; disabled: boolean; reason?: string; onCreate: (body: Json) => void }) {
  const create = resource.create!;
  const [values, setValues] = useState<Record<string, string | boolean>>({});
  const [invalid, setInvalid] = useState<Error>();
  const set = (name: string, value: string | boolean) => setValues({ ...values, [name]: value });
  return (
    <form
      class="filters"
      aria-label={create.label}
      onSubmit={(event) => {
        event.preventDefault();
        setInvalid(undefined);
        try {
          const body = bodyOf(create.fields, values);
          onCreate(create.body ? create.body(body) : body);
          // Secrets leave the page as soon as they are sent.
          setValues(Object.fromEntries(Object.entries(values).filter(([name]) => create.fields.find((field) => field.name === name)?.kind !== 'secret')));
        } catch (error) {
          setInvalid(error as Error);
        }
      }}
    >
      {create.fields.map((field) => (
        <FieldInput field={field} value={values[field.name] ?? field.initial ?? (field.kind === 'checkbox' ? false : '')} disabled={disabled} onChange={(value) => set(field.name, value)} />
      ))}
      <button type="submit" disabled={disabled} title={disabled ? reason : undefined}>
        {create.label.replace(/^Create an? /, 'Create ')}
      </button>
      <ErrorBanner error={invalid} />
    </form>
  );
}

/**
 * An opened row's edit form: prefilled from the row, checked in the browser (bodyOf throws on bad JSON or tags)
 * before anything is sent; gw's 400 (its message names the field) is shown under the form that caused it.
 */
function EditForm({ api, resource, row, path, disabled, reason, onSaved }: { api: Api; resource: ResourceDescription; row: Json; path: string; disabled: boolean; reason?: string; onSaved: (saved: Json) => void }) {
  const edit = resource.edit!;
  const fields = edit.fields(row);
  const [values, setValues] = useState<Record<string, string | boolean>>({});
  const [error, setError] = useState<Error>();
  const [saving, setSaving] = useState(false);
  const name = String(row.name ?? row.id);
  return (
    <form
      class="filters"
      aria-label={`Edit ${name}`}
      onSubmit={(event) => {
        event.preventDefault();
        setError(undefined);
        let body: Json;
        try {
          body = bodyOf(fields, values);
          if (edit.body) body = edit.body(body);
        } catch (invalid) {
          return setError(invalid as Error);
        }
        setSaving(true);
        (edit.method === 'PUT' ? api.put(path, body) : api.patch(path, body)).then(
          (saved) => {
            setSaving(false);
            // Secrets leave the page as soon as they are sent.
            setValues({});
            onSaved(saved);
          },
          (failed: Error) => {
            setSaving(false);
            setError(failed);
          },
        );
      }}
    >
      {fields.map((field) => (
        <FieldInput field={field} value={values[field.name] ?? field.initial ?? (field.kind === 'checkbox' ? false : '')} disabled={disabled} onChange={(value) => setValues({ ...values, [field.name]: value })} />
      ))}
      <button type="submit" disabled={disabled || saving} title={disabled ? reason : undefined}>
        Save changes
      </button>
      <ErrorBanner error={error} />
    </form>
  );
}

function FieldInput({ field, value, disabled, onChange }: { field: FormField; value: string | boolean; disabled: boolean; onChange: (value: string | boolean) => void }) {
  const name = `field_${field.name}`;
  const onInput = (event: Event) => onChange((event.target as HTMLInputElement).value);
  if (field.kind === 'checkbox')
    return (
      <label class="inline">
        <input type="checkbox" name={name} checked={value === true} disabled={disabled} onChange={(event) => onChange((event.target as HTMLInputElement).checked)} />
        {field.label}
      </label>
    );
  return (
    <Field label={field.label}>
      {field.kind === 'select' ? (
        <select name={name} aria-label={field.label} value={String(value)} disabled={disabled} onChange={onInput}>
          {field.options!.map((option) => (
            <option value={option}>{option}</option>
          ))}
        </select>
      ) : field.kind === 'json' ? (
        <textarea name={name} rows={3} value={String(value)} placeholder={field.placeholder} disabled={disabled} onInput={onInput} />
      ) : field.kind === 'secret' ? (
        <input name={name} type="password" autoComplete="off" value={String(value)} placeholder={field.placeholder} disabled={disabled} onInput={onInput} />
      ) : (
        <input name={name} type="text" value={String(value)} placeholder={field.placeholder} disabled={disabled} onInput={onInput} />
      )}
    </Field>
  );
}

function Detail({ api, resource, row, onClose, children }: { api: Api; resource: ResourceDescription; row: Json; onClose: () => void; children?: ComponentChildren }) {
  const extra = useLoad(() => (resource.detail ? resource.detail(api, row) : Promise.resolve(undefined)), [JSON.stringify(row)]);
  return (
    <div class="detail">
      <header class="section-head">
        <h3>{String(row.name ?? row.id)}</h3>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </header>
      <JsonView value={row} label={`${resource.title} record`} />
      {children}
      {resource.detail ? (
        <>
          <ErrorBanner error={extra.error} />
          {extra.data ? <JsonView value={extra.data} label={`${resource.title} detail`} /> : null}
        </>
      ) : null}
    </div>
  );
}
