import { GatewayError } from '../../http/errors.js';
import type { OpenAIBody } from '../../providers/types.js';
import { contentText } from '../../providers/common/content.js';
import type { OpenAIMessage } from '../../providers/common/openai-types.js';
import type { CacheConfig } from '../config/schema.js';
import { credentialOfConfig, type LeafSettings } from '../config/target-tree.js';
import type { NeutralRequest } from '../../http/types.js';
import type { RequestOptions } from '../request-options.js';
import { resolveLeafTarget } from '../resolve-target.js';
import { readUpstreamBody, sendUpstream } from '../upstream-client.js';
import { providerErrorFrom } from '../upstream-errors.js';
import { DEFAULT_EMBEDDING_MODELS } from './embedding-defaults.js';
import { merged } from '../../merged.js';

export const DEFAULT_SIMILARITY_THRESHOLD = 0.95;
const EMBEDDING_TIMEOUT_MS = 10_000;

/** The conversation a semantic lookup compares: every message but the system prompt. */
export function conversationText(body: OpenAIBody): string {
  const messages = (body.messages as OpenAIMessage[] | undefined) ?? [];
  return messages
    .filter((message) => message.role !== 'system' && message.role !== 'developer')
    .map((message) => `${message.role}: ${contentText(message.content)}`)
    .join('\n');
}

/**
 * The embeddings target: the leaf's own provider and credentials with its standard embeddings model, unless
 * `cache.embeddings` names another provider, model, key, virtual key or host.
 */
export function embeddingsLeaf(leaf: LeafSettings, provider: string, cache: CacheConfig, path: string): LeafSettings {
  const chosen = cache.embeddings ?? {};
  const switchesProvider = chosen.provider !== undefined && chosen.provider !== provider;
  const source = leaf.configSource;
  const base: LeafSettings = switchesProvider || chosen.virtual_key ? { azure: {}, vertex: {}, aws: {}, overrideParams: {}, configSource: source } : merged(leaf, { overrideParams: {} });
  const embeddingProvider = chosen.provider ?? provider;
  const model = chosen.model ?? DEFAULT_EMBEDDING_MODELS[embeddingProvider];
  if (!model && !chosen.virtual_key) {
    throw new GatewayError(400, 'AB0117', `Invalid config at ${path}.cache.embeddings: the semantic cache needs an embeddings model and provider '${embeddingProvider}' has no standard one; set cache.embeddings.model (and provider if needed)`, { param: `${path}.cache.embeddings` });
  }
  return merged(base, {
    provider: chosen.virtual_key ? undefined : embeddingProvider,
    apiKey: chosen.api_key ?? base.apiKey,
    virtualKey: chosen.virtual_key ?? (switchesProvider ? undefined : base.virtualKey),
    customHost: chosen.custom_host ?? base.customHost,
    // The embeddings call obeys the stored-credential rule like the leaf it serves (stored-credential-host.ts).
    customHostSetBy: chosen.custom_host === undefined ? base.customHostSetBy : source?.resource,
    storedCredential: chosen.api_key === undefined ? base.storedCredential : credentialOfConfig(source),
    overrideParams: model ? { model } : {},
    retry: undefined,
    cache: undefined,
  });
}

/** Calls the embeddings target and returns the unit-length vector of `text`. */
export async function embed(leaf: LeafSettings, text: string, options: RequestOptions, workspaceId: string, request: Pick<NeutralRequest, 'headers'>): Promise<Float32Array> {
  const { adapter, target, forwardHeaders } = await resolveLeafTarget(leaf, merged(options, { customHost: undefined }), 'embeddings', request, workspaceId);
  const input = { endpoint: 'embeddings' as const, body: merged(leaf.overrideParams, { input: text }), stream: false, target, forwardHeaders };
  const upstream = await sendUpstream(await adapter.buildCall(input), { timeoutMs: EMBEDDING_TIMEOUT_MS, idleTimeoutMs: EMBEDDING_TIMEOUT_MS });
  if (upstream.status < 200 || upstream.status >= 300) throw await providerErrorFrom(adapter, upstream);
  const raw = JSON.parse((await readUpstreamBody(upstream.body, 16 * 1024 * 1024)).toString('utf8')) as unknown;
  const body = (adapter.toOpenAIResponse ? adapter.toOpenAIResponse(input, raw) : raw) as { data?: Array<{ embedding?: number[] }> };
  const embedding = body.data?.[0]?.embedding;
  if (!Array.isArray(embedding) || embedding.length === 0) throw new Error('the embeddings answer has no vector');
  return normalise(Float32Array.from(embedding));
}

export function normalise(vector: Float32Array): Float32Array {
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm) || 1;
  return vector.map((value) => value / norm);
}
