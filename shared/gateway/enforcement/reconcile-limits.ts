import { col, metadataValue, rangeConditions, rowsOf, scopeConditions, sql, statement, trusted, type Fragment, type LogScope, type TimeRange } from '../../observability/engine/sql.js';
import type { QueryEngine, SqlDialect } from '../../observability/engine/types.js';
import { decimalTextToUnits, UNPRICED_MODEL_RATES, unitsToUsd, usdToUnits } from '../../observability/pricing/index.js';
import { settings } from '../../settings.js';
import { CounterRepository, counterKey, type CounterKey } from '../../store/counter-repository.js';
import { providerRepository, type ProviderRecord } from '../../store/integration-repository.js';
import { listActivePolicies, type PolicyRecord, type PolicyUnit } from '../../store/policy-repository.js';
import { abandoned, reclaimAbandoned } from './lease-reclaim.js';
import { UNPRICED_MEDIA_GROUPS, UNPRICED_MEDIA_REQUESTS, unpricedMediaUnits } from './reconcile-media.js';
import { groupOf, MATCH_ANY } from './policy-match.js';
import { rateWindow, resetPeriod, type CountingWindow } from './windows.js';

/**
 * The second half of the proof that the numbers agree (issue #41, reconcile.ts): every limit counter that carries
 * cost or tokens — usage-limit policies' credit counters, tokens rate limits (policies about an API key or a virtual
 * key included), a workspace provider's budget and tokens limits — against what the logged requests say it was
 * charged. Each limit is one query of the log engine, summed by the limit's group and window exactly as admission
 * keyed its counter (the request's values as the log records them, its admission time = `created_at − latency_ms`),
 * and each counter is read through CounterRepository. Request counters are not compared: they count slots, not money.
 */
export interface LimitComparison {
  /** `policy "<name>" (<id>) tokens`, `provider @<slug> budget`… */
  limit: string;
  /** `rpd window from …`, `monthly period from …`. */
  window: string;
  /** The policy's group (`api_key=…`), empty without group_by. */
  group: string;
  measure: 'tokens' | 'cost';
  /** What the counter holds (tokens, or USD). */
  charged: number;
  /** What the logged requests account for (tokens, or USD: costs plus unpriced models' tokens and media units at the default rates). */
  logged: number;
  /**
   * Lease records on the counter (amount-leases.ts): `held`, what live leases hold (counted in `charged` until
   * given back); `reclaimed`, what leases of processes that stopped held, given back by this run before reading.
   */
  leases: { held: number; reclaimed: number };
}

export interface LimitsReport {
  compared: LimitComparison[];
  /** Limits or windows that cannot be compared, and why. */
  skipped: Array<{ limit: string; reason: string }>;
}

export interface LimitSources {
  policies: (workspaceId: string) => Promise<PolicyRecord[]>;
  providers: (workspaceId: string) => Promise<ProviderRecord[]>;
  counters: Pick<CounterRepository, 'read' | 'leaseRecords' | 'reclaimLease'>;
}

export const defaultLimitSources = (): LimitSources => ({ policies: listActivePolicies, providers: (workspaceId) => providerRepository().all(workspaceId), counters: new CounterRepository() });

const UNIT_MS: Record<PolicyUnit, number> = { rpm: 60_000, rph: 3_600_000, rpd: 86_400_000 };
/** AWS's TTL removes a counter an hour after its window ended (counter-repository.ts): older windows cannot be read. */
const COUNTER_TTL_SLACK_MS = 3_600_000;
const CACHE_HITS = ['HIT', 'SEMANTIC HIT'];

