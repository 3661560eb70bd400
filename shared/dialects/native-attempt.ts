import type { ProviderAdapter, TargetSettings } from '../providers/types.js';
import { settings } from '../settings.js';
import type { AttemptRecord, AttemptSuccess, UsageReport } from '../gateway/attempt.js';
import type { GatewayContext } from '../gateway/context.js';
import { parseNativeBody } from '../gateway/provider-body.js';
import { relayedUpstreamHeaders } from '../gateway/relayed-headers.js';
import { openStreamRelay } from '../gateway/stream-relay.js';
import { readUpstreamBody, sendUpstream } from '../gateway/upstream-client.js';
import { providerErrorFrom } from '../gateway/upstream-errors.js';
import type { OpenAIBody } from '../providers/types.js';
import type { DialectCodec } from './types.js';

const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

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
}

/**
 * One try of a target that speaks the inbound dialect: the body goes as it is and the answer comes back as it
 * is (bytes for JSON, event by event for streams), with the same timeouts, error normalisation, first-event
 * commit and usage metering as a translated try. Native answers are not cached.
 */
export async function attemptNatively(attempt: NativeAttempt): Promise<AttemptSuccess> {
  const { context, codec, adapter, body, stream, record, onUsage } = attempt;
  const nativeInput = { provider: adapter.slug, body, stream, target: attempt.target, forwardHeaders: attempt.forwardHeaders, requestHeaders: context.request.headers };
  const call = await codec.buildNativeCall(nativeInput);
  const upstream = await sendUpstream(call, { timeoutMs: attempt.timeoutMs, idleTimeoutMs: settings().GW_STREAM_IDLE_TIMEOUT_MS, signal: context.request.signal });
  if (upstream.status < 200 || upstream.status >= 300) throw await providerErrorFrom(adapter, upstream);
  const success = { provider: adapter.slug, model: String(body.model), headers: relayedUpstreamHeaders(upstream.headers), cacheStatus: 'DISABLED' as const, dialectNative: true };
  record.cache_status = 'DISABLED';
  if (stream) {
    const translator = codec.createNativeStreamTranslator(nativeInput);
    const relayed = await openStreamRelay(upstream, translator, {
      clientWantsUsage: true,
      onEnd: ({ ok, errorCode }) => onUsage({ usage: translator.canonicalUsage(), streamErrorCode: ok ? undefined : errorCode }),
    });
    record.status = 200;
    return { ...success, contentType: 'text/event-stream; charset=utf-8', body: relayed };
  }
  const raw = await readUpstreamBody(upstream.body, MAX_RESPONSE_BYTES);
  // A 2xx that is not the dialect's answer is a failure that retries and falls back (provider-body.ts).
  const parsed = parseNativeBody(raw, context.endpoint);
  record.status = 200;
  onUsage({ usage: codec.nativeUsage(parsed) });
  return { ...success, contentType: 'application/json', body: raw };
}
