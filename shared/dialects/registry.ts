import { loadOnce } from '../cache/load-once.js';
import type { Endpoint } from '../providers/types.js';
import type { DialectCodec } from './types.js';

/**
 * The inbound dialects' codecs, each imported on its dialect's first request: the Responses and Messages
 * translations (and their request schemas) are ~40 KiB a cold start serving chat completions never needs
 * (issue #23). Which endpoints are dialects is known without loading anything.
 */
const CODEC_LOADERS: Partial<Record<Endpoint, () => Promise<DialectCodec>>> = {
  responses: loadOnce(async () => (await import('./responses/codec.js')).responsesCodec),
  messages: loadOnce(async () => (await import('./anthropic-messages/codec.js')).anthropicMessagesCodec),
};

/** Whether `endpoint` is an inbound dialect (translated to and from chat) rather than a canonical endpoint. */
export function isDialectEndpoint(endpoint: Endpoint): boolean {
  return CODEC_LOADERS[endpoint] !== undefined;
}

/** The codec of an inbound dialect, or undefined for the canonical endpoints (chat, completions, embeddings). */
export function loadDialectCodec(endpoint: Endpoint): Promise<DialectCodec> | undefined {
  return CODEC_LOADERS[endpoint]?.();
}

/** The endpoint a provider adapter serves for this inbound endpoint: dialects are translated to chat. */
export function canonicalEndpoint(endpoint: Endpoint): Endpoint {
  return isDialectEndpoint(endpoint) ? 'chat' : endpoint;
}
