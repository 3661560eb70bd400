// Documentation only: read by scripts/openapi.ts to write docs/openapi.yaml, never imported by a handler.
import type { OpenApiOperation } from '../../../scripts/openapi/operation.js';
import { logListQuerySchema } from '../logs/schemas.js';
import { spanListQuerySchema, spanListSchema, traceIdPathSchema, traceSchema, traceSummaryListSchema } from './schemas.js';

const TAG = 'Observability';

export const openApiOperations: OpenApiOperation[] = [
  {
    method: 'get',
    path: '/v1/traces',
    operationId: 'listTraces',
    summary: 'List trace summaries',
    description: 'Traces (x-gw-trace-id) of the workspace, newest first, with the same filters as GET /v1/logs.',
    tags: [TAG],
    scopes: ['logs:read'],
    query: logListQuerySchema,
    responses: { '200': { description: 'A page of trace summaries.', schema: traceSummaryListSchema } },
    errors: [400, 401, 403, 404],
  },
  {
    method: 'get',
    path: '/v1/traces/{traceId}',
    operationId: 'getTrace',
    summary: 'Get a trace',
    description: 'Every request of the trace with all their spans (gw stages and upstream attempts).',
    tags: [TAG],
    scopes: ['logs:read'],
    pathParameters: traceIdPathSchema,
    responses: { '200': { description: 'The trace.', schema: traceSchema } },
    errors: [401, 403, 404],
  },
  {
    method: 'get',
    path: '/v1/spans',
    operationId: 'listSpans',
    summary: 'List the spans of a trace',
    tags: [TAG],
    scopes: ['logs:read'],
    query: spanListQuerySchema,
    responses: { '200': { description: 'The spans, in start order.', schema: spanListSchema } },
    errors: [400, 401, 403, 404],
  },
];
