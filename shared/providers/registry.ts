import { loadOnce } from '../cache/load-once.js';
import { azureOpenAIAdapter } from './azure-openai/adapter.js';
import { openAICompatibleAdapter } from './openai-compatible/adapter.js';
import { OPENAI_COMPATIBLE_PROVIDERS } from './openai-compatible/catalog.js';
import type { AdapterInput, Endpoint, ProviderAdapter } from './types.js';
import { merged } from '../merged.js';

/**
 * A registered provider: what validation needs (its names and endpoints) at once, its adapter through `load`.
 * The OpenAI-compatible providers and Azure (a few KiB, the most used) are loaded with the registry; Anthropic,
 * Bedrock, Google and Vertex AI (~85 KiB of the gateway's bundle between them) are imported on their first
 * request, so a cold start that serves an OpenAI-compatible call never loads them (issue #23).
 */
export interface ProviderEntry {
  readonly slug: string;
  readonly aliases: readonly string[];
  readonly endpoints: readonly Endpoint[];
  /** The adapter; the first call of a lazily loaded one imports its module, later calls get the same adapter. */
  load(): Promise<ProviderAdapter>;
}

type ProviderNames = Pick<ProviderEntry, 'slug' | 'aliases' | 'endpoints'>;

/**
 * The single list of providers. Header validation, config validation and lookup all read this list, so a
 * slug is valid exactly when an adapter exists for it.
 */
const ENTRIES: readonly ProviderEntry[] = [
  ...OPENAI_COMPATIBLE_PROVIDERS.map((provider) => loaded(openAICompatibleAdapter(provider))),
  onFirstUse({ slug: 'anthropic', aliases: [], endpoints: ['chat'] }, async () => (await import('./anthropic/adapter.js')).anthropicAdapter),
  loaded(azureOpenAIAdapter),
  onFirstUse({ slug: 'bedrock', aliases: ['cloudc'], endpoints: ['chat', 'embeddings'] }, async () => (await import('./bedrock/adapter.js')).bedrockAdapter),
  onFirstUse({ slug: 'google', aliases: ['gemini'], endpoints: ['chat', 'embeddings'] }, async () => (await import('./google/adapter.js')).googleAdapter),
  onFirstUse({ slug: 'cohere', aliases: [], endpoints: ['chat', 'embeddings'] }, async () => (await import('./cohere/adapter.js')).cohereAdapter),
  onFirstUse({ slug: 'voyage-ai', aliases: ['voyage'], endpoints: ['embeddings'] }, async () => (await import('./voyage-ai/adapter.js')).voyageAIAdapter),
  onFirstUse({ slug: 'jina-ai', aliases: ['jina'], endpoints: ['embeddings'] }, async () => (await import('./jina-ai/adapter.js')).jinaAIAdapter),
  onFirstUse({ slug: 'watsonx', aliases: ['ibm-watsonx', 'watsonx-ai'], endpoints: ['chat', 'embeddings'] }, async () => (await import('./watsonx/adapter.js')).watsonxAdapter),
  onFirstUse({ slug: 'stability-ai', aliases: ['stability'], endpoints: [] }, async () => (await import('./stability-ai/adapter.js')).stabilityAIAdapter),
  onFirstUse({ slug: 'elevenlabs', aliases: ['eleven-labs', '11labs'], endpoints: [] }, async () => (await import('./elevenlabs/adapter.js')).elevenLabsAdapter),
  onFirstUse({ slug: 'deepgram', aliases: [], endpoints: [] }, async () => (await import('./deepgram/adapter.js')).deepgramAdapter),
  onFirstUse({ slug: 'assemblyai', aliases: ['assembly-ai'], endpoints: [] }, async () => (await import('./assemblyai/adapter.js')).assemblyAIAdapter),
  onFirstUse({ slug: 'replicate', aliases: [], endpoints: ['chat'] }, async () => (await import('./replicate/adapter.js')).replicateAdapter),
  onFirstUse({ slug: 'vertex-ai', aliases: ['cloudb'], endpoints: ['chat', 'embeddings'] }, async () => (await import('./vertex-ai/adapter.js')).vertexAIAdapter),
];

function loaded(adapter: ProviderAdapter): ProviderEntry {
  const ready = Promise.resolve(reportingDrops(adapter));
  return { slug: adapter.slug, aliases: adapter.aliases, endpoints: adapter.endpoints, load: () => ready };
}

/**
 * An entry whose adapter is imported on first use. The names are written here so that validating a slug loads
 * nothing; the loaded adapter must carry the same ones (checked on load, and for every provider by the registry
 * test), so the two cannot drift apart. A failed import is tried again on the next request.
 */
export function onFirstUse(names: ProviderNames, importAdapter: () => Promise<ProviderAdapter>): ProviderEntry {
  const load = loadOnce(async () => {
    const adapter = await importAdapter();
    if (adapter.slug !== names.slug || adapter.aliases.join() !== names.aliases.join() || adapter.endpoints.join() !== names.endpoints.join()) {
      throw new Error(`the registry entry of provider '${names.slug}' does not match its adapter (${adapter.slug}: ${adapter.aliases.join()} / ${adapter.endpoints.join()})`);
    }
    return reportingDrops(adapter);
  });
  return merged(names, { load });
}

/**
 * Every adapter reports the parameters it dropped under `x-gw-drop-unsupported-params` on the call it builds
 * (`UpstreamCall.dropped`), so the gateway can name them in `x-gw-dropped-params`.
 */
function reportingDrops(adapter: ProviderAdapter): ProviderAdapter {
  return merged<ProviderAdapter, Pick<ProviderAdapter, 'buildCall'>>(adapter, {
    async buildCall(input: AdapterInput) {
      const droppedParams: string[] = [];
      const call = await adapter.buildCall(merged(input, { droppedParams }));
      return droppedParams.length > 0 ? merged(call, { dropped: droppedParams }) : call;
    },
  });
}

const BY_SLUG = new Map<string, ProviderEntry>();
for (const entry of ENTRIES) {
  for (const name of [entry.slug, ...entry.aliases]) {
    if (BY_SLUG.has(name)) throw new Error(`Provider slug '${name}' is registered twice`);
    BY_SLUG.set(name, entry);
  }
}

export function findProvider(slugOrAlias: string): ProviderEntry | undefined {
  return BY_SLUG.get(slugOrAlias.trim().toLowerCase());
}

/** Every registered provider, in registry order. */
export function providerEntries(): readonly ProviderEntry[] {
  return ENTRIES;
}

/** Canonical slugs, for error messages and docs. */
export const PROVIDER_SLUGS: readonly string[] = ENTRIES.map((entry) => entry.slug);
