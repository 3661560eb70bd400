import * as z from 'zod';

/**
 * The model catalog (/v1/model-catalog) and OpenAI's model list (/v1/models). Documentation schemas: the routes
 * read their few query parameters by hand (see routes.ts).
 */

export const catalogPricingSchema = z
  .object({
    currency: z.literal('USD'),
    unit: z.literal('per_million_tokens'),
    input: z.number(),
    output: z.number(),
    cached_input: z.number().meta({ description: 'Prompt tokens read from the provider’s cache.' }),
    cache_write: z.number().meta({ description: 'Prompt tokens written to the provider’s cache.' }),
    source: z.string().meta({ description: 'Which source of the pricing chain priced it: proxy, log-store, local or default (shipped data).' }),
    media: z
      .object({
        per_image: z.record(z.string(), z.number()).optional().meta({ description: 'USD per image by "<quality> <size>", "<size>", "<quality>", then "default".' }),
        per_million_characters: z.number().optional().meta({ description: 'USD per million characters of speech input.' }),
        per_audio_minute: z.number().optional().meta({ description: 'USD per minute of audio, pro-rated to the second.' }),
      })
      .optional()
      .meta({ description: 'Media models: the per-unit prices gw charges when an answer reports no tokens (docs/model-catalog.md#media-prices).' }),
  })
  .meta({ id: 'CatalogPricing' });

export const catalogModelSchema = z
  .object({
    object: z.literal('catalog_model'),
    id: z.string().meta({ description: '<provider>/<model>: the catalog path of the entry.' }),
    provider: z.string(),
    model: z.string().meta({ description: 'The model id as the provider names it (send it as `model`).' }),
    name: z.string(),
    pricing: catalogPricingSchema.nullable().meta({ description: 'null when no source prices the model.' }),
    capabilities: z.record(z.string(), z.unknown()).meta({ description: 'The capability document’s entry (context_window, max_output_tokens, …).' }),
  })
  .meta({ id: 'CatalogModel' });

export const catalogListSchema = z
  .object({ object: z.literal('list'), data: z.array(catalogModelSchema), total: z.int() })
  .meta({ id: 'CatalogModelList' });

export const catalogQuerySchema = z.object({
  provider: z.string().optional().meta({ description: 'Only this provider’s models (slug or alias).' }),
  capability: z
    .string()
    .optional()
    .meta({ description: 'Only models with this capability: a capability field that is true or positive (vision, tools, context_window …), or a name in its capabilities/features/modalities list.' }),
});

export const catalogPathSchema = z.object({
  provider: z.string().meta({ description: 'Provider slug or alias.' }),
  model: z.string().meta({ description: 'The model id; ids with `/` may be sent as further path segments or as %2F, dots as they are.' }),
});

/** OpenAI's model object, what every SDK's `models.list()` and `models.retrieve()` parse. */
export const openAIModelSchema = z
  .object({
    id: z.string(),
    object: z.literal('model'),
    created: z.int().meta({ description: 'Unix seconds: the date of the catalog data gw ships (its newest price change in effect); the data has no release date per model.' }),
    owned_by: z.string().meta({ description: 'The gw provider slug that serves the model.' }),
  })
  .meta({ id: 'Model' });

export const openAIModelListSchema = z.object({ object: z.literal('list'), data: z.array(openAIModelSchema) }).meta({ id: 'ModelList' });

export const modelsQuerySchema = z.object({ provider: z.string().optional().meta({ description: 'Only this provider’s models (slug or alias).' }) });

export const modelIdPathSchema = z.object({ model: z.string().meta({ description: 'The model id (or <provider>/<model> to pick the provider).' }) });

/** GET /health (served by the gateway function; documented here with the other keyless-friendly reads). */
export const healthSchema = z
  .object({
    status: z.enum(['ok', 'unavailable']),
    version: z.string(),
    checks: z.object({ store: z.object({ status: z.enum(['ok', 'failed']), latency_ms: z.number() }) }).optional().meta({ description: 'Only with ?deep=true.' }),
  })
  .meta({ id: 'Health' });

export const healthQuerySchema = z.object({ deep: z.enum(['true', 'false']).optional().meta({ description: 'true: also read the store (needs an organisation admin key).' }) });

export type CatalogModel = z.infer<typeof catalogModelSchema>;
export type OpenAIModel = z.infer<typeof openAIModelSchema>;
