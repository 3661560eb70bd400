import { badRequest } from '../../http/errors.js';
import { jsonResponse } from '../../http/types.js';
import { analyticsSeries, analyticsTotals, MAX_ANALYTICS_GROUPS, MAX_ANALYTICS_POINTS, type AnalyticsGroup } from '../../observability/engine/analytics-queries.js';
import { isoTime } from '../../observability/engine/rows.js';
import { logEngines } from '../../observability/engine/select.js';
import { settings } from '../../settings.js';
import type { ControlPlaneRequest } from '../handler-types.js';
import { requireScope } from '../authorization.js';
import { freshnessHeaders } from '../logs/log-reader.js';
import type { RouteRegistrar } from '../handler-types.js';
import { validate } from '../../http/json-body.js';
import { targetWorkspace } from '../workspaces/access.js';
import { analyticsQuerySchema, type Analytics, type AnalyticsRow } from './schemas.js';
import { requireAnalyticsVisibility } from './visibility.js';

const DAY_MS = 86_400_000;

/** GET /v1/analytics (scope logs:read): figures per group, computed by the log engine over the request rows. */
export function registerAnalyticsRoutes(register: RouteRegistrar): void {
  register('GET', '/v1/analytics', async (call) => jsonResponse(200, await readAnalytics(call), await freshnessHeaders()));
}

export async function readAnalytics(call: ControlPlaneRequest): Promise<Analytics> {
  requireScope(call.principal, 'logs:read');
  const query = validate(analyticsQuerySchema, call.request.query);
  const now = Date.now();
  const to = query.to ? Math.min(Date.parse(query.to), now) : now;
  const requestedFrom = query.from ? Date.parse(query.from) : to - DAY_MS;
  if (requestedFrom > to) throw badRequest('invalid_request', 'from: must not be after to', 'from');
  const from = Math.max(requestedFrom, now - settings().METRICS_RETENTION_DISPLAY * DAY_MS);
  const workspace = await targetWorkspace(call.principal, query.workspace_id);
  await requireAnalyticsVisibility(call.principal, workspace.id);
  // Organisation admins grouping by workspace without naming one see every workspace of their organisation.
  const wholeOrganisation = query.group_by === 'workspace' && call.principal.kind === 'admin' && query.workspace_id === undefined;
  const scope = { organisationId: call.principal.organisationId, workspaceId: wholeOrganisation ? undefined : workspace.id };
  const range = { from: new Date(from).toISOString(), to: new Date(to).toISOString() };
  const { engine } = await logEngines();
  const request = { scope, range, groupBy: query.group_by as AnalyticsGroup, interval: query.interval };
  const [totals, series] = await Promise.all([engine.query(analyticsTotals(engine.dialect, request)), engine.query(analyticsSeries(engine.dialect, request))]);
  // Capped, never cut short: a partial answer would read as exact figures.
  if (totals.rows.length > MAX_ANALYTICS_GROUPS) {
    throw badRequest('too_many_groups', `group_by: more than ${MAX_ANALYTICS_GROUPS} groups in this range; narrow it with from/to or workspace_id, or group by something with fewer values`, 'group_by');
  }
  if (series.rows.length > MAX_ANALYTICS_POINTS) {
    throw badRequest('too_many_points', `interval: more than ${MAX_ANALYTICS_POINTS} points (groups × ${query.interval}s) in this range; use interval=day or a shorter range`, 'interval');
  }
  return {
    object: 'analytics',
    group_by: query.group_by,
    from: range.from,
    to: range.to,
    interval: query.interval,
    rows: totals.rows.map((row) => ({ key: keyOf(row.group_key), ...figuresOf(row) })),
    series: series.rows.map((row) => ({ time: isoTime(row.bucket).replace('.000Z', 'Z'), key: keyOf(row.group_key), ...figuresOf(row) })),
  };
}

/** The requests without the grouped value are the null group (never the text "null"). */
const keyOf = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));

function figuresOf(row: Record<string, unknown>): Omit<AnalyticsRow, 'key'> {
  const optional = (value: unknown) => (value === null || value === undefined ? null : Math.round(Number(value) * 100) / 100);
  return {
    requests: Number(row.requests),
    errors: Number(row.errors),
    prompt_tokens: Number(row.prompt_tokens),
    completion_tokens: Number(row.completion_tokens),
    images: Number(row.images ?? 0),
    characters: Number(row.characters ?? 0),
    // Seconds may be fractional (a provider's reported duration): rounded like the latencies, not to whole seconds.
    audio_seconds: Math.round(Number(row.audio_seconds ?? 0) * 1000) / 1000,
    // Sums of decimal costs pick up float noise; a 1e-10 USD rounding keeps them equal to the logs' sum.
    cost: Math.round(Number(row.cost) * 1e10) / 1e10,
    cache_hits: Number(row.cache_hits),
    latency_p50_ms: optional(row.latency_p50_ms),
    latency_p95_ms: optional(row.latency_p95_ms),
  };
}
