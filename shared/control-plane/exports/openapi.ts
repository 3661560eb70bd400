// Documentation only: read by scripts/openapi.ts to write docs/openapi.yaml, never imported by a handler.
import * as z from 'zod';
import type { OpenApiOperation } from '../../../scripts/openapi/operation.js';
import { exportCreateSchema, exportIdPathSchema, exportSchema } from './schemas.js';

const TAG = 'Observability';

export const openApiOperations: OpenApiOperation[] = [
  {
    method: 'post',
    path: '/v1/exports',
    operationId: 'createExport',
    summary: 'Export request logs as JSON Lines',
    description: 'Takes the GET /v1/logs filters (metadata as an object); the file is written in the background. Poll GET /v1/exports/{id}.',
    tags: [TAG],
    scopes: ['logs:read'],
    featureFlags: ['DATA_EXPORTS_ENABLED'],
    body: exportCreateSchema,
    responses: { '202': { description: 'The export, pending.', schema: exportSchema } },
    errors: [400, 401, 403, 404],
  },
  {
    method: 'get',
    path: '/v1/exports/{id}',
    operationId: 'getExport',
    summary: 'Get an export’s status and download URL',
    tags: [TAG],
    scopes: ['logs:read'],
    featureFlags: ['DATA_EXPORTS_ENABLED'],
    pathParameters: exportIdPathSchema,
    responses: { '200': { description: 'The export.', schema: exportSchema } },
    errors: [401, 403, 404],
  },
  {
    method: 'get',
    path: '/v1/exports/{id}/download',
    operationId: 'downloadExport',
    summary: 'Download a completed export',
    description:
      'The JSON Lines file, with the same API key (where the blob store cannot presign URLs, e.g. locally). 409 export_not_ready until the export has completed; 404 export_file_not_found once its file is gone (expired with the logs it holds).',
    tags: [TAG],
    scopes: ['logs:read'],
    featureFlags: ['DATA_EXPORTS_ENABLED'],
    pathParameters: exportIdPathSchema,
    responses: { '200': { description: 'One request log per line.', contentType: 'application/x-ndjson', schema: z.string() } },
    errors: [401, 403, 404, 409],
  },
];
