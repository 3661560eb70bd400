import { jsonResponse } from '../../http/types.js';
import { loadBody } from '../../observability/log-bodies.js';
import type { ControlPlaneRequest } from '../handler-types.js';
import { notFound, requireScope } from '../authorization.js';
import { readPageRequest, toPage, type Page } from '../pagination.js';
import type { RouteRegistrar } from '../handler-types.js';
import { validate } from '../../http/json-body.js';
import { requireAnalyticsVisibility, usageViewerFor } from '../analytics/visibility.js';
import type { LogSort } from '../../observability/engine/log-queries.js';
import { logWorkspace, readLogFilter } from './filters.js';
import { hideUsageForMembers } from './hide-usage.js';
import { freshnessHeaders, LogReader } from './log-reader.js';
import { presentLog } from './present.js';
import { logIdPathSchema, logSortQuerySchema, type RequestLog } from './schemas.js';

/** GET /v1/logs and GET /v1/logs/{id}: the request logs of the caller's workspace (scope logs:read). */
export function registerLogRoutes(register: RouteRegistrar): void {
  register('GET', '/v1/logs', async (call) => jsonResponse(200, await listLogs(call), await freshnessHeaders()));
  register('GET', '/v1/logs/{id}', async (call) => jsonResponse(200, await getLog(call), await freshnessHeaders()));
}

export async function listLogs(call: ControlPlaneRequest): Promise<Page<RequestLog>> {
  requireScope(call.principal, 'logs:read');
  const { filter, workspaceId } = readLogFilter(call.request.query, ['limit', 'cursor', 'sort', 'order']);
  const page = readPageRequest(call.request);
  const sort = readLogSort(call.request.query);
  const workspace = await logWorkspace(call.principal, workspaceId);
  const scope = { organisationId: call.principal.organisationId, workspaceId: workspace };
  // An order by cost or tokens tells what the rows' hidden figures would: only a caller who may see them may sort by them.
  if (sort.field === 'cost' || sort.field === 'total_tokens') await requireAnalyticsVisibility(call.principal, workspace);
  const [result, viewer] = await Promise.all([new LogReader().list(scope, filter, page.limit, page.startKey, sort), usageViewerFor(call.principal, workspace)]);
  // The one place list rows are presented.
  return toPage(result.items.map((record) => hideUsageForMembers(presentLog(record), viewer)), result.nextKey);
}

/** `sort` (created_at, cost, latency_ms, total_tokens) and `order` (desc, asc) of GET /v1/logs: newest first unless named. */
function readLogSort(query: Record<string, unknown>): LogSort {
  const parsed = validate(logSortQuerySchema, { sort: query.sort, order: query.order });
  return { field: parsed.sort ?? 'created_at', order: parsed.order ?? 'desc' };
}

/** One record with its bodies, those kept in the blob store read back. */
export async function getLog(call: ControlPlaneRequest): Promise<RequestLog> {
  requireScope(call.principal, 'logs:read');
  const { id } = validate(logIdPathSchema, call.params);
  const workspace = await logWorkspace(call.principal, call.request.query.workspace_id);
  const record = await new LogReader().get({ organisationId: call.principal.organisationId, workspaceId: workspace }, id);
  if (!record) throw notFound('request log', id);
  const [requestBody, responseBody] = await Promise.all([
    record.request_body_ref ? loadBody(record.request_body_ref) : record.request_body,
    record.response_body_ref ? loadBody(record.response_body_ref) : record.response_body,
  ]);
  return hideUsageForMembers(presentLog({ ...record, request_body: requestBody, response_body: responseBody }), await usageViewerFor(call.principal, workspace));
}
