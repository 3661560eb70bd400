import type { Api, Json, Page } from '../api';
import { segment } from '../api';
import { ErrorBanner, useLoad } from '../components';
import { num } from './analytics-series';

/** A link to the logs explorer showing the requests behind a figure (same range, the costliest first). */
function logsLink(filters: Record<string, string>, from: string, to: string): string {
  const params = new URLSearchParams({ ...filters, range: 'custom', from, to, sort: 'cost' });
  return `#/logs?${params.toString()}`;
}

interface Top {
  label: string;
  cost: number;
  requests: number;
  href: string;
}

const byCost = (rows: Json[]) => [...rows].sort((a, b) => num(b.cost) - num(a.cost)).slice(0, 5);

async function groups(api: Api, groupBy: string, from: string, to: string): Promise<Json[]> {
  return (await api.get<{ rows: Json[] }>('/v1/analytics', { group_by: groupBy, from, to, interval: 'day' })).rows;
}

/** Names of API keys by id (a key that may not list keys shows ids). */
async function keyNames(api: Api): Promise<Map<string, string>> {
  try {
    const page = await api.get<Page>('/v1/api-keys', { limit: '100' });
    return new Map(page.data.map((row) => [String(row.id), String(row.name ?? row.id)]));
  } catch {
    return new Map();
  }
}

/**
 * The top lists of the range, each linking to the matching logs: the most expensive requests, and the users, API
 * keys and models that cost the most.
 */
export function TopLists({ api, from, to }: { api: Api; from: string; to: string }) {
  const tops = useLoad(async () => {
    const [requests, users, keys, models, names] = await Promise.all([
      api.get<Page>('/v1/logs', { sort: 'cost', limit: '5', from, to }),
      groups(api, 'metadata._user', from, to),
      groups(api, 'api_key', from, to),
      groups(api, 'model', from, to),
      keyNames(api),
    ]);
    const list = (rows: Json[], filter: string, name: (key: string) => string = (key) => key): Top[] =>
      byCost(rows.filter((row) => typeof row.key === 'string' && row.key !== 'other')).map((row) => ({
        label: name(String(row.key)),
        cost: num(row.cost),
        requests: num(row.requests),
        href: logsLink({ [filter]: String(row.key) }, from, to),
      }));
    return {
      requests: requests.data.map((row): Top => ({ label: `${String(row.model ?? row.endpoint)} · ${new Date(String(row.created_at)).toLocaleString()}`, cost: num(row.cost), requests: 1, href: `#/logs/${segment(String(row.id))}` })),
      users: list(users, 'user'),
      keys: list(keys, 'api_key_id', (id) => names.get(id) ?? id),
      models: list(models, 'model'),
    };
  }, [from, to]);
  if (tops.error) return <ErrorBanner error={tops.error} onRetry={tops.reload} />;
  if (!tops.data) return null;
  return (
    <div class="tops">
      <TopList title="Most expensive requests" items={tops.data.requests} />
      <TopList title="Users by cost" items={tops.data.users} />
      <TopList title="API keys by cost" items={tops.data.keys} />
      <TopList title="Models by cost" items={tops.data.models} />
    </div>
  );
}

function TopList({ title, items }: { title: string; items: Top[] }) {
  return (
    <section class="top-list" aria-label={title}>
      <h3>{title}</h3>
      {items.length === 0 ? (
        <p class="muted">None in this period.</p>
      ) : (
        <ol>
          {items.map((item) => (
            <li>
              <a href={item.href}>{item.label}</a> <span class="muted">${item.cost.toFixed(6)}{item.requests > 1 ? ` · ${item.requests} requests` : ''}</span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
