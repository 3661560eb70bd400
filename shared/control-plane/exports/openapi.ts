// Documentation only: read by scripts/openapi.ts to write docs/openapi.yaml, never imported by a handler.
import * as z from 'zod';
import type { OpenApiOperation } from '../openapi-operation.js';
import { operationFamily } from '../operation-family.js';
import { exportCreateSchema, exportIdPathSchema, exportListQuerySchema, exportListSchema, exportSchema } from './schemas.js';

const exportOperations = operationFamily({ tag: 'Observability', scopes: ['logs:read'], featureFlags: ['DATA_EXPORTS_ENABLED'] });

export const openApiOperations: OpenApiOperation[] = [
  exportOperations.post({
    path: '/v1/exports',
    operationId: 'createExport',
    summary: 'Export request logs (JSON Lines, Parquet or CSV)',
    description:
      'Takes the GET /v1/logs filters (metadata as an object) and a format; the log engine writes the file as a job of its own (DuckDB COPY locally, Athena UNLOAD on AWS), never inside this request. Poll GET /v1/exports/{id}. Each row is one row of the requests table (docs/observability.md); bodies kept in the blob store appear as `request_body_ref`/`response_body_ref`.',
    body: exportCreateSchema,
    status: '202',
    response: { description: 'The export, pending.', schema: exportSchema },
  }),
  exportOperations.list({
    path: '/v1/exports',
    operationId: 'listExports',
    summary: 'List the workspace’s exports, newest first',
    description:
      'Every export of the workspace (not only the caller’s), each as GET /v1/exports/{id} shows it: status, format, filters, row count once completed, and its download link (none for a caller who may not see the tokens and cost it holds). Paged with the cursor; exports older than LOG_RETENTION_DISPLAY days are gone.',
    query: exportListQuerySchema,
    response: { description: 'A page of exports.', schema: exportListSchema },
  }),
  exportOperations.get({
    path: '/v1/exports/{id}',
    operationId: 'getExport',
    summary: 'Get an export’s status and download URL',
    pathParameters: exportIdPathSchema,
    response: { description: 'The export.', schema: exportSchema },
  }),
  exportOperations.get({
    path: '/v1/exports/{id}/download',
    operationId: 'downloadExport',
    summary: 'Download a completed export',
    description:
      'The file, streamed, with the same API key (where the engine hands out no URL of its own, e.g. locally). 409 export_not_ready until the export has completed; 404 export_file_not_found once its file is gone (retention); 403 export_usage_hidden when the export holds tokens and cost the caller may not see.',
    pathParameters: exportIdPathSchema,
    response: { description: 'One request per line (JSON Lines), or the Parquet or CSV file.', contentType: 'application/x-ndjson', schema: z.string() },
    errors: [401, 403, 404, 409],
  }),
];
