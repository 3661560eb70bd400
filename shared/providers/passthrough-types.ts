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
  /** For a job-style API (`followUp`): the answers before this one, oldest first. */
  previous?: readonly PassthroughAnswer[];
}

/** One more call of a job-style API (upload, create, poll), made `waitMs` after the last answer. */
export interface PassthroughFollowUp {
  call: UpstreamCall;
  waitMs?: number;
  /** What is still running, named in the 504 when the request's deadline comes first (a poll). */
  pending?: string;
}

/** An answer made OpenAI's: its bytes, their content-type, and the usage to meter when the body carries none (text, srt). */
export interface TranslatedAnswer {
  body: string | Uint8Array;
  contentType: string;
  usage?: Record<string, unknown>;
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
  translateAnswer?(answer: PassthroughAnswer): TranslatedAnswer;
  /**
   * For a provider whose API is a job (AssemblyAI: upload the file, create the transcript, poll it): given the 2xx
   * answers so far (oldest first), the next call, or undefined when the last answer is the one to translate. gw
   * reads every answer whole and makes the calls within the request's deadline (a poll still pending then is 504).
   */
  followUp?(answers: readonly PassthroughAnswer[], input: PassthroughInput): PassthroughFollowUp | undefined;
}
