import * as z from 'zod';
import { requestLogSchema, spanSchema } from '../logs/schemas.js';
import { resourceListSchema } from '../resource/schema-helpers.js';

/** Responses of GET /v1/traces, /v1/traces/{traceId} and /v1/spans. */

export const traceSummarySchema = z
  .object({
    object: z.literal('trace'),
    trace_id: z.string(),
    started_at: z.string(),
    ended_at: z.string(),
    requests: z.number(),
    errors: z.number(),
    cost: z.number().nullable().meta({ description: 'USD summed over the requests that have a price; null when the workspace hides usage from the caller (membersViewAnalytics).' }),
    total_tokens: z.number().nullable(),
    models: z.array(z.string()),
  })
  .meta({ id: 'TraceSummary' });

export const traceSummaryListSchema = resourceListSchema(traceSummarySchema, 'TraceSummaryList');

export const traceSchema = z
  .object({ object: z.literal('trace'), trace_id: z.string(), requests: z.array(requestLogSchema), spans: z.array(spanSchema.extend({ log_id: z.string(), trace_id: z.string() })) })
  .meta({ id: 'Trace' });

export const traceIdPathSchema = z.strictObject({ traceId: z.string().min(1).max(128) });

export const spanListQuerySchema = z.strictObject({
  trace_id: z.string().min(1).max(128).meta({ description: 'Required: the trace whose spans to list.' }),
  workspace_id: z.string().min(1).max(128).optional(),
});

export const spanListSchema = resourceListSchema(spanSchema.extend({ log_id: z.string(), trace_id: z.string() }), 'SpanList');

export type TraceSummary = z.infer<typeof traceSummarySchema>;
export type Trace = z.infer<typeof traceSchema>;
