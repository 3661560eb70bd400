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
}

/** What a provider offers of the pass-through endpoints, and how one call to it looks (URL and credential). */
export interface PassthroughSupport {
  endpoints: readonly PassthroughEndpoint[];
  buildCall(input: PassthroughInput): UpstreamCall;
}
