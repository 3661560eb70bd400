import { useState } from 'preact/hooks';
import type { Api, Json, Page } from '../api';
import { ErrorBanner, Section, Table, text, useLoad } from '../components';
import { useCapability } from '../resources/capabilities';
import { PolicyEditor, type PolicyKind } from './policy-editor';

function Meter({ used, limit, label }: { used: number; limit: number; label: string }) {
  const share = limit > 0 ? Math.min(1, used / limit) : 0;
  return (
    <span class="meter-wrap">
      <meter min={0} max={limit || 1} value={used} low={limit * 0.7} high={limit * 0.9} optimum={0} aria-label={label} />
      <span>
        {used.toFixed(4)} / {limit} ({(share * 100).toFixed(0)} %)
      </span>
    </span>
  );
}

export function PoliciesPage({ api }: { api: Api }) {
  const rateLimits = useLoad(() => api.get<Page>('/v1/policies/rate-limits', { limit: '100' }), []);
  const usageLimits = useLoad(() => api.get<Page>('/v1/policies/usage-limits', { limit: '100' }), []);
  const workspaces = useLoad(() => api.get<Page>('/v1/workspaces', { limit: '100' }), []);
  const write = useCapability(api, { scope: 'policies:write' });
  const [opened, setOpened] = useState<{ kind: PolicyKind; policy: Json }>();
  const policyColumns = [
    { label: 'Name', cell: (row: Json) => text(row.name) },
    { label: 'Conditions', cell: (row: Json) => ((row.conditions as Json[] | undefined) ?? []).map((item) => `${String(item.key)}=${String(item.value)}`).join(', ') },
    { label: 'Group by', cell: (row: Json) => ((row.group_by as Json[] | undefined) ?? []).map((item) => String(item.key)).join(', ') },
    { label: 'Limit', cell: (row: Json) => `${text(row.value ?? (row.credit_limit as Json | null)?.value)} ${text(row.type)} ${row.unit ? `/ ${String(row.unit)}` : ''}` },
    { label: 'Status', cell: (row: Json) => text(row.status) },
  ];
  return (
    <>
      <Section title="Workspace budgets">
        <ErrorBanner error={workspaces.error} onRetry={workspaces.reload} />
        <Table<Json>
          label="Budgets"
          rows={workspaces.data?.data ?? []}
          empty={workspaces.loading ? 'Loading…' : workspaces.error ? '' : 'No workspaces visible.'}
          columns={[
            { label: 'Workspace', cell: (row) => text(row.name) },
            {
              label: 'Usage against budget',
              cell: (row) => {
                const budget = (row.budget ?? {}) as Json;
                const limit = budget.credit_limit as number | null;
                return typeof limit === 'number' ? <Meter used={Number(budget.current_usage ?? 0)} limit={limit} label={`Budget of ${String(row.name)}`} /> : 'no budget';
              },
            },
            { label: 'Status', cell: (row) => text((row.budget as Json | undefined)?.status) },
            { label: 'Resets', cell: (row) => text((row.budget as Json | undefined)?.periodic_reset) },
          ]}
        />
      </Section>
      <Section title="Rate-limit policies">
        <ErrorBanner error={rateLimits.error} onRetry={rateLimits.reload} />
        <Table<Json> label="Rate-limit policies" rows={rateLimits.data?.data ?? []} empty={rateLimits.loading ? 'Loading…' : rateLimits.error ? '' : 'No rate-limit policies.'} columns={policyColumns} onOpen={(policy) => setOpened({ kind: 'rate-limits', policy })} />
      </Section>
      <Section title="Usage-limit policies">
        <ErrorBanner error={usageLimits.error} onRetry={usageLimits.reload} />
        <Table<Json> label="Usage-limit policies" rows={usageLimits.data?.data ?? []} empty={usageLimits.loading ? 'Loading…' : usageLimits.error ? '' : 'No usage-limit policies.'} columns={policyColumns} onOpen={(policy) => setOpened({ kind: 'usage-limits', policy })} />
      </Section>
      <Section title="Create or edit">
        {write.can === 'no' ? (
          <p class="muted" data-testid="write-disabled">
            Your key can't change policies: {write.reason}
          </p>
        ) : null}
        <PolicyEditor
          api={api}
          opened={opened}
          disabled={write.can !== 'yes'}
          reason={write.reason}
          onSaved={() => {
            rateLimits.reload();
            usageLimits.reload();
            workspaces.reload();
          }}
          onClose={() => setOpened(undefined)}
        />
      </Section>
    </>
  );
}
