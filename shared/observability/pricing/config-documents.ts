import * as z from 'zod';

/**
 * gw's model-config documents, one per provider and kind, the same whichever source serves them (proxy, log
 * store, local files). Prices are USD per million tokens.
 *
 * pricing:      {"models": {"gpt-4o": {"input_per_mtok": 2.5, "output_per_mtok": 10, "cached_input_per_mtok": 1.25}}}
 * capabilities: {"models": {"gpt-4o": {"context_window": 128000, "max_output_tokens": 16384}}}
 */
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

/** `pricing` is served at `/pricing/<provider>`, `capabilities` at `/general/<provider>` (the spec's names). */
export type ConfigKind = 'pricing' | 'capabilities';

export interface ConfigDocuments {
  pricing: PricingDocument;
  capabilities: CapabilitiesDocument;
}

export const DOCUMENT_SCHEMAS = { pricing: pricingDocumentSchema, capabilities: capabilitiesDocumentSchema } as const;

/** A model's entry: the exact name first, then ignoring case. */
export function entryFor<T>(models: Record<string, T>, model: string): T | undefined {
  if (Object.hasOwn(models, model)) return models[model];
  const lower = model.toLowerCase();
  const key = Object.keys(models).find((name) => name.toLowerCase() === lower);
  return key === undefined ? undefined : models[key];
}
