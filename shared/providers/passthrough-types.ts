import type { TargetSettings, UpstreamCall } from './types.js';

/**
 * The OpenAI endpoints gw relays without translating (docs/passthrough.md). Named after their path under /v1,
 * which is also the `endpoint` of their log records.
 */
export const PASSTHROUGH_ENDPOINTS = [
  'images/generations',
  'images/edits',
  'audio/speech',
  'audio/transcriptions',
  'audio/translations',
  'moderations',
  'rerank',
] as const;

export type PassthroughEndpoint = (typeof PASSTHROUGH_ENDPOINTS)[number];

/** The body of one pass-through call: the client's bytes (JSON or multipart with its boundary) as they go out. */
export interface PassthroughInput {
  endpoint: PassthroughEndpoint;
  body: Uint8Array;
  /** The request's content-type, boundary included for multipart. */
  contentType: string;
  target: TargetSettings;
  /** Headers the caller asked gw to pass on unprocessed (already filtered). */
  forwardHeaders: Record<string, string>;
  /** The fields gw read of the body (JSON, or the form's text fields), after override params. */
  fields?: Record<string, unknown>;
}

/** A provider's 2xx answer, as read whole, for a provider that answers in its own shape. */
export interface PassthroughAnswer {
  endpoint: PassthroughEndpoint;
  body: Uint8Array;
  contentType: string;
  /** The request's fields (`response_format`, `model`, …): how the client wants the answer. */
  fields: Record<string, unknown>;
}

/** What a provider offers of the pass-through endpoints, and how one call to it looks (URL and credential). */
export interface PassthroughSupport {
  endpoints: readonly PassthroughEndpoint[];
  /** gw translates the body or the answer (a provider with its own API) rather than relaying OpenAI's: ✓ in docs. */
  translates?: boolean;
  /**
   * Optional async step before `buildCall`, for providers that reshape the body (a file taken out of the form, a
   * JSON body sent as a form): returns the input to build from.
   */
  prepare?(input: PassthroughInput): Promise<PassthroughInput>;
  buildCall(input: PassthroughInput): UpstreamCall;
  /**
   * For providers with their own API (Stability AI, Deepgram, Voyage's rerank): the answer in OpenAI's (or gw's
   * rerank) shape, with the content-type it now has. Absent: the provider's bytes are relayed as they are.
   */
  translateAnswer?(answer: PassthroughAnswer): { body: string | Uint8Array; contentType: string };
}
