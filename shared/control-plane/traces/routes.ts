import { jsonResponse } from '../../http/types.js';
import type { RequestLogRecord } from '../../observability/log-record.js';
import { LogRepository } from '../../store/log-repository.js';
import type { ControlPlaneRequest } from '../app.js';
import { notFound, requireScope } from '../authorization.js';
import { usageViewerFor } from '../analytics/visibility.js';
import { logWorkspace, readLogFilter } from '../logs/filters.js';
import { hideUsageForMembers } from '../logs/hide-usage.js';
import { presentLog } from '../logs/present.js';
import { readPageRequest, toPage, type Page } from '../pagination.js';
import type { RouteRegistrar } from '../routes.js';
import { validate } from '../validation.js';
import { spanListQuerySchema, traceIdPathSchema, type Trace, type TraceSummary } from './schemas.js';

/** GET /v1/traces, GET /v1/traces/{traceId}, GET /v1/spans?trace_id= (scope logs:read). */
export function registerTraceRoutes(register: RouteRegistrar): void {
  register('GET', '/v1/traces', async (call) => jsonResponse(200, await listTraces(call)));
  register('GET', '/v1/traces/{traceId}', async (call) => jsonResponse(200, await getTrace(call)));
  register('GET', '/v1/spans', async (call) => jsonResponse(200, await listSpans(call)));
}

/**
 * Trace summaries, newest first: the page walks the workspace's request log (same filters) and summarises
 * each trace met from its whole trace partition. A trace is listed on the page that holds its newest request,
 * so paging never repeats one.
 */
export async function listTraces(call: ControlPlaneRequest): Promise<Page<TraceSummary>> {
  requireScope(call.principal, 'logs:read');
  const { filter, workspaceId } = readLogFilter(call.request.query, ['limit', 'cursor']);
  const page = readPageRequest(call.request);
  const workspace = await logWorkspace(call.principal, workspaceId);
  const repository = new LogRepository();
  const result = await repository.list(workspace, filter, page.limit, page.startKey);
  const after = page.startKey ? String(page.startKey.gsi1sk ?? page.startKey.sk ?? '') : undefined;
  const seen = new Set<string>();
  const summaries: TraceSummary[] = [];
  for (const record of result.items) {
    if (seen.has(record.trace_id)) continue;
    seen.add(record.trace_id);
    const requests = await repository.trace(workspace, record.trace_id);
    const newest = requests.at(-1);
    // Its newest request was on an earlier page: it was listed there.
    if (after && newest && `${newest.created_at}#${newest.id}` > after) continue;
    summaries.push(summarise(record.trace_id, requests.length > 0 ? requests : [record]));
  }
  const viewer = await usageViewerFor(call.principal, workspace);
  return toPage(summaries.map((summary) => hideUsageForMembers(summary, viewer)), result.nextKey);
}

export async function getTrace(call: ControlPlaneRequest): Promise<Trace> {
  requireScope(call.principal, 'logs:read');
  const { traceId } = validate(traceIdPathSchema, call.params);
  const workspace = await logWorkspace(call.principal, call.request.query.workspace_id);
  const requests = await new LogRepository().trace(workspace, traceId);
  if (requests.length === 0) throw notFound('trace', traceId);
  const trace: Trace = { object: 'trace', trace_id: traceId, requests: requests.map(presentLog), spans: spansOf(requests) };
  return hideUsageForMembers(trace, await usageViewerFor(call.principal, workspace));
}

export async function listSpans(call: ControlPlaneRequest): Promise<Page<Trace['spans'][number]>> {
  requireScope(call.principal, 'logs:read');
  const query = validate(spanListQuerySchema, call.request.query);
  const workspace = await logWorkspace(call.principal, query.workspace_id);
  const viewer = await usageViewerFor(call.principal, workspace);
  return toPage(spansOf(await new LogRepository().trace(workspace, query.trace_id)).map((span) => hideUsageForMembers(span, viewer)), undefined);
}

/** Every span of the trace's requests, in start order, each naming its request and trace. */
function spansOf(requests: RequestLogRecord[]): Trace['spans'] {
  return requests
    .flatMap((request) => (request.spans ?? []).map((span) => ({ ...span, log_id: request.id, trace_id: request.trace_id })))
    .sort((a, b) => a.start_time.localeCompare(b.start_time));
}

function summarise(traceId: string, requests: RequestLogRecord[]): TraceSummary {
  const times = requests.map((request) => request.created_at).sort();
  return {
    object: 'trace',
    trace_id: traceId,
    started_at: times[0],
    ended_at: times[times.length - 1],
    requests: requests.length,
    errors: requests.filter((request) => request.outcome === 'error').length,
    cost: requests.reduce((sum, request) => sum + (request.cost ?? 0), 0),
    total_tokens: requests.reduce((sum, request) => sum + (request.usage?.total_tokens ?? 0), 0),
    models: [...new Set(requests.map((request) => request.model).filter((model): model is string => typeof model === 'string'))],
  };
}
