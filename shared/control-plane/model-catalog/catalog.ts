import { modelConfigs, type ModelConfigChain, type ModelPrice } from '../../observability/pricing/index.js';
import type { ModelCapabilities } from '../../observability/pricing/config-documents.js';
import { PROVIDER_SLUGS, findProvider } from '../../providers/registry.js';
import type { CatalogModel } from './schemas.js';

const MILLION = 1_000_000;
const NO_TOKENS = { input: 0, output: 0, cachedInput: 0, cacheWrite: 0, reasoning: 0, total: 0 };

/** The gw providers the catalog covers: every registered provider (self-hosted ones list what local files say). */
export function catalogProviders(): string[] {
  return [...PROVIDER_SLUGS].sort();
}

/** A provider slug or alias as the registry knows it, or undefined. */
export function canonicalProvider(value: string): string | undefined {
  return findProvider(value)?.slug;
}

/**
 * Whether a model has a capability: a capability-document field of that name that is `true` (or a positive
 * number, e.g. `context_window`), or that name inside a `capabilities`, `features` or `modalities` list.
 */
export function hasCapability(capabilities: ModelCapabilities, capability: string): boolean {
  const wanted = capability.toLowerCase();
  for (const [field, value] of Object.entries(capabilities)) {
    const name = field.toLowerCase();
    if (name === wanted || name === `supports_${wanted}`) {
      if (value === true || (typeof value === 'number' && value > 0)) return true;
    }
    if ((name === 'capabilities' || name === 'features' || name === 'modalities') && Array.isArray(value)) {
      if (value.some((entry) => typeof entry === 'string' && entry.toLowerCase() === wanted)) return true;
    }
  }
  return false;
}

/**
 * One model as the pricing chain (memory → proxy → log store → local files → shipped data) describes it. Rates
 * are read back from the chain's price by costing a million tokens of each kind, so tiered and per-source
 * prices show exactly what gw charges.
 */
export async function describeModel(provider: string, model: string, chain: ModelConfigChain = modelConfigs()): Promise<CatalogModel | undefined> {
  const [price, capabilities] = await Promise.all([chain.pricing(provider, model), chain.capabilities(provider, model)]);
  if (!price && !capabilities) return undefined;
  const entry: CatalogModel = {
    object: 'catalog_model',
    id: `${provider}/${model}`,
    provider,
    model,
    name: typeof capabilities?.name === 'string' ? capabilities.name : model,
    pricing: price
      ? {
          currency: 'USD',
          unit: 'per_million_tokens',
          input: price.cost({ ...NO_TOKENS, input: MILLION, total: MILLION }),
          output: price.cost({ ...NO_TOKENS, output: MILLION, total: MILLION }),
          cached_input: price.cost({ ...NO_TOKENS, input: MILLION, cachedInput: MILLION, total: MILLION }),
          cache_write: price.cost({ ...NO_TOKENS, input: MILLION, cacheWrite: MILLION, total: MILLION }),
          source: price.source,
          // A media model's per-unit prices: its token rates alone (often 0) would say nothing of what it costs.
          ...(price.media ? { media: definedRates(price.media) } : {}),
        }
      : null,
    capabilities: capabilities ?? {},
  };
  return entry;
}

export interface CatalogFilter {
  providers: readonly string[];
  capability?: string;
}

/** The catalog's models for these providers, sorted by provider then model, filtered by capability. */
export async function catalogModels(filter: CatalogFilter, chain: ModelConfigChain = modelConfigs()): Promise<CatalogModel[]> {
  const perProvider = await Promise.all(
    filter.providers.map(async (provider) => {
      const ids = await chain.modelIds(provider);
      const described = await Promise.all(ids.map((id) => describeModel(provider, id, chain)));
      return described.filter((entry): entry is CatalogModel => entry !== undefined).sort((a, b) => a.model.localeCompare(b.model));
    }),
  );
  const all = perProvider.flat();
  return filter.capability === undefined ? all : all.filter((entry) => hasCapability(entry.capabilities, filter.capability!));
}

/** One model of one provider; the id is matched exactly first, then ignoring case (like the chain does). */
export async function catalogModel(provider: string, model: string, chain: ModelConfigChain = modelConfigs()): Promise<CatalogModel | undefined> {
  const ids = await chain.modelIds(provider);
  const id = ids.find((candidate) => candidate === model) ?? ids.find((candidate) => candidate.toLowerCase() === model.toLowerCase());
  return id === undefined ? undefined : describeModel(provider, id, chain);
}

/** The media rates a price has, without the unset ones (a pricing file may name only some). */
function definedRates(media: NonNullable<ModelPrice['media']>): NonNullable<CatalogModel['pricing']>['media'] {
  return Object.fromEntries(Object.entries(media).filter(([, value]) => value !== undefined));
}
