import { badRequest, GatewayError } from '../http/errors.js';
import type { ResponseBody } from '../http/types.js';
import type { AdapterInput } from '../providers/types.js';
import { settings } from '../settings.js';
import { replayAsSse } from './cache/replay.js';
import { ResponseCache, type CacheDecision, type CacheStatus } from './cache/response-cache.js';
import { StreamAssembler } from './cache/stream-assembler.js';
import type { LeafSettings } from './config/target-tree.js';
import type { GatewayContext } from './context.js';
import { applyMetadataUser } from './request-body.js';
import { resolveLeafTarget } from './resolve-target.js';
import { openStreamRelay } from './stream-relay.js';
import { readUpstreamBody, sendUpstream } from './upstream-client.js';
import { providerErrorFrom } from './upstream-errors.js';

const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/** One upstream try, as recorded in the trace so a user can see why a fallback or retry happened. */
export interface AttemptRecord {
  target_path: string;
  provider?: string;
  model?: string;
  status: number;
  latency_ms: number;
  error_code?: string;
  retry: number;
  cache_status?: CacheStatus;
}

/** What the request ended with, for the log record (usage arrives at the end of a stream). */
export interface UsageReport {
  usage?: Record<string, unknown>;
  /** A pass-through body, read for usage only after the response went out. */
  usageSource?: Buffer;
  /** Set when a committed stream ended badly. */
  streamErrorCode?: string;
  /** The answer came from the cache: its usage is not charged to token limits or budgets. */
  cacheHit?: boolean;
}

export interface AttemptSuccess {
  provider: string;
  model?: string;
  headers: Record<string, string>;
  contentType: string;
  body: ResponseBody;
  cacheStatus: CacheStatus;
}

let responseCache: ResponseCache | undefined;

/**
 * One call to one leaf: resolve its provider, apply its override params, build the provider's call, send it
 * with the leaf's timeout, and shape the answer as OpenAI's. Failures throw GatewayErrors whose `upstream`
 * flag tells routing whether retrying or falling back can help.
 */
export async function attemptLeaf(
  context: GatewayContext,
  leafPath: string,
  leaf: LeafSettings,
  retry: number,
  onUsage: (report: UsageReport) => void,
): Promise<AttemptSuccess> {
  const started = performance.now();
  const record: AttemptRecord = { target_path: leafPath, status: 0, latency_ms: 0, retry };
  context.attempts.push(record);
  try {
    const { adapter, target, forwardHeaders } = await resolveLeafTarget(leaf, context.options, context.endpoint, context.request.headers, context.principal.workspaceId);
    record.provider = adapter.slug;
    const requested = { ...context.body, ...leaf.overrideParams };
    const body = applyMetadataUser(requested, context.options.metadata);
    if (typeof body.model !== 'string' || body.model.trim() === '') {
      throw badRequest('missing_model', '`model` is required (a string) unless a config target supplies it through override_params', 'model');
    }
    record.model = body.model;
    const stream = body.stream === true;
    const clientWantsUsage = (context.body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
    // The cache key uses the body before gw filled `user` from metadata (metadata is part of the key anyway).
    const cache = await (responseCache ??= new ResponseCache()).decide(context, leafPath, leaf, { provider: adapter.slug, customHost: target.customHost, virtualKey: leaf.virtualKey }, requested);
    if (cache.hit) {
      record.status = 200;
      record.cache_status = cache.status;
      onUsage({ usage: cache.hit.usage as Record<string, unknown> | undefined, cacheHit: true });
      return servedFromCache(adapter.slug, body.model, cache, stream, clientWantsUsage);
    }
    const input: AdapterInput = { endpoint: context.endpoint, body, stream, target, forwardHeaders, dropUnsupportedParams: context.options.dropUnsupportedParams };
    const call = await adapter.buildCall(input);
    const upstream = await sendUpstream(call, {
      timeoutMs: context.options.requestTimeoutMs ?? leaf.requestTimeoutMs ?? settings().GW_DEFAULT_REQUEST_TIMEOUT_MS,
      idleTimeoutMs: settings().GW_STREAM_IDLE_TIMEOUT_MS,
      signal: context.request.signal,
    });
    if (upstream.status < 200 || upstream.status >= 300) throw await providerErrorFrom(adapter, upstream);
    const headers: Record<string, string> = {};
    const upstreamRequestId = upstream.headers['x-request-id'] ?? upstream.headers['x-amzn-requestid'];
    if (typeof upstreamRequestId === 'string') headers['x-request-id'] = upstreamRequestId;
    const success = { provider: adapter.slug, model: body.model, headers, cacheStatus: cache.status };
    record.cache_status = cache.status;

    if (stream) {
      const report: UsageReport = {};
      // A tee: chunks are assembled for the cache as they pass, and stored only after a clean end.
      const assembler = cache.store ? new StreamAssembler() : undefined;
      const relayed = await openStreamRelay(upstream, adapter.createStreamTranslator(input), {
        clientWantsUsage,
        onChunk: assembler ? (chunk) => assembler.add(chunk) : undefined,
        onUsage: (usage) => (report.usage = usage),
        onEnd: ({ ok, errorCode }) => {
          if (ok && assembler) cache.store?.(assembler.result());
          onUsage({ ...report, streamErrorCode: ok ? undefined : errorCode });
        },
      });
      record.status = 200;
      return { ...success, contentType: 'text/event-stream; charset=utf-8', body: relayed };
    }

    const raw = await readUpstreamBody(upstream.body, MAX_RESPONSE_BYTES);
    record.status = 200;
    if (!adapter.toOpenAIResponse) {
      // Pass-through bytes go out untouched; usage is read from them after the response is sent.
      onUsage({ usageSource: raw });
      if (cache.store) cache.store(parseProviderJson(raw) as Record<string, unknown>);
      return { ...success, contentType: 'application/json', body: raw };
    }
    const translated = adapter.toOpenAIResponse(input, parseProviderJson(raw));
    cache.store?.(translated);
    onUsage({ usage: translated.usage as Record<string, unknown> | undefined });
    return { ...success, contentType: 'application/json', body: JSON.stringify(translated) };
  } catch (error) {
    if (error instanceof GatewayError) {
      record.status = error.status;
      record.error_code = error.code;
    }
    throw error;
  } finally {
    record.latency_ms = Math.round((performance.now() - started) * 100) / 100;
  }
}

function servedFromCache(provider: string, model: string, cache: CacheDecision, stream: boolean, includeUsage: boolean): AttemptSuccess {
  const hit = cache.hit!;
  if (!stream) return { provider, model, headers: {}, contentType: 'application/json', body: JSON.stringify(hit), cacheStatus: cache.status };
  async function* replay(): AsyncGenerator<Uint8Array> {
    yield* replayAsSse(hit, includeUsage);
  }
  return { provider, model, headers: {}, contentType: 'text/event-stream; charset=utf-8', body: replay(), cacheStatus: cache.status };
}

function parseProviderJson(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw new GatewayError(502, 'invalid_provider_response', 'The provider answered 2xx with a body that is not JSON', { type: 'upstream_error', upstream: true });
  }
}
