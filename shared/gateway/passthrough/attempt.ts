import { GatewayError } from '../../http/errors.js';
import { passthroughSupport, providersServing } from '../../providers/passthrough-registry.js';
import type { AttemptSuccess, UsageReport } from '../attempt-types.js';
import { recordAttempt } from '../attempt-record.js';
import { attemptTimeoutMs, MAX_RESPONSE_BYTES, sendAccepted } from '../attempt-upstream.js';
import type { LeafSettings } from '../config/target-tree.js';
import { relayedUpstreamHeaders } from '../relayed-headers.js';
import { resolveLeafTarget } from '../resolve-target.js';
import { bodyReadFailure, readUpstreamBody, type UpstreamResponse } from '../upstream-client.js';
import type { PassthroughRequest } from './context.js';
import { followJob } from './job.js';
import { modelOf, payloadForTarget } from './payload.js';
import { merged } from '../../merged.js';
import { rememberParsedAnswer } from '../../observability/serialised-body.js';
import { withMediaUnits } from '../../observability/pricing/media-units.js';

/** A translated try's success without the cache: headers are the provider's rate-limit headers and request id, relayed. */
export type PassthroughSuccess = Pick<AttemptSuccess, 'provider' | 'model' | 'headers' | 'contentType' | 'body'>;

/**
 * One try of one leaf: the provider must serve the endpoint (else 400 `unsupported_endpoint`), its override
 * params apply, the bytes go out with the provider's URL and credential header. A JSON or text answer is read
 * whole before it counts as a success (so a broken one retries and falls back); speech audio is relayed chunk
 * by chunk with the provider's content-type.
 */
export async function attemptPassthrough(passthrough: PassthroughRequest, leafPath: string, leaf: LeafSettings, retry: number, onUsage: (report: UsageReport) => void): Promise<PassthroughSuccess> {
  const { context, route, payload } = passthrough;
  return recordAttempt(context, { leafPath, retry, virtualKey: leaf.virtualKey, cacheStatus: 'DISABLED' }, async (record) => {
    // Resolved for no endpoint: embeddings-only and media providers (Voyage, Jina, …) serve no chat, and the
    // pass-through check that matters follows.
    const { adapter, target, forwardHeaders } = await resolveLeafTarget(leaf, context.options, undefined, context.request, context.principal.workspaceId);
    record.provider = adapter.slug;
    const support = passthroughSupport(adapter.slug);
    if (!support?.endpoints.includes(route.endpoint)) {
      const serving = providersServing(route.endpoint);
      throw new GatewayError(400, 'unsupported_endpoint', `Provider '${adapter.slug}' does not support /v1/${route.endpoint}; providers that do: ${serving.length ? serving.join(', ') : 'none'}`, { param: 'x-gw-provider' });
    }
    const body = await payloadForTarget(payload, leaf.overrideParams);
    record.model = modelOf(body.fields);
    const input = { endpoint: route.endpoint, body: body.bytes, contentType: body.contentType, target, forwardHeaders, fields: body.fields };
    const prepared = support.prepare ? await support.prepare(input) : input;
    const timeoutMs = attemptTimeoutMs(context, leaf);
    const upstream = await sendAccepted(context, adapter, support.buildCall(prepared), timeoutMs);
    const contentType = headerText(upstream.headers['content-type']) ?? (route.streamsAnswer ? 'application/octet-stream' : 'application/json');
    const success = { provider: adapter.slug, model: record.model, headers: relayedUpstreamHeaders(upstream.headers), contentType };
    if (route.streamsAnswer) {
      record.status = 200;
      // Speech is billed by its input's characters: the relay reports them when the audio ends.
      return merged(success, { body: relayBytes(upstream, (report) => onUsage(merged(report, { usage: withMediaUnits(route.endpoint, body.fields, undefined) }))) });
    }
    const first = { endpoint: route.endpoint, body: await readUpstreamBody(upstream.body, MAX_RESPONSE_BYTES), contentType, fields: body.fields };
    // A job-style API (AssemblyAI) answers after more calls: upload, create, poll.
    const answer = support.followUp ? await followJob(context, adapter, support, prepared, first, timeoutMs) : first;
    // A provider with its own answer shape (Stability AI, Deepgram, …) is translated to OpenAI's before it counts.
    const translated = support.translateAnswer?.(answer);
    const raw = translated ? Buffer.from(translated.body) : Buffer.isBuffer(answer.body) ? answer.body : Buffer.from(answer.body);
    const parsed = jsonAnswer(raw, translated?.contentType ?? answer.contentType);
    record.status = 200;
    // Media endpoints are metered by the units they are billed by (images, audio seconds) when no tokens are reported.
    onUsage({ usage: withMediaUnits(route.endpoint, body.fields, usageOf(parsed) ?? translated?.usage, parsed) });
    return merged(success, { body: raw, contentType: translated?.contentType ?? answer.contentType });
  });
}

/**
 * The provider's bytes, passed on as they arrive. Once the first byte went out the answer is committed: a
 * break after it ends the body early and is recorded as the stream's error. A plain iterator rather than a
 * generator, so a client that leaves (the edge calls `return()`) drops the upstream connection at once, even
 * while a read is pending, instead of after the provider's next chunk.
 */
function relayBytes(upstream: UpstreamResponse, onUsage: (report: UsageReport) => void): AsyncIterable<Uint8Array> {
  const source = upstream.body[Symbol.asyncIterator]();
  let ended = false;
  const end = (streamErrorCode?: string) => {
    if (ended) return;
    ended = true;
    onUsage({ streamErrorCode });
  };
  const iterator: AsyncIterator<Uint8Array> = {
    async next() {
      if (ended) return { done: true, value: undefined };
      try {
        const step = await source.next();
        if (step.done) end();
        return step;
      } catch (error) {
        end(bodyReadFailure(error).code);
        return { done: true, value: undefined };
      }
    },
    async return() {
      upstream.body.destroy();
      end('client_closed');
      return { done: true, value: undefined };
    },
  };
  return { [Symbol.asyncIterator]: () => iterator };
}

/** A JSON answer must parse (else the provider failed, and routing may retry); its `usage`, when any, is metered. */
function jsonAnswer(raw: Buffer, contentType: string): unknown {
  if (!/\bjson\b/i.test(contentType)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new GatewayError(502, 'upstream_invalid_response', 'The provider answered 2xx with a body that is not the JSON its content-type says', { type: 'upstream_error', upstream: true });
  }
  // The after-path redacts the stored answer from this value instead of parsing the bytes again.
  rememberParsedAnswer(raw, parsed);
  return parsed;
}

function usageOf(parsed: unknown): Record<string, unknown> | undefined {
  const usage = (parsed as { usage?: unknown } | null | undefined)?.usage;
  return typeof usage === 'object' && usage !== null && !Array.isArray(usage) ? (usage as Record<string, unknown>) : undefined;
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
