import * as z from 'zod';

/** The schemas of the model-config documents (config-documents.ts describes them). */
const perMillion = z.number().nonnegative();

export const modelRatesSchema = z.object({
  input_per_mtok: perMillion,
  output_per_mtok: perMillion,
  /** Prompt tokens read from the provider's cache; the input price when absent. */
  cached_input_per_mtok: perMillion.optional(),
  /** Prompt tokens written to the provider's cache; the input price when absent. */
  cache_write_per_mtok: perMillion.optional(),
  /** Reasoning tokens; the output price when absent (most providers bill them as output). */
  reasoning_per_mtok: perMillion.optional(),
  /** Media models (media-prices.ts): USD per image by `"<quality> <size>"`, `"<size>"`, `"<quality>"` or `"default"`. */
  per_image: z.record(z.string(), perMillion).optional(),
  /** USD per million characters of speech input. */
  per_million_characters: perMillion.optional(),
  /** USD per minute of transcribed audio, pro-rated to the second. */
  per_audio_minute: perMillion.optional(),
});

export const pricingDocumentSchema = z.object({ models: z.record(z.string(), modelRatesSchema) });

export const modelCapabilitiesSchema = z.looseObject({
  context_window: z.number().int().positive().optional(),
  max_output_tokens: z.number().int().positive().optional(),
});

export const capabilitiesDocumentSchema = z.object({ models: z.record(z.string(), modelCapabilitiesSchema) });

export type ModelRates = z.infer<typeof modelRatesSchema>;
export type ModelCapabilities = z.infer<typeof modelCapabilitiesSchema>;
export type PricingDocument = z.infer<typeof pricingDocumentSchema>;
export type CapabilitiesDocument = z.infer<typeof capabilitiesDocumentSchema>;

export const DOCUMENT_SCHEMAS = { pricing: pricingDocumentSchema, capabilities: capabilitiesDocumentSchema } as const;

