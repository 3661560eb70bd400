/**
 * gw's model-config documents, one per provider and kind, the same whichever source serves them (proxy, log
 * store, local files). Prices are USD per million tokens.
 *
 * pricing:      {"models": {"gpt-4o": {"input_per_mtok": 2.5, "output_per_mtok": 10, "cached_input_per_mtok": 1.25}}}
 * capabilities: {"models": {"gpt-4o": {"context_window": 128000, "max_output_tokens": 16384}}}
 *
 * Their schemas (config-document-schemas.ts) are loaded by the first document read from a source, so the price
 * lookup every request makes does not put zod into a cold start.
 */
export type { CapabilitiesDocument, ModelCapabilities, ModelRates, PricingDocument } from './config-document-schemas.js';
import type { CapabilitiesDocument, PricingDocument } from './config-document-schemas.js';

/** `pricing` is served at `/pricing/<provider>`, `capabilities` at `/general/<provider>` (the spec's names). */
export type ConfigKind = 'pricing' | 'capabilities';

export interface ConfigDocuments {
  pricing: PricingDocument;
  capabilities: CapabilitiesDocument;
}

/** A model's entry: the exact name first, then ignoring case. */
export function entryFor<T>(models: Record<string, T>, model: string): T | undefined {
  if (Object.hasOwn(models, model)) return models[model];
  const lower = model.toLowerCase();
  const key = Object.keys(models).find((name) => name.toLowerCase() === lower);
  return key === undefined ? undefined : models[key];
}
