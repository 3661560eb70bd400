import * as z from 'zod';
import { logFilterSchema } from '../logs/schemas.js';
import { resourceListSchema } from '../resource/schema-helpers.js';

/** Body and responses of /v1/exports; types are inferred from these and docs/openapi.yaml generated. */

export const exportCreateSchema = logFilterSchema
  .omit({ workspace_id: true })
  .extend({
    workspace_id: z.string().min(1).max(128).optional().meta({ description: 'Another workspace of the organisation (admin callers only).' }),
    metadata: z.record(z.string().min(1).max(64), z.string().min(1).max(512)).optional().meta({ description: 'Exact metadata matches, e.g. {"_user": "alice"}.' }),
    format: z.enum(['jsonl', 'parquet', 'csv']).default('jsonl').meta({ description: 'JSON Lines (default), Parquet or CSV: one row of the requests table per request (docs/observability.md lists the columns).' }),
  })
  .meta({ id: 'ExportCreate' });

export const exportListQuerySchema = z
  .strictObject({
    workspace_id: z.string().min(1).max(128).optional().meta({ description: 'Another workspace of the organisation (admin callers only).' }),
    limit: z.string().optional().meta({ description: 'Exports per page, 1-100 (default 20).' }),
    cursor: z.string().optional().meta({ description: 'next_cursor of the previous page.' }),
  })
  .meta({ id: 'ExportListQuery' });

export const exportIdPathSchema = z.strictObject({ id: z.string().min(1).max(128) });

export const exportSchema = z
  .object({
    object: z.literal('export'),
    id: z.string(),
    workspace_id: z.string(),
    status: z.enum(['pending', 'running', 'completed', 'failed']),
    filters: z.record(z.string(), z.unknown()),
    format: z.enum(['jsonl', 'parquet', 'csv']),
    row_count: z.number().nullable(),
    created_at: z.string(),
    completed_at: z.string().nullable(),
    download_url: z.string().nullable().meta({ description: 'Once completed: the first of download_urls, or null.' }),
    download_urls: z.array(z.string()).meta({ description: 'Once completed: presigned S3 URLs (1 hour), one per file the engine wrote (Athena UNLOAD may write several), or locally one gw route that takes the same API key. Empty before completion, and for a caller who may not see the tokens and cost the export holds.' }),
    error: z.string().nullable(),
  })
  .meta({ id: 'DataExport' });

export const exportListSchema = resourceListSchema(exportSchema, 'DataExportList');

export type DataExport = z.infer<typeof exportSchema>;
