import { jsonResponse } from '../../http/types.js';
import { MODEL_SEPARATOR, traceSummaries, type TraceCursor } from '../../observability/engine/log-queries.js';
import { isoTime } from '../../observability/engine/rows.js';
import { logEngines } from '../../observability/engine/select.js';
import type { RequestLogRecord } from '../../observability/log-record.js';
import type { ControlPlaneRequest } from '../handler-types.js';
import { notFound, requireScope } from '../authorization.js';
import { usageViewerFor } from '../analytics/visibility.js';
import { logWorkspace, readLogFilter } from '../logs/filters.js';
import { hideUsageForMembers } from '../logs/hide-usage.js';
import { cursorPosition, freshnessHeaders, listFingerprint, LogReader, readRange } from '../logs/log-reader.js';
import { presentLog } from '../logs/present.js';
import { readPageRequest, toPage, type Page } from '../pagination.js';
import type { RouteRegistrar } from '../handler-types.js';
import { validate } from '../../http/json-body.js';
import { spanListQuerySchema, traceIdPathSchema, type Trace, type TraceSummary } from './schemas.js';

/** GET /v1/traces, GET /v1/traces/{traceId}, GET /v1/spans?trace_id= (scope logs:read). */
export function registerTraceRoutes(register: RouteRegistrar): void {
  register('GET', '/v1/traces', async (call) => jsonResponse(200, await listTraces(call), await freshnessHeaders()));
  register('GET', '/v1/traces/{traceId}', async (call) => jsonResponse(200, await getTrace(call), await freshnessHeaders()));
  register('GET', '/v1/spans', async (call) => jsonResponse(200, await listSpans(call), await freshnessHeaders()));
}

/**
 * Trace summaries, newest first: every trace with a request matching the filters, summarised over all its requests
 * by the engine in one grouped query. A trace sorts by its newest request, so paging never repeats one.
 */
export async function listTraces(call: ControlPlaneRequest): Promise<Page<TraceSummary>> {
  requireScope(call.principal, 'logs:read');
  const { filter, workspaceId } = readLogFilter(call.request.query, ['limit', 'cursor']);
  const page = readPageRequest(call.request);
  const scope = { organisationId: call.principal.organisationId, workspaceId: await logWorkspace(call.principal, workspaceId) };
  const fingerprint = listFingerprint(scope, filter, 'traces');
  const position = cursorPosition(page.startKey, fingerprint, ['ended_at', 'trace_id']);
  const after: TraceCursor | undefined = position ? { ended_at: position[0], trace_id: position[1] } : undefined;
  const { engine } = await logEngines();
  const result = await engine.query(traceSummaries(engine.dialect, { scope, range: readRange(filter), filter }, page.limit, after));
  const viewer = await usageViewerFor(call.principal, scope.workspaceId);
  const summaries = result.rows.slice(0, page.limit).map(summaryOf);
  const last = summaries.at(-1);
  return toPage(summaries.map((summary) => hideUsageForMembers(summary, viewer)), result.rows.length > page.limit && last ? { list: fingerprint, ended_at: last.ended_at, trace_id: last.trace_id } : undefined);
}

export async function getTrace(call: ControlPlaneRequest): Promise<Trace> {
  requireScope(call.principal, 'logs:read');
  const { traceId } = validate(traceIdPathSchema, call.params);
  const workspace = await logWorkspace(call.principal, call.request.query.workspace_id);
  const requests = await new LogReader().trace({ organisationId: call.principal.organisationId, workspaceId: workspace }, traceId);
  if (requests.length === 0) throw notFound('trace', traceId);
  // The one place a trace's requests are presented.
  const trace: Trace = { object: 'trace', trace_id: traceId, requests: requests.map(presentLog), spans: spansOf(requests) };
  return hideUsageForMembers(trace, await usageViewerFor(call.principal, workspace));
}

export async function listSpans(call: ControlPlaneRequest): Promise<Page<Trace['spans'][number]>> {
  requireScope(call.principal, 'logs:read');
  const query = validate(spanListQuerySchema, call.request.query);
  const workspace = await logWorkspace(call.principal, query.workspace_id);
  const viewer = await usageViewerFor(call.principal, workspace);
  const spans = spansOf(await new LogReader().trace({ organisationId: call.principal.organisationId, workspaceId: workspace }, query.trace_id));
  return toPage(spans.map((span) => hideUsageForMembers(span, viewer)), undefined);
}

/** Every span of the trace's requests, in start order, each naming its request and trace. */
function spansOf(requests: RequestLogRecord[]): Trace['spans'] {
  return requests
    .flatMap((request) => (request.spans ?? []).map((span) => ({ ...span, log_id: request.id, trace_id: request.trace_id })))
    .sort((a, b) => a.start_time.localeCompare(b.start_time));
}

function summaryOf(row: Record<string, unknown>): TraceSummary {
  const models = typeof row.models === 'string' && row.models.length > 0 ? row.models.split(MODEL_SEPARATOR).sort() : [];
  return {
    object: 'trace',
    trace_id: String(row.trace_id),
    started_at: isoTime(row.started_at),
    ended_at: isoTime(row.ended_at),
    requests: Number(row.requests),
    errors: Number(row.errors),
    cost: Math.round(Number(row.cost ?? 0) * 1e10) / 1e10,
    total_tokens: Number(row.total_tokens ?? 0),
    models,
  };
}
