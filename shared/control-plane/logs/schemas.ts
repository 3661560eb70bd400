import * as z from 'zod';
import { LOG_SORT_FIELDS } from '../../observability/engine/log-queries.js';
import { resourceListSchema } from '../resource/schema-helpers.js';

/** Query and responses of GET /v1/logs, /v1/logs/{id}; types are inferred from these and docs/openapi.yaml generated. */

const isoTime = z.iso.datetime({ offset: true });

/**
 * The log filters, shared by GET /v1/logs, GET /v1/traces and POST /v1/exports. `metadata.<key>=<value>`
 * parameters (any key, `_user` included) come on top of these; see `readLogFilter`.
 */
export const logFilterSchema = z
  .strictObject({
    workspace_id: z.string().min(1).max(128).optional().meta({ description: 'Another workspace of the organisation (admin callers only).' }),
    trace_id: z.string().min(1).max(128).optional().meta({ description: 'The x-gw-trace-id of the requests.' }),
    user: z.string().min(1).max(512).optional().meta({ description: 'Same as metadata._user=<value>.' }),
    provider: z.string().min(1).max(64).optional(),
    model: z.string().min(1).max(256).optional(),
    status: z
      .string()
      .regex(/^([1-5]\d\d|[1-5]xx|error)$/, 'must be an HTTP status code, a class such as `4xx`, or `error`')
      .optional()
      .meta({ description: 'An HTTP status (e.g. 429), a class of them (`2xx`, `4xx`, `5xx`), or `error` for every failed request.' }),
    cache_status: z.enum(['HIT', 'SEMANTIC HIT', 'MISS', 'SEMANTIC MISS', 'REFRESH', 'DISABLED']).optional(),
    api_key_id: z.string().min(1).max(128).optional(),
    virtual_key_id: z.string().min(1).max(128).optional(),
    from: isoTime.optional().meta({ description: 'Requests at or after this time (ISO 8601).' }),
    to: isoTime.optional().meta({ description: 'Requests at or before this time (ISO 8601).' }),
  })
  .meta({ id: 'LogFilter' });

/** The order of GET /v1/logs; the cursor of a page belongs to its sort and order (another one is a 400). */
export const logSortQuerySchema = z.strictObject({
  sort: z
    .enum(LOG_SORT_FIELDS)
    .optional()
    .meta({ description: 'The order of the list: `created_at` (default), `cost`, `latency_ms` or `total_tokens`. Ties go by time, then id; requests without the value (no cost, no usage) come last. Sorting by `cost` or `total_tokens` needs a caller who may see usage (else 403 `analytics_not_visible`).' }),
  order: z.enum(['desc', 'asc']).optional().meta({ description: '`desc` (default: newest, costliest, slowest first) or `asc`.' }),
});

export const logListQuerySchema = logFilterSchema
  .extend({
    limit: z.string().optional().meta({ description: '1-100, default 20.' }),
    cursor: z.string().optional().meta({ description: 'next_cursor of the previous page (of the same filters, and for logs the same sort and order).' }),
  })
  .meta({ id: 'LogListQuery' });

/** GET /v1/logs: the list query plus its order (traces keep theirs: a trace sorts by its last request). */
export const requestLogListQuerySchema = logListQuerySchema.extend(logSortQuerySchema.shape).meta({ id: 'RequestLogListQuery' });

export const logIdPathSchema = z.strictObject({ id: z.string().min(1).max(128) });

const usageSchema = z.object({
  prompt_tokens: z.number(),
  completion_tokens: z.number(),
  total_tokens: z.number(),
  cached_tokens: z.number(),
  reasoning_tokens: z.number(),
  // Media endpoints (issue #47): what the request was billed by, present only when it had them.
  images: z.number().optional().meta({ description: 'Images made (images/generations, images/edits).' }),
  characters: z.number().optional().meta({ description: 'Characters of speech input (audio/speech).' }),
  audio_seconds: z.number().optional().meta({ description: 'Seconds of audio transcribed or translated; estimated from the file size when the provider reported no duration.' }),
  image_size: z.string().optional().meta({ description: 'The `size` the image request asked for (it sets the per-image price).' }),
  image_quality: z.string().optional().meta({ description: 'The `quality` the image request asked for (it sets the per-image price).' }),
});

export const spanSchema = z
  .object({
    span_id: z.string(),
    parent_span_id: z.string().optional(),
    name: z.string().meta({ description: 'auth, policy_check, guardrails, cache_lookup, attempt, tool, …' }),
    kind: z.enum(['stage', 'attempt', 'tool']),
    start_time: z.string(),
    end_time: z.string().optional(),
    duration_ms: z.number().optional(),
    status: z.enum(['ok', 'error']),
    attributes: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
    error: z.object({ type: z.string().optional(), code: z.string().optional(), message: z.string().optional() }).optional(),
  })
  .meta({ id: 'Span' });

export const requestLogSchema = z
  .object({
    object: z.literal('request_log'),
    id: z.string(),
    trace_id: z.string(),
    span_id: z.string(),
    created_at: z.string(),
    workspace_id: z.string(),
    api_key_id: z.string().meta({ description: 'The id of the API key, never the key.' }),
    virtual_key_id: z.string().nullable(),
    endpoint: z.string(),
    provider: z.string().nullable(),
    model: z.string().nullable(),
    status: z.number().meta({ description: 'HTTP status of the response.' }),
    latency_ms: z.number(),
    ttft_ms: z.number().nullable().meta({ description: 'Time to the first streamed byte.' }),
    usage: usageSchema.nullable(),
    cost: z.number().nullable().meta({ description: 'USD, from the pricing chain; null when unknown.' }),
    cache_status: z.string().nullable(),
    retry_count: z.number(),
    last_used_option: z.string().nullable(),
    metadata: z.record(z.string(), z.string()),
    error: z.object({ type: z.string().nullable(), code: z.string().nullable(), message: z.string().nullable() }).nullable(),
    stream: z.boolean(),
    attempts: z.array(z.record(z.string(), z.unknown())),
    spans: z.array(spanSchema),
    request_body: z.unknown().meta({ description: 'Redacted, size-capped; null when the workspace does not keep bodies.' }),
    response_body: z.unknown(),
    body_truncated: z.boolean().optional(),
  })
  .meta({ id: 'RequestLog' });

export const requestLogListSchema = resourceListSchema(requestLogSchema, 'RequestLogList');

export type RequestLog = z.infer<typeof requestLogSchema>;
