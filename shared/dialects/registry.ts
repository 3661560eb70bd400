import type { Endpoint } from '../providers/types.js';
import { anthropicMessagesCodec } from './anthropic-messages/codec.js';
import { responsesCodec } from './responses/codec.js';
import type { DialectCodec } from './types.js';

const CODECS: Partial<Record<Endpoint, DialectCodec>> = { responses: responsesCodec, messages: anthropicMessagesCodec };

/** The codec of an inbound dialect, or undefined for the canonical endpoints (chat, completions, embeddings). */
export function dialectCodec(endpoint: Endpoint): DialectCodec | undefined {
  return CODECS[endpoint];
}

/** The endpoint a provider adapter serves for this inbound endpoint: dialects are translated to chat. */
export function canonicalEndpoint(endpoint: Endpoint): Endpoint {
  return CODECS[endpoint] ? 'chat' : endpoint;
}
