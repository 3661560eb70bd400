// Documentation only: read by scripts/openapi.ts to write docs/openapi.yaml, never imported by a handler.
import type { OpenApiOperation } from '../openapi-operation.js';
import { logListQuerySchema } from '../logs/schemas.js';
import { observabilityReads } from '../operation-family.js';
import { spanListQuerySchema, spanListSchema, traceIdPathSchema, traceSchema, traceSummaryListSchema } from './schemas.js';

export const openApiOperations: OpenApiOperation[] = [
  observabilityReads.list({
    path: '/v1/traces',
    operationId: 'listTraces',
    summary: 'List trace summaries',
    description: 'Traces (x-gw-trace-id) of the workspace, newest first, with the same filters as GET /v1/logs.',
    query: logListQuerySchema,
    response: { description: 'A page of trace summaries.', schema: traceSummaryListSchema },
  }),
  observabilityReads.get({
    path: '/v1/traces/{traceId}',
    operationId: 'getTrace',
    summary: 'Get a trace',
    description: 'Every request of the trace with all their spans (gw stages and upstream attempts).',
    pathParameters: traceIdPathSchema,
    response: { description: 'The trace.', schema: traceSchema },
  }),
  observabilityReads.list({
    path: '/v1/spans',
    operationId: 'listSpans',
    summary: 'List the spans of a trace',
    query: spanListQuerySchema,
    response: { description: 'The spans, in start order.', schema: spanListSchema },
  }),
];
