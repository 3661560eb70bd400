import { badRequest } from '../http/errors.js';
import type { AdapterInput } from '../providers/types.js';
import { cacheTargetIdentity } from './cache/cache-key.js';
import { replayAsSse } from './cache/replay.js';
import { ResponseCache, type CacheDecision } from './cache/response-cache.js';
import type { AttemptSuccess, UsageReport } from './attempt-types.js';
import { recordAttempt } from './attempt-record.js';
import { attemptTimeoutMs, MAX_RESPONSE_BYTES, sendAccepted } from './attempt-upstream.js';
import { StreamAssembler } from './cache/stream-assembler.js';
import type { LeafSettings } from './config/target-tree.js';
import type { GatewayContext } from './context.js';
import { applyMetadataUser } from './request-body.js';
import { withSpan } from '../observability/spans.js';
import { resolveLeafTarget } from './resolve-target.js';
import { openStreamRelay } from './stream-relay.js';
import { parseProviderBody, translateProviderBody } from './provider-body.js';
import { readUpstreamBody } from './upstream-client.js';
import { relayedUpstreamHeaders } from './relayed-headers.js';
import { canonicalEndpoint } from '../dialects/registry.js';
import { knownRequestCredentials } from '../observability/request-credentials.js';
import { rememberParsedAnswer } from '../observability/serialised-body.js';
import { merged } from '../merged.js';

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
  return recordAttempt(context, { leafPath, retry, virtualKey: leaf.virtualKey }, async (record) => {
    const { adapter, target, forwardHeaders } = await resolveLeafTarget(leaf, context.options, canonicalEndpoint(context.endpoint), context.request, context.principal.workspaceId);
    record.provider = adapter.slug;
    const requested = merged(context.body, leaf.overrideParams);
    const body = applyMetadataUser(requested, context.options.metadata);
    if (typeof body.model !== 'string' || body.model.trim() === '') {
      throw badRequest('missing_model', '`model` is required (a string) unless a config target supplies it through override_params', 'model');
    }
    record.model = body.model;
    const stream = body.stream === true;
    // Inbound dialects (shared/dialects/) always report usage at the end of their streams.
    const dialect = context.dialect;
    const clientWantsUsage = dialect !== undefined || (context.body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
    const timeoutMs = attemptTimeoutMs(context, leaf);
    const native = dialect?.speaksNatively(adapter.slug, target, body) === true;
    // The cache key uses the body before gw filled `user` from metadata (metadata is part of the key anyway).
    // A native answer is kept in its dialect's shape, under a key of its own.
    const cache = await withSpan(context, 'cache_lookup', () =>
      (responseCache ??= new ResponseCache()).decide(context, leafPath, leaf, () => cacheTargetIdentity(target, leaf.virtualKey, body.model), requested, native ? 'native' : undefined),
    );
    if (native) {
      const { attemptNatively } = await import('./native-attempt.js');
      return await attemptNatively({ context, codec: dialect!, adapter, target, forwardHeaders, body, stream, timeoutMs, record, onUsage, cache });
    }
    if (cache.hit) {
      record.status = 200;
      record.cache_status = cache.status;
      onUsage({ usage: cache.hit.usage as Record<string, unknown> | undefined, cacheHit: true });
      return servedFromCache(adapter.slug, body.model, cache, stream, clientWantsUsage);
    }
    // A dialect's fields with no canonical equivalent follow the same unsupported-parameter rule as the adapters'.
    const dialectDropped: string[] = [];
    const dropUnsupportedParams = context.options.dropUnsupportedParams;
    const canonical = dialect ? dialect.toCanonical(body, adapter.slug, { dropUnsupportedParams, droppedParams: dialectDropped }) : body;
    let input: AdapterInput = { endpoint: canonicalEndpoint(context.endpoint), body: canonical, stream, target, forwardHeaders, dropUnsupportedParams };
    // Providers that need I/O to build their request (Bedrock fetches image links) do it here; others skip it.
    // The image fetcher is imported with the first such provider, not at a cold start.
    if (adapter.prepare) {
      const { remoteImageFetcher } = await import('./remote-media.js');
      input = await adapter.prepare(input, { fetchImage: remoteImageFetcher(context, { timeoutMs, signal: context.request.signal }) });
    }
    const call = await adapter.buildCall(input);
    const upstream = await sendAccepted(context, adapter, call, timeoutMs);
    // Provider rate-limit headers and request id (as x-gw-upstream-request-id) go back to the client.
    const headers: Record<string, string> = relayedUpstreamHeaders(upstream.headers);
    const dropped = [...dialectDropped, ...(call.dropped ?? [])];
    if (dropped.length > 0) headers['x-gw-dropped-params'] = dropped.join(','); // x-gw-drop-unsupported-params
    const success = { provider: adapter.slug, model: body.model, headers, cacheStatus: cache.status };
    record.cache_status = cache.status;

    if (stream) {
      const report: UsageReport = {};
      // A tee: chunks are assembled for the cache as they pass, and stored only after a clean end.
      const assembler = cache.store ? new StreamAssembler() : undefined;
      const relayed = await openStreamRelay(upstream, adapter.createStreamTranslator(input), {
        clientWantsUsage,
        credentials: knownRequestCredentials(context.request),
        onChunk: assembler ? (chunk) => assembler.add(chunk) : undefined,
        onUsage: (usage) => (report.usage = usage),
        onEnd: ({ ok, errorCode }) => {
          if (ok && assembler) cache.store?.(assembler.result());
          onUsage(merged(report, { streamErrorCode: ok ? undefined : errorCode }));
        },
      });
      record.status = 200;
      return merged(success, { contentType: 'text/event-stream; charset=utf-8', body: relayed });
    }

    // A 2xx is accepted only once its body arrived whole, decoded and parsed as the provider's format (see
    // provider-body.ts); anything else is an upstream failure that retries and falls back like a 5xx.
    const raw = await readUpstreamBody(upstream.body, MAX_RESPONSE_BYTES);
    const parsed = parseProviderBody(raw, canonicalEndpoint(context.endpoint), adapter.toOpenAIResponse === undefined);
    if (!adapter.toOpenAIResponse) {
      // Pass-through bytes go out untouched.
      record.status = 200;
      onUsage({ usage: parsed.usage as Record<string, unknown> | undefined });
      cache.store?.(parsed);
      // The after-path redacts the stored answer from this value instead of parsing the bytes again.
      rememberParsedAnswer(raw, parsed);
      return merged(success, { contentType: 'application/json', body: raw });
    }
    const translated = translateProviderBody(() => adapter.toOpenAIResponse!(input, parsed, upstream.headers));
    record.status = 200;
    cache.store?.(translated);
    onUsage({ usage: translated.usage as Record<string, unknown> | undefined });
    return merged(success, { contentType: 'application/json', body: JSON.stringify(translated) });
  });
}

function servedFromCache(provider: string, model: string, cache: CacheDecision, stream: boolean, includeUsage: boolean): AttemptSuccess {
  const hit = cache.hit!;
  if (!stream) {
    // The stored text is the answer's JSON as it was stored (JSON.stringify of it), so it goes out as it is instead of
    // being made again from the parsed value; and the after-path redacts the log body from that value instead of
    // parsing the text a second time (issue #48: two JSON passes over the answer per hit).
    if (cache.hitText === undefined) return { provider, model, headers: {}, contentType: 'application/json', body: JSON.stringify(hit), cacheStatus: cache.status };
    const bytes = Buffer.from(cache.hitText);
    rememberParsedAnswer(bytes, hit);
    return { provider, model, headers: {}, contentType: 'application/json', body: bytes, cacheStatus: cache.status };
  }
  async function* replay(): AsyncGenerator<Uint8Array> {
    yield* replayAsSse(hit, includeUsage);
  }
  return { provider, model, headers: {}, contentType: 'text/event-stream; charset=utf-8', body: replay(), cacheStatus: cache.status };
}
