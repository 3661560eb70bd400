import { settings } from '../../settings.js';
import { ModelConfigChain } from './model-configs.js';
import { LocalFileConfigSource, LogStoreConfigSource, ProxyConfigSource, type ModelConfigSource } from './sources.js';
import { tokenCounts } from './usage-tokens.js';
import { roundUsd } from './cost.js';
import { webSearchFee } from './web-search-fees.js';
import { mediaCost } from './media-cost.js';
import { mediaUnits, type MediaUnits } from './media-units.js';

export { ModelConfigChain, MODEL_CONFIG_CACHE_TTL_MS } from './model-configs.js';
export type { ModelPrice } from './cost.js';
export { tokenCounts, type TokenCounts } from './usage-tokens.js';
export { estimatedMediaUsage, mediaUnits, withMediaUnits, type MediaUnits } from './media-units.js';

let chain: ModelConfigChain | undefined;

/** The process's model-config chain, built from the MODEL_CONFIGS_* settings on first use. */
export function modelConfigs(): ModelConfigChain {
  chain ??= new ModelConfigChain({ sources: configuredSources() });
  return chain;
}

function configuredSources(): ModelConfigSource[] {
  const current = settings();
  const sources: ModelConfigSource[] = [];
  if (current.MODEL_CONFIGS_PROXY_FETCH_ENABLED && current.MODEL_CONFIGS_PROXY_URL) sources.push(new ProxyConfigSource(current.MODEL_CONFIGS_PROXY_URL));
  const logStore = { pricing: current.MODEL_CONFIGS_PRICING_LOG_STORE_PATH, capabilities: current.MODEL_CONFIGS_CAPABILITIES_LOG_STORE_PATH };
  if (logStore.pricing || logStore.capabilities) sources.push(new LogStoreConfigSource(logStore));
  const local = { pricing: current.MODEL_CONFIGS_PRICING_LOCAL_PATH, capabilities: current.MODEL_CONFIGS_CAPABILITIES_LOCAL_PATH };
  if (local.pricing || local.capabilities) sources.push(new LocalFileConfigSource(local));
  return sources;
}

/**
 * The USD cost of a response: 0 without tokens, null when the model has no price anywhere (logged as
 * unknown, never as 0). Searches the provider ran on its side are added at their per-search fee.
 */
export async function costOfUsage(provider: string | undefined, model: string | undefined, usage: Record<string, unknown> | undefined): Promise<number | null> {
  const tokens = tokenCounts(usage);
  const media = tokens && tokens.total > 0 ? undefined : mediaUnits(usage);
  if (media) return mediaUsageCost(provider, model, media);
  if (!tokens || tokens.total === 0) return tokens ? 0 : null;
  if (!provider || !model) return null;
  const price = await modelConfigs().pricing(provider, model);
  return price ? roundUsd(price.cost(tokens) + webSearchFee(provider, model, usage!)) : null;
}

/** Usage without tokens (images, characters, audio seconds) at the model's per-unit prices; null when it has none. */
async function mediaUsageCost(provider: string | undefined, model: string | undefined, units: MediaUnits): Promise<number | null> {
  if (!provider || !model) return null;
  const rates = (await modelConfigs().pricing(provider, model))?.media;
  const cost = rates ? mediaCost(rates, units) : null;
  return cost === null ? null : roundUsd(cost);
}

export { firstUnpricedCharge, UNPRICED_MEDIA_RATES, UNPRICED_MODEL_RATES, unpricedCost, unpricedMediaCost } from './unpriced.js';
export { decimalTextToUnits, subtractUsd, sumUsd, unitsToUsd, usdToUnits } from './usd.js';