/** One counter family to compare: its windows, the log rows it counts, how its counter is keyed. */
interface LimitSpec {
  name: string;
  measure: 'tokens' | 'cost';
  /** Rows admitted before it existed were never charged to it. */
  since: number;
  windows: CountingWindow[];
  /** Rate windows: their length, so rows are bucketed as admission keyed them; periods: one window. */
  windowMs?: number;
  /** The logged requests the limit counts (beside the workspace scope and the time range). */
  conditions: Fragment[];
  /** The policy whose group_by keys the counter, if any. */
  policy?: PolicyRecord;
  groupColumns: Fragment[];
  key: (groupHash: string, window: CountingWindow) => CounterKey;
}

/** Unpriced models' tokens at the default rates (pricing/unpriced.ts), in units of 1e-10 USD: exact per token. */
export function unpricedUnits(promptTokens: number, completionTokens: number): bigint {
  const perToken = (ratePerMillion: number) => BigInt(Math.round(ratePerMillion * 10_000));
  return BigInt(promptTokens) * perToken(UNPRICED_MODEL_RATES.input_per_mtok) + BigInt(completionTokens) * perToken(UNPRICED_MODEL_RATES.output_per_mtok);
}

export async function reconcileLimits(engine: QueryEngine, scope: LogScope & { workspaceId: string }, range: TimeRange, now: number, sources: LimitSources): Promise<LimitsReport> {
  const { POLICY_ENABLED, USAGE_LIMITS_ENABLED } = settings();
  const [policies, providers] = await Promise.all([POLICY_ENABLED ? sources.policies(scope.workspaceId) : Promise.resolve([]), sources.providers(scope.workspaceId)]);
  const report: LimitsReport = { compared: [], skipped: [] };
  const specs: LimitSpec[] = [];
  const context = { range, now, providers, dialect: engine.dialect, skip: (limit: string, reason: string) => report.skipped.push({ limit, reason }) };
  for (const policy of policies) {
    if (policy.status !== 'active' || (policy.kind === 'usage_limit' && !USAGE_LIMITS_ENABLED)) continue;
    specs.push(...policySpecs(policy, context));
  }
  for (const provider of providers) specs.push(...providerSpecs(provider, context));
  const results = await Promise.all(specs.map((spec) => compareLimit(spec, engine, scope, range, now, sources)));
  for (const result of results) report.compared.push(...result);
  return report;
}

interface SpecContext {
  range: TimeRange;
  now: number;
  providers: readonly ProviderRecord[];
  dialect: SqlDialect;
  skip: (limit: string, reason: string) => void;
}

function policySpecs(policy: PolicyRecord, context: SpecContext): LimitSpec[] {
  const label = `policy "${policy.name ?? policy.id}" (${policy.id})`;
  const matching = conditionsOf(policy, context);
  const groups = groupColumnsOf(policy, context);
  const unreadable = typeof matching === 'string' ? matching : typeof groups === 'string' ? groups : undefined;
  const specs: LimitSpec[] = [];
  const since = Date.parse(policy.created_at);
  const shared = { since, policy, conditions: matching as Fragment[], groupColumns: groups as Fragment[] };
  if (policy.type === 'tokens') {
    const name = `${label} tokens per ${policy.unit}`;
    const windows = rateWindows(policy.unit, since, context, name);
    specs.push({ name, measure: 'tokens', windows, windowMs: UNIT_MS[policy.unit], key: (hash, window) => ({ pk: counterKey(policy.id, 'rate', hash, window.id), windowEnd: window.end }), ...shared });
  }
  if (policy.kind === 'usage_limit' && policy.credit_limit) {
    const name = `${label} ${policy.credit_limit.type} limit`;
    const windows = periodWindows(resetPeriod(policy.periodic_reset ?? 'none', context.now), since, policy.periodic_reset ?? 'none', context, name);
    specs.push({ name, measure: policy.credit_limit.type, windows, key: (hash, window) => ({ pk: counterKey(policy.id, 'credit', hash, window.id), windowEnd: window.end }), ...shared });
  }
  if (unreadable === undefined) return specs.filter((spec) => spec.windows.length > 0);
  for (const spec of specs) context.skip(spec.name, unreadable);
  return [];
}

