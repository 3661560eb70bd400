import type { ProviderAdapter, TargetSettings } from '../providers/types.js';
import type { AttemptRecord, AttemptSuccess, UsageReport } from './attempt-types.js';
import type { GatewayContext } from './context.js';
import { parseNativeBody } from './provider-body.js';
import { relayedUpstreamHeaders } from './relayed-headers.js';
import { openStreamRelay } from './stream-relay.js';
import { readUpstreamBody } from './upstream-client.js';
import { MAX_RESPONSE_BYTES, sendAccepted } from './attempt-upstream.js';
import type { CacheDecision } from './cache/response-cache.js';
import type { OpenAIBody, StreamEvent } from '../providers/types.js';
import { isRecord } from '../providers/common/json-guards.js';
import type { DialectCodec, NativeAnswerCollector, NativeStreamTranslator } from '../dialects/types.js';
import { knownRequestCredentials } from '../observability/request-credentials.js';
import { merged } from '../merged.js';
import { rememberParsedAnswer } from '../observability/serialised-body.js';

export interface NativeAttempt {
  context: GatewayContext;
  codec: DialectCodec;
  adapter: ProviderAdapter;
  target: TargetSettings;
  forwardHeaders: Record<string, string>;
  /** The client's body (dialect) after override params and metadata user. */
  body: OpenAIBody;
  stream: boolean;
  timeoutMs: number;
  record: AttemptRecord;
  onUsage: (report: UsageReport) => void;
  /** The response cache's decision for this target (its native key): a hit is replayed, a miss stored. */
  cache: CacheDecision;
}

/**
 * One try of a target that speaks the inbound dialect: the body goes as it is and the answer comes back as it
 * is (bytes for JSON, event by event for streams), with the same timeouts, error normalisation, first-event
 * commit and usage metering as a translated try. Answers are cached like translated ones, in the dialect's own
 * shape: a hit is served as JSON or replayed as the dialect's stream, whichever the request asks for.
 */
export async function attemptNatively(attempt: NativeAttempt): Promise<AttemptSuccess> {
  const { context, codec, adapter, body, stream, record, onUsage, cache } = attempt;
  record.cache_status = cache.status;
  if (cache.hit) return servedFromCache(attempt, cache.hit);
  const nativeInput = { provider: adapter.slug, body, stream, target: attempt.target, forwardHeaders: attempt.forwardHeaders, requestHeaders: context.request.headers };
  const call = await codec.buildNativeCall(nativeInput);
  const upstream = await sendAccepted(context, adapter, call, attempt.timeoutMs);
  const success = { provider: adapter.slug, model: String(body.model), headers: relayedUpstreamHeaders(upstream.headers), cacheStatus: cache.status, dialectNative: true };
  if (stream) {
    const translator = codec.createNativeStreamTranslator(nativeInput);
    // A tee: the events are folded into the whole answer as they pass, stored only after a clean end.
    const collector = cache.store ? codec.createNativeAnswerCollector() : undefined;
    const relayed = await openStreamRelay(upstream, collector ? collecting(translator, collector) : translator, {
      clientWantsUsage: true,
      credentials: knownRequestCredentials(context.request),
      onEnd: ({ ok, errorCode }) => {
        const answer = ok ? collector?.result() : undefined;
        if (answer) cache.store?.(answer);
        onUsage({ usage: translator.canonicalUsage(), streamErrorCode: ok ? undefined : errorCode });
      },
    });
    record.status = 200;
    return merged(success, { contentType: 'text/event-stream; charset=utf-8', body: relayed });
  }
  const raw = await readUpstreamBody(upstream.body, MAX_RESPONSE_BYTES);
  // A 2xx that is not the dialect's answer is a failure that retries and falls back (provider-body.ts).
  const parsed = parseNativeBody(raw, context.endpoint);
  record.status = 200;
  onUsage({ usage: codec.nativeUsage(parsed) });
  if (codec.cacheableNativeAnswer?.(parsed) !== false) cache.store?.(parsed);
  // The after-path redacts the stored answer from this value instead of parsing the bytes again.
  rememberParsedAnswer(raw, parsed);
  return merged(success, { contentType: 'application/json', body: raw });
}

/** A cached native answer: its usage is reported as a cache hit (not charged), the body served in the dialect. */
function servedFromCache(attempt: NativeAttempt, hit: Record<string, unknown>): AttemptSuccess {
  const { codec, body, stream, record, onUsage, cache } = attempt;
  record.status = 200;
  onUsage({ usage: codec.nativeUsage(hit), cacheHit: true });
  const success = { provider: attempt.adapter.slug, model: String(body.model), headers: {}, cacheStatus: cache.status, dialectNative: true };
  if (!stream) return merged(success, { contentType: 'application/json', body: JSON.stringify(hit) });
  async function* replay(): AsyncGenerator<Uint8Array> {
    yield* codec.replayNativeAnswer(hit);
  }
  return merged(success, { contentType: 'text/event-stream; charset=utf-8', body: replay() });
}

/** The translator with every relayed event also handed (parsed) to the collector. */
function collecting(translator: NativeStreamTranslator, collector: NativeAnswerCollector): NativeStreamTranslator {
  const see = (events: StreamEvent[]): StreamEvent[] => {
    for (const event of events) {
      if (event.type !== 'chunk' || event.raw === undefined) continue;
      try {
        const parsed: unknown = JSON.parse(event.raw);
        if (isRecord(parsed)) collector.add(parsed);
      } catch {
        // Not JSON: the translator already ended the stream with an error, and nothing will be stored.
      }
    }
    return events;
  };
  return { push: (bytes) => see(translator.push(bytes)), end: () => see(translator.end()), canonicalUsage: () => translator.canonicalUsage() };
}
