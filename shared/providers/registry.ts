import { anthropicAdapter } from './anthropic/adapter.js';
import { azureOpenAIAdapter } from './azure-openai/adapter.js';
import { bedrockAdapter } from './bedrock/adapter.js';
import { googleAdapter } from './google/adapter.js';
import { openAICompatibleAdapter } from './openai-compatible/adapter.js';
import { OPENAI_COMPATIBLE_PROVIDERS } from './openai-compatible/catalog.js';
import type { ProviderAdapter } from './types.js';
import { vertexAIAdapter } from './vertex-ai/adapter.js';

/**
 * The single list of providers. Header validation, config validation and lookup all read this list, so a
 * slug is valid exactly when an adapter exists for it.
 */
const ADAPTERS: readonly ProviderAdapter[] = [
  ...OPENAI_COMPATIBLE_PROVIDERS.map(openAICompatibleAdapter),
  anthropicAdapter,
  azureOpenAIAdapter,
  bedrockAdapter,
  googleAdapter,
  vertexAIAdapter,
].map(reportingDrops);

/**
 * Every adapter reports the parameters it dropped under `x-gw-drop-unsupported-params` on the call it builds
 * (`UpstreamCall.dropped`), so the gateway can name them in `x-gw-dropped-params`.
 */
function reportingDrops(adapter: ProviderAdapter): ProviderAdapter {
  return {
    ...adapter,
    async buildCall(input) {
      const droppedParams: string[] = [];
      const call = await adapter.buildCall({ ...input, droppedParams });
      return droppedParams.length > 0 ? { ...call, dropped: droppedParams } : call;
    },
  };
}

const BY_SLUG = new Map<string, ProviderAdapter>();
for (const adapter of ADAPTERS) {
  for (const name of [adapter.slug, ...adapter.aliases]) {
    if (BY_SLUG.has(name)) throw new Error(`Provider slug '${name}' is registered twice`);
    BY_SLUG.set(name, adapter);
  }
}

export function findProvider(slugOrAlias: string): ProviderAdapter | undefined {
  return BY_SLUG.get(slugOrAlias.trim().toLowerCase());
}

/** Canonical slugs, for error messages and docs. */
export const PROVIDER_SLUGS: readonly string[] = ADAPTERS.map((adapter) => adapter.slug);
