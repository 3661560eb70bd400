import { useState } from 'preact/hooks';
import type { Api, Json, Page } from '../api';
import { Field, useLoad } from '../components';

/** The filters of the logs explorer, as they stand in the URL (`#/logs?provider=openai&status=5xx`). */
export const FILTER_NAMES = ['provider', 'model', 'status', 'cache_status', 'api_key_id', 'virtual_key_id', 'user', 'trace_id', 'meta_key', 'meta_value'] as const;
export type FilterName = (typeof FILTER_NAMES)[number];
export type Filters = Partial<Record<FilterName, string>>;

const STATUS_CLASSES = [
  ['2xx', 'success (2xx)'],
  ['4xx', 'client error (4xx)'],
  ['5xx', 'server error (5xx)'],
  ['error', 'any failure'],
] as const;
const CACHE_STATUSES = ['HIT', 'SEMANTIC HIT', 'MISS', 'SEMANTIC MISS', 'REFRESH', 'DISABLED'];

interface Option {
  value: string;
  label: string;
}

/** The query parameters of GET /v1/logs that the filters stand for (`meta_key`/`meta_value` become `metadata.<key>`). */
export function filterQuery(filters: Filters): Record<string, string | undefined> {
  const { meta_key: key, meta_value: value, ...named } = filters;
  return { ...named, ...(key && value ? { [`metadata.${key}`]: value } : {}) };
}

/** Group keys of one analytics grouping over the view's range: the values present, busiest first. */
async function valuesOf(api: Api, groupBy: string, from: string | undefined): Promise<string[]> {
  const reply = await api.get<{ rows: Json[] }>('/v1/analytics', { group_by: groupBy, from: from ?? new Date(Date.now() - 30 * 86_400_000).toISOString(), interval: 'day' });
  return reply.rows
    .map((row) => row.key)
    .filter((key): key is string => typeof key === 'string' && key !== '' && key !== 'other');
}

/** Names of keys by id, so pickers show "ci-bot" rather than a UUID (a read the key may not do leaves ids). */
async function namesOf(api: Api, path: string): Promise<Map<string, string>> {
  const page = await api.get<Page>(path, { limit: '100' });
  return new Map(page.data.map((row) => [String(row.id), String(row.name ?? row.id)]));
}

const quietly = <T,>(promise: Promise<T>, fallback: T) => promise.catch(() => fallback);

/** Options for each picker, built from the values present in the range (none when gw may not say: free text then). */
export function useFilterOptions(api: Api, from: string | undefined): Record<string, Option[]> {
  const load = useLoad(async () => {
    const [providers, models, keys, users, keyNames, virtualKeys] = await Promise.all([
      quietly(valuesOf(api, 'provider', from), []),
      quietly(valuesOf(api, 'model', from), []),
      quietly(valuesOf(api, 'api_key', from), []),
      quietly(valuesOf(api, 'metadata._user', from), []),
      quietly(namesOf(api, '/v1/api-keys'), new Map<string, string>()),
      quietly(namesOf(api, '/v1/virtual-keys'), new Map<string, string>()),
    ]);
    const plain = (values: string[]) => values.map((value) => ({ value, label: value }));
    return {
      provider: plain(providers),
      model: plain(models),
      user: plain(users),
      api_key_id: keys.map((id) => ({ value: id, label: keyNames.get(id) ?? id })),
      virtual_key_id: [...virtualKeys].map(([id, name]) => ({ value: id, label: name })),
    };
  }, [from?.slice(0, 13)]);
  return load.data ?? {};
}

/** A picker: a select of the values present, with "any"; a value in the URL that is not among them stays selectable. */
function Picker({ name, label, value, options, onChange }: { name: string; label: string; value?: string; options: Option[]; onChange: (value?: string) => void }) {
  const all = value && !options.some((option) => option.value === value) ? [...options, { value, label: value }] : options;
  return (
    <Field label={label}>
      <select name={name} value={value ?? ''} onChange={(event) => onChange((event.target as HTMLSelectElement).value || undefined)}>
        <option value="">any</option>
        {all.map((option) => (
          <option value={option.value}>{option.label}</option>
        ))}
      </select>
    </Field>
  );
}

/** The filter bar: pickers apply at once; the free-text ones (trace id, metadata) on Apply. */
export function LogFilterBar({ api, filters, from, onChange }: { api: Api; filters: Filters; from?: string; onChange: (next: Filters) => void }) {
  const options = useFilterOptions(api, from);
  const [typed, setTyped] = useState<Filters>({ trace_id: filters.trace_id, meta_key: filters.meta_key, meta_value: filters.meta_value });
  const set = (name: FilterName) => (value?: string) => onChange({ ...filters, [name]: value });
  const typedInput = (name: 'trace_id' | 'meta_key' | 'meta_value', label: string) => (
    <Field label={label}>
      <input name={name} type="text" value={typed[name] ?? ''} onInput={(event) => setTyped({ ...typed, [name]: (event.target as HTMLInputElement).value })} />
    </Field>
  );
  return (
    <form
      class="filters"
      aria-label="Log filters"
      onSubmit={(event) => {
        event.preventDefault();
        onChange({ ...filters, ...typed });
      }}
    >
      <Picker name="provider" label="provider" value={filters.provider} options={options.provider ?? []} onChange={set('provider')} />
      <Picker name="model" label="model" value={filters.model} options={options.model ?? []} onChange={set('model')} />
      <Picker name="status" label="status" value={filters.status} options={STATUS_CLASSES.map(([value, label]) => ({ value, label }))} onChange={set('status')} />
      <Picker name="cache_status" label="cache" value={filters.cache_status} options={CACHE_STATUSES.map((value) => ({ value, label: value }))} onChange={set('cache_status')} />
      <Picker name="api_key_id" label="API key" value={filters.api_key_id} options={options.api_key_id ?? []} onChange={set('api_key_id')} />
      <Picker name="virtual_key_id" label="virtual key" value={filters.virtual_key_id} options={options.virtual_key_id ?? []} onChange={set('virtual_key_id')} />
      <Picker name="user" label="user" value={filters.user} options={options.user ?? []} onChange={set('user')} />
      {typedInput('trace_id', 'trace id')}
      {typedInput('meta_key', 'metadata key')}
      {typedInput('meta_value', 'metadata value')}
      <button type="submit">Apply</button>
      <button
        type="button"
        onClick={() => {
          setTyped({});
          onChange({});
        }}
      >
        Clear filters
      </button>
    </form>
  );
}
