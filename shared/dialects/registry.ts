import type { Endpoint } from '../providers/types.js';
import type { DialectCodec } from './types.js';

/**
 * The inbound dialects' codecs, each imported on its dialect's first request: the Responses and Messages
 * translations (and their request schemas) are ~40 KiB a cold start serving chat completions never needs
 * (issue #23). Which endpoints are dialects is known without loading anything.
 */
const CODEC_LOADERS: Partial<Record<Endpoint, () => Promise<DialectCodec>>> = {
  responses: async () => (await import('./responses/codec.js')).responsesCodec,
  messages: async () => (await import('./anthropic-messages/codec.js')).anthropicMessagesCodec,
};

const loading = new Map<Endpoint, Promise<DialectCodec>>();

/** Whether `endpoint` is an inbound dialect (translated to and from chat) rather than a canonical endpoint. */
export function isDialectEndpoint(endpoint: Endpoint): boolean {
  return CODEC_LOADERS[endpoint] !== undefined;
}

/** The codec of an inbound dialect, or undefined for the canonical endpoints (chat, completions, embeddings). */
export function loadDialectCodec(endpoint: Endpoint): Promise<DialectCodec> | undefined {
  const load = CODEC_LOADERS[endpoint];
  if (!load) return undefined;
  let codec = loading.get(endpoint);
  if (!codec) {
    codec = load();
    loading.set(endpoint, codec);
    // A failed import is tried again by the next request rather than remembered.
    codec.catch(() => loading.delete(endpoint));
  }
  return codec;
}

/** The endpoint a provider adapter serves for this inbound endpoint: dialects are translated to chat. */
export function canonicalEndpoint(endpoint: Endpoint): Endpoint {
  return isDialectEndpoint(endpoint) ? 'chat' : endpoint;
}