function providerSpecs(provider: ProviderRecord, context: SpecContext): LimitSpec[] {
  const since = Date.parse(provider.created_at);
  const shared = { since, conditions: [viaWorkspaceProvider(provider.id)], groupColumns: [] };
  const specs: LimitSpec[] = [];
  for (const limit of provider.rate_limits) {
    if (limit.type !== 'tokens') continue;
    const name = `provider @${provider.slug} tokens per ${limit.unit}`;
    const windows = rateWindows(limit.unit, since, context, name);
    specs.push({ name, measure: 'tokens', windows, windowMs: UNIT_MS[limit.unit], key: (_hash, window) => ({ pk: counterKey(`provider-${provider.id}`, 'rate', 'tokens', window.id), windowEnd: window.end }), ...shared });
  }
  if (provider.budget) {
    const name = `provider @${provider.slug} budget`;
    const windows = periodWindows(resetPeriod(provider.budget.period, context.now), since, provider.budget.period, context, name);
    specs.push({ name, measure: 'cost', windows, key: (_hash, window) => ({ pk: counterKey(`provider-${provider.id}`, 'credit', 'usd', window.id), windowEnd: window.end }), ...shared });
  }
  return specs.filter((spec) => spec.windows.length > 0);
}

/**
 * The rate windows of a unit that can be compared: each must begin (or its limit be created) at or after `from`,
 * end by `to` (or be the window running now, when the range reaches now), and still be readable (not past the TTL).
 */
function rateWindows(unit: PolicyUnit, since: number, context: SpecContext, name: string): CountingWindow[] {
  const length = UNIT_MS[unit];
  const from = Date.parse(context.range.from);
  const to = Date.parse(context.range.to);
  const windows: CountingWindow[] = [];
  for (let start = rateWindow(unit, context.now).start; start + length > context.now - COUNTER_TTL_SLACK_MS && start + length > since; start -= length) {
    const window = rateWindow(unit, start);
    if (Math.max(window.start, since) >= from && (window.end <= to || to >= context.now - 1_000)) windows.push(window);
  }
  if (windows.length === 0) context.skip(name, `no ${unit} window of the range can be compared (each must lie inside the range and have ended less than an hour ago)`);
  return windows.reverse();
}

function periodWindows(period: CountingWindow, since: number, reset: string, context: SpecContext, name: string): CountingWindow[] {
  const begins = Math.max(period.start, since);
  if (begins < Date.parse(context.range.from)) {
    context.skip(name, `its current ${reset === 'none' ? '' : `${reset} `}period began at ${new Date(begins).toISOString()}, before --from`);
    return [];
  }
  if (Date.parse(context.range.to) < context.now - 1_000) {
    context.skip(name, 'the range ends before now, while the counter holds every charge up to now');
    return [];
  }
  return [period];
}

/** The log rows a policy's conditions select, or why the log cannot tell (a key the log does not record). */
function conditionsOf(policy: PolicyRecord, context: SpecContext): Fragment[] | string {
  const conditions: Fragment[] = [];
  for (const condition of policy.conditions) {
    if (condition.value === MATCH_ANY) continue;
    if (condition.key === 'provider' && condition.value.startsWith('@')) {
      const provider = context.providers.find((candidate) => `@${candidate.slug}` === condition.value);
      conditions.push(provider ? viaWorkspaceProvider(provider.id) : trusted('FALSE'));
      continue;
    }
    const column = valueColumn(condition.key, context);
    if (column === undefined) return `the request log does not record \`${condition.key}\`, which its conditions name`;
    conditions.push(sql`${column} = ${condition.value}`);
  }
  return conditions;
}

function groupColumnsOf(policy: PolicyRecord, context: SpecContext): Fragment[] | string {
  const columns: Fragment[] = [];
  for (const { key } of policy.group_by) {
    const column = key === 'provider' ? providerValue(context) : valueColumn(key, context);
    if (column === undefined) return `the request log does not record \`${key}\`, which its group_by names`;
    columns.push(column);
  }
  return columns;
}

