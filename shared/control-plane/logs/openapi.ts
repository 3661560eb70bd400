// Documentation only: read by scripts/openapi.ts to write docs/openapi.yaml, never imported by a handler.
import type { OpenApiOperation } from '../openapi-operation.js';
import { observabilityReads } from '../operation-family.js';
import { logIdPathSchema, requestLogListQuerySchema, requestLogListSchema, requestLogSchema } from './schemas.js';

export const openApiOperations: OpenApiOperation[] = [
  observabilityReads.list({
    path: '/v1/logs',
    operationId: 'listRequestLogs',
    summary: 'List request logs',
    description:
      'One record per gateway request, newest first unless `sort`/`order` say otherwise (cost, latency, tokens; paged with the same cursor). Besides the named filters, any number of `metadata.<key>=<value>` parameters (e.g. `metadata._user=alice`). Served by the log engine (DuckDB locally, Athena on AWS: docs/observability.md); the `x-gw-data-freshness-ms` response header says how fresh the data is. Records older than LOG_RETENTION_DISPLAY days are never returned.',
    query: requestLogListQuerySchema,
    response: { description: 'A page of request logs.', schema: requestLogListSchema },
  }),
  observabilityReads.get({
    path: '/v1/logs/{id}',
    operationId: 'getRequestLog',
    summary: 'Get a request log',
    description: 'The record with its bodies (those kept in the blob store read back). Another workspace’s record is a 404.',
    pathParameters: logIdPathSchema,
    response: { description: 'The request log.', schema: requestLogSchema },
  }),
];
