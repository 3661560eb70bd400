// Documentation only: read by scripts/openapi.ts to write docs/openapi.yaml, never imported by a handler.
import type { OpenApiOperation } from '../../../scripts/openapi/operation.js';
import { logIdPathSchema, logListQuerySchema, requestLogListSchema, requestLogSchema } from './schemas.js';

const TAG = 'Observability';

export const openApiOperations: OpenApiOperation[] = [
  {
    method: 'get',
    path: '/v1/logs',
    operationId: 'listRequestLogs',
    summary: 'List request logs',
    description:
      'One record per gateway request, newest first. Besides the named filters, any number of `metadata.<key>=<value>` parameters (e.g. `metadata._user=alice`). Served by the log engine (DuckDB locally, Athena on AWS: docs/observability.md); the `x-gw-data-freshness-ms` response header says how fresh the data is. Records older than LOG_RETENTION_DISPLAY days are never returned.',
    tags: [TAG],
    scopes: ['logs:read'],
    query: logListQuerySchema,
    responses: { '200': { description: 'A page of request logs.', schema: requestLogListSchema } },
    errors: [400, 401, 403, 404],
  },
  {
    method: 'get',
    path: '/v1/logs/{id}',
    operationId: 'getRequestLog',
    summary: 'Get a request log',
    description: 'The record with its bodies (those kept in the blob store read back). Another workspace’s record is a 404.',
    tags: [TAG],
    scopes: ['logs:read'],
    pathParameters: logIdPathSchema,
    responses: { '200': { description: 'The request log.', schema: requestLogSchema } },
    errors: [401, 403, 404],
  },
];