/** A request's value of a policy key (request-values.ts) as the log records it; undefined for `integration`. */
function valueColumn(key: string, context: SpecContext): Fragment | undefined {
  if (key.startsWith('metadata.')) return metadataValue(context.dialect, key.slice('metadata.'.length));
  const columns: Record<string, string> = { api_key: 'api_key_id', workspace_id: 'workspace_id', virtual_key: 'virtual_key_id', model: 'model', provider: 'provider' };
  return columns[key] === undefined ? undefined : col('requests', columns[key]);
}

/** `provider` as a group value: `@slug` for a request through a workspace provider, else the provider kind. */
function providerValue(context: SpecContext): Fragment {
  if (context.providers.length === 0) return col('requests', 'provider');
  const branches = context.providers.map((provider) => sql`WHEN ${viaWorkspaceProvider(provider.id)} THEN ${`@${provider.slug}`}`);
  return sql`CASE ${branches.reduce((all, branch) => sql`${all} ${branch}`)} ELSE provider END`;
}

/** Requests admitted under a workspace provider's limits: their attempts name it (attempt-record.ts). */
function viaWorkspaceProvider(providerId: string): Fragment {
  // Provider ids are UUIDs: nothing in them is a LIKE wildcard.
  return sql`${col('requests', 'attempts')} LIKE ${`%"workspace_provider":"${providerId}"%`}`;
}

/** When admission ran, in epoch ms: the log's `created_at` is when the request ended. */
function admittedAt(dialect: SqlDialect): Fragment {
  const ended = dialect === 'trino' ? trusted('to_unixtime(created_at) * 1000') : trusted('epoch_ms(created_at)');
  return sql`(${ended} - coalesce(latency_ms, 0))`;
}

async function compareLimit(spec: LimitSpec, engine: QueryEngine, scope: LogScope, range: TimeRange, now: number, sources: LimitSources): Promise<LimitComparison[]> {
  const first = Math.max(spec.windows[0].start, spec.since);
  const last = spec.windows.at(-1)!.end;
  const admitted = admittedAt(engine.dialect);
  const bounds = [sql`${admitted} >= ${first}`, ...(Number.isFinite(last) ? [sql`${admitted} < ${last}`] : [])];
  // The rows: every request that ended from the first window on (a request ends after it was admitted).
  const rowsRange: TimeRange = { from: new Date(first).toISOString(), to: new Date(Math.max(Date.parse(range.to), now) + 1_000).toISOString() };
  const rows = rowsOf(engine.dialect, 'requests', scope, [...scopeConditions('requests', scope), ...rangeConditions('requests', 'created_at', rowsRange), ...spec.conditions, ...bounds]);
  const bucket = spec.windowMs === undefined ? trusted('0') : sql`CAST(floor(${admitted} / ${spec.windowMs}) AS BIGINT)`;
  const groups = spec.groupColumns.map((column, index) => sql`${column} AS ${trusted(`g${index}`)}`);
  // Unpriced media requests are grouped by their units too (reconcile-media.ts): each group priced as settlement did.
  const select = [...groups, sql`${bucket} AS bucket`, ...UNPRICED_MEDIA_GROUPS];
  const positions = trusted(select.map((_, index) => String(index + 1)).join(', '));
  const result = await engine.query(
    statement(
      sql`SELECT ${select.reduce((all, part) => sql`${all}, ${part}`)}, sum(CASE WHEN cache_status IN (${CACHE_HITS[0]}, ${CACHE_HITS[1]}) THEN 0 ELSE coalesce(total_tokens, coalesce(prompt_tokens, 0) + coalesce(completion_tokens, 0)) END) AS tokens, CAST(sum(CAST(round(coalesce(cost, 0), 10) AS DECIMAL(38, 10))) AS VARCHAR) AS cost_exact, sum(CASE WHEN cost IS NULL THEN coalesce(prompt_tokens, 0) ELSE 0 END) AS unpriced_prompt_tokens, sum(CASE WHEN cost IS NULL THEN coalesce(completion_tokens, 0) ELSE 0 END) AS unpriced_completion_tokens, ${UNPRICED_MEDIA_REQUESTS} FROM ${rows} GROUP BY ${positions}`,
    ),
  );
  // Logged amounts by group and window; the groups seen are read in every window (a charge without a log shows).
  const logged = new Map<string, bigint>();
  const groupsSeen = new Map<string, string>();
  if (spec.groupColumns.length === 0) groupsSeen.set(groupOfRow(spec, {}).hash, '');
  for (const row of result.rows) {
    const group = groupOfRow(spec, row);
    groupsSeen.set(group.hash, group.label);
    const windowStart = spec.windowMs === undefined ? spec.windows[0].start : Number(String(row.bucket)) * spec.windowMs;
    const amount =
      spec.measure === 'tokens' ? BigInt(whole(row.tokens)) : decimalTextToUnits(String(row.cost_exact ?? '0')) + unpricedUnits(whole(row.unpriced_prompt_tokens), whole(row.unpriced_completion_tokens)) + unpricedMediaUnits(row);
    const id = `${group.hash} ${windowStart}`;
    logged.set(id, (logged.get(id) ?? 0n) + amount);
  }
  const pairs = spec.windows.flatMap((window) => [...groupsSeen].map(([hash, label]) => ({ window, hash, label })));
  return Promise.all(
    pairs.map(async ({ window, hash, label }) => {
      const key = spec.key(hash, window);
      const leases = await counterLeases(key, now, sources.counters);
      const charged = await sources.counters.read(key, window.start);
      const expected = logged.get(`${hash} ${window.start}`) ?? 0n;
      return {
        limit: spec.name,
        window: windowLabel(spec, window),
        group: label,
        measure: spec.measure,
        charged,
        logged: spec.measure === 'tokens' ? Number(expected) : unitsToUsd(expected),
        leases,
      };
    }),
  );
}

