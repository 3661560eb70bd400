import type { GatewayError } from '../http/errors.js';
import type { AdapterInput, OpenAIBody, StreamTranslator, TargetSettings, UpstreamCall } from '../providers/types.js';

/** How a translation treats a field the target has no equivalent for (shared/providers/common/unsupported-params.ts). */
export type UnsupportedParamRule = Pick<AdapterInput, 'dropUnsupportedParams' | 'droppedParams'>;

/** The inbound API dialects besides OpenAI Chat Completions (which is the canonical form itself). */
export type DialectName = 'responses' | 'messages';

/** What a native (pass-through) call needs to know about its target. */
export interface NativeCallInput {
  provider: string;
  /** The client's body in its own dialect, after gw's edits (override params, metadata user). */
  body: OpenAIBody;
  stream: boolean;
  target: TargetSettings;
  forwardHeaders: Record<string, string>;
  /** The client's request headers (lower-cased), for dialect headers such as `anthropic-version`. */
  requestHeaders: Record<string, string>;
}

/** What a relayed native stream had sent when it failed. */
export interface RelayedNativeStream {
  lastSequence?: number;
  response?: Record<string, unknown>;
}

/** A native stream seen through gw: events relayed unchanged, usage read on the way (canonical shape). */
export interface NativeStreamTranslator extends StreamTranslator {
  canonicalUsage(): Record<string, unknown> | undefined;
}

/** Folds a native stream's events (each one parsed) into the answer a JSON call would have had, for the cache. */
export interface NativeAnswerCollector {
  add(event: Record<string, unknown>): void;
  /** The whole answer once the stream completed; undefined for an incomplete one. */
  result(): Record<string, unknown> | undefined;
}

/** Turns a stream of canonical chat chunks into a dialect's SSE events, one call per canonical event. */
export interface DialectStreamEncoder {
  chunk(chunk: Record<string, unknown>): Uint8Array[];
  /** The canonical stream ended cleanly (`[DONE]`). */
  done(): Uint8Array[];
  /** The stream failed after it was committed; `error` is gw's error body (`{error:{…}}`). */
  error(error: Record<string, unknown>): Uint8Array[];
}

/**
 * One inbound dialect: a codec between the client's API and the canonical chat form, plus the native call for
 * the providers that speak the dialect themselves. Routing, retries, cache, policies and logs stay one pipeline.
 */
export interface DialectCodec {
  readonly name: DialectName;
  /** Checks the client's body when the request arrives (400 for anything malformed). */
  validate(body: OpenAIBody): void;
  /** True when the target speaks this dialect, so the body goes through natively (may depend on the model). */
  speaksNatively(provider: string, target: TargetSettings, body: OpenAIBody): boolean;
  /**
   * The client's body → the canonical chat body the provider adapters consume. `provider` names the target; a
   * field with no canonical equivalent is refused or, under `rule.dropUnsupportedParams`, dropped and recorded.
   */
  toCanonical(body: OpenAIBody, provider: string, rule?: UnsupportedParamRule): OpenAIBody;
  /** A canonical `chat.completion` → the dialect's response object. */
  fromCanonical(completion: Record<string, unknown>, body: OpenAIBody): Record<string, unknown>;
  createStreamEncoder(body: OpenAIBody): DialectStreamEncoder;
  buildNativeCall(input: NativeCallInput): UpstreamCall | Promise<UpstreamCall>;
  createNativeStreamTranslator(input: NativeCallInput): NativeStreamTranslator;
  /** Collects a native stream into its whole answer, so a streamed native call can be cached. */
  createNativeAnswerCollector(): NativeAnswerCollector;
  /** Whether a native JSON answer may be cached (default: every valid answer). */
  cacheableNativeAnswer?(answer: Record<string, unknown>): boolean;
  /** A cached native answer replayed as the dialect's stream (data-only events; the edge names them by `type`). */
  replayNativeAnswer(stored: Record<string, unknown>): Iterable<Uint8Array>;
  /** The canonical usage of a native (dialect-shaped) response body. */
  nativeUsage(response: Record<string, unknown>): Record<string, unknown> | undefined;
  /** Restores what gw changed on the way to a native target (e.g. `store`, `previous_response_id`) in its answer. */
  patchNativeAnswer?(answer: Record<string, unknown>, body: OpenAIBody): Record<string, unknown>;
  /**
   * A committed native stream failed: gw's error body (`{error:{…}}`) → the dialect's closing events. `relayed` is
   * what the client saw so far: the last `sequence_number` and the Response the stream started (Responses API).
   */
  nativeStreamError(error: Record<string, unknown>, relayed: RelayedNativeStream): Uint8Array[];
  /** A failure in this dialect's error shape (the response body), e.g. Anthropic's `{type:"error",…}`. */
  errorBody?(error: GatewayError): Record<string, unknown>;
}
