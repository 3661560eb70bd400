import { jsonResponse } from '../../http/types.js';
import { hourBucket } from '../../observability/rollups.js';
import { settings } from '../../settings.js';
import { RollupRepository } from '../../store/rollup-repository.js';
import type { ControlPlaneRequest } from '../app.js';
import { requireScope } from '../authorization.js';
import type { RouteRegistrar } from '../routes.js';
import { validate } from '../validation.js';
import { targetWorkspace } from '../workspaces/access.js';
import { aggregateRollups } from './aggregate.js';
import { analyticsQuerySchema, type Analytics } from './schemas.js';
import { requireAnalyticsVisibility } from './visibility.js';
import { badRequest } from '../../http/errors.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** GET /v1/analytics (scope logs:read): figures per group from the hourly rollups, never from the logs. */
export function registerAnalyticsRoutes(register: RouteRegistrar): void {
  register('GET', '/v1/analytics', async (call) => jsonResponse(200, await readAnalytics(call)));
}

export async function readAnalytics(call: ControlPlaneRequest): Promise<Analytics> {
  requireScope(call.principal, 'logs:read');
  const query = validate(analyticsQuerySchema, call.request.query);
  const now = Date.now();
  const to = query.to ? Date.parse(query.to) : now;
  const requestedFrom = query.from ? Date.parse(query.from) : to - DAY_MS;
  if (requestedFrom > to) throw badRequest('invalid_request', 'from: must not be after to', 'from');
  // METRICS_RETENTION_DISPLAY bounds what is shown (older rollups expire by TTL, and may linger until then).
  const from = Math.max(requestedFrom, now - settings().METRICS_RETENTION_DISPLAY * DAY_MS);
  const fromHour = hourBucket(new Date(Math.floor(from / HOUR_MS) * HOUR_MS).toISOString());
  const toHour = hourBucket(new Date(to).toISOString());
  const rollups = new RollupRepository();
  const allWorkspaces = query.group_by === 'workspace' && call.principal.kind === 'admin' && query.workspace_id === undefined;
  const workspace = await targetWorkspace(call.principal, query.workspace_id);
  await requireAnalyticsVisibility(call.principal, workspace.id);
  const items =
    query.group_by === 'workspace'
      ? (await rollups.range('ORG', call.principal.organisationId, 'workspace', fromHour, toHour)).filter((item) => allWorkspaces || item.key === workspace.id)
      : await rollups.range('WS', workspace.id, query.group_by, fromHour, toHour);
  const { rows, series } = aggregateRollups(items, query.interval);
  return { object: 'analytics', group_by: query.group_by, from: new Date(from).toISOString(), to: new Date(to).toISOString(), interval: query.interval, rows, series };
}
