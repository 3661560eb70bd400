import * as z from 'zod';

/** Query and response of GET /v1/analytics; types are inferred from these and docs/openapi.yaml generated. */

const isoTime = z.iso.datetime({ offset: true });

export const analyticsQuerySchema = z
  .strictObject({
    group_by: z
      .string()
      .regex(/^(workspace|model|provider|api_key|metadata\.[^\s]{1,64})$/, 'must be workspace, model, provider, api_key or metadata.<key>')
      .default('model')
      .meta({ description: 'workspace (admin callers: every workspace of the organisation), model, provider, api_key, or metadata.<key>.' }),
    from: isoTime.optional().meta({ description: 'Default: 24 hours before `to`. Raised to METRICS_RETENTION_DISPLAY days ago.' }),
    to: isoTime.optional().meta({ description: 'Default: now.' }),
    interval: z.enum(['hour', 'day']).default('day').meta({ description: 'Bucket size of `series`.' }),
    workspace_id: z.string().min(1).max(128).optional().meta({ description: 'Another workspace of the organisation (admin callers only).' }),
  })
  .meta({ id: 'AnalyticsQuery' });

const figures = {
  requests: z.number(),
  errors: z.number(),
  prompt_tokens: z.number(),
  completion_tokens: z.number(),
  images: z.number().meta({ description: 'Images made (image endpoints billed per image).' }),
  characters: z.number().meta({ description: 'Characters of speech input (text-to-speech billed per character).' }),
  audio_seconds: z.number().meta({ description: 'Seconds of audio transcribed or translated (billed per minute); estimated from the file size where the provider reports no duration.' }),
  cost: z.number().meta({ description: 'USD.' }),
  cache_hits: z.number(),
  latency_p50_ms: z.number().nullable().meta({ description: 'Median latency, computed by the log engine (DuckDB: exact; Athena: approx_percentile).' }),
  latency_p95_ms: z.number().nullable(),
};

/** A group's value; null for the requests without one (no model, no such metadata key), so the groups add up to every request. */
const groupKey = z.string().nullable().meta({ description: 'The group\'s value; null for the requests without one (no model, no such metadata key), so the groups add up to every request.' });

export const analyticsRowSchema = z.object({ key: groupKey, ...figures }).meta({ id: 'AnalyticsRow' });
export const analyticsPointSchema = z.object({ time: z.string(), key: groupKey, ...figures }).meta({ id: 'AnalyticsPoint' });

export const analyticsSchema = z
  .object({
    object: z.literal('analytics'),
    group_by: z.string(),
    from: z.string(),
    to: z.string(),
    interval: z.enum(['hour', 'day']),
    rows: z.array(analyticsRowSchema),
    series: z.array(analyticsPointSchema).meta({ description: 'One point per interval bucket and key, oldest first.' }),
  })
  .meta({ id: 'Analytics' });

export type AnalyticsRow = z.infer<typeof analyticsRowSchema>;
export type AnalyticsPoint = z.infer<typeof analyticsPointSchema>;
export type Analytics = z.infer<typeof analyticsSchema>;