/**
 * Gives back the counter's leases whose holders stopped (past expiry and grace, lease-reclaim.ts), always: it is the
 * write a refused request would make, conditional on the record as read. Returns those and what live leases hold.
 */
async function counterLeases(key: CounterKey, now: number, counters: LimitSources['counters']): Promise<LimitComparison['leases']> {
  const records = await counters.leaseRecords(key);
  const { given } = await reclaimAbandoned({ name: key.pk, read: async () => records, reclaim: (record) => counters.reclaimLease(key, record) }, now, records);
  const live = records.filter((record) => !abandoned(record, now)).map((record) => usdToUnits(record.held));
  return { held: unitsToUsd(live.reduce((sum, units) => sum + units, 0n)), reclaimed: given };
}

function groupOfRow(spec: LimitSpec, row: Record<string, unknown>): { hash: string; label: string } {
  if (!spec.policy) return { hash: '', label: '' };
  const keys = spec.policy.group_by.map(({ key }) => key);
  return groupOf(spec.policy, (key) => {
    const value = row[`g${keys.indexOf(key)}`];
    return value === null || value === undefined ? undefined : String(value);
  });
}

function windowLabel(spec: LimitSpec, window: CountingWindow): string {
  const start = new Date(window.start).toISOString();
  if (spec.windowMs !== undefined) return `window ${start} … ${new Date(window.end).toISOString()}`;
  return window.start === 0 ? 'since it was created' : `period from ${start}`;
}

/** True when a counter and the logs agree: tokens exactly, USD to 1e-10. */
export function agrees(comparison: LimitComparison): boolean {
  return comparison.measure === 'tokens' ? comparison.charged === comparison.logged : usdToUnits(comparison.charged) === usdToUnits(comparison.logged);
}

function whole(value: unknown): number {
  return value === null || value === undefined ? 0 : Number(String(value));
}
