import { SseDecoder } from '../http/sse.js';
import type { ResponseBody } from '../http/types.js';
import { isStreamBody } from '../http/types.js';
import type { AttemptSuccess } from '../gateway/attempt-types.js';
import type { GatewayContext } from '../gateway/context.js';
import { isRecord } from '../providers/common/json-guards.js';
import type { OpenAIBody } from '../providers/types.js';
import { expandPreviousResponse, storeResponse } from './responses/conversation-state.js';
import { ResponsesStreamEncoder } from './responses/stream.js';
import type { DialectCodec, RelayedNativeStream } from './types.js';

const encoder = new TextEncoder();

/** Checks an inbound dialect's body when the request arrives; a Responses conversation is expanded here. */
export async function prepareDialectBody(codec: DialectCodec, body: OpenAIBody, workspaceId: string): Promise<OpenAIBody> {
  codec.validate(body);
  return codec.name === 'responses' ? expandPreviousResponse(body, workspaceId) : body;
}

/**
 * The answer in the client's dialect: a canonical answer is translated (a stream event by event as it is
 * relayed), a native one goes as it is; a Response is stored (unless `store: false`) before the client sees
 * it complete, so a `previous_response_id` sent right after always finds it.
 */
export async function dialectAnswer(context: GatewayContext, codec: DialectCodec, value: AttemptSuccess): Promise<Pick<AttemptSuccess, 'contentType' | 'body'>> {
  const keep = codec.name === 'responses' ? (response: Record<string, unknown>) => keepResponse(context, response) : undefined;
  if (isStreamBody(value.body)) {
    const body = value.dialectNative ? relayNative(codec, context.body, value.body, keep) : translateStream(codec, context.body, value.body, keep);
    return { contentType: value.contentType, body };
  }
  const text = bodyText(value.body);
  if (value.dialectNative) {
    if (!codec.patchNativeAnswer) return value;
    const answer = codec.patchNativeAnswer(JSON.parse(text) as Record<string, unknown>, context.body);
    if (keep) await keep(answer);
    return { contentType: value.contentType, body: JSON.stringify(answer) };
  }
  const answer = codec.fromCanonical(JSON.parse(text) as Record<string, unknown>, context.body);
  if (keep) await keep(answer);
  return { contentType: 'application/json', body: JSON.stringify(answer) };
}

async function keepResponse(context: GatewayContext, response: Record<string, unknown>): Promise<void> {
  try {
    await storeResponse(context.body, context.principal.workspaceId, response, context.log);
  } catch (error) {
    // The answer itself is good: a store failure only means it cannot be continued later.
    context.log.warn('storing the response failed', { error: (error as Error).message });
  }
}

/** Canonical SSE (as the relay wrote it) → the dialect's events, one canonical event at a time. */
async function* translateStream(codec: DialectCodec, body: OpenAIBody, canonical: AsyncIterable<Uint8Array>, keep?: (response: Record<string, unknown>) => Promise<void>): AsyncGenerator<Uint8Array> {
  const decoder = new SseDecoder();
  const dialect = codec.createStreamEncoder(body);
  const translate = async function* (events: Array<{ event?: string; data: string }>): AsyncGenerator<Uint8Array> {
    for (const event of events) {
      if (event.event === 'error') yield* dialect.error(parseObject(event.data));
      else if (event.data === '[DONE]') {
        const last = dialect.done();
        const final = dialect instanceof ResponsesStreamEncoder ? dialect.finalResponse() : undefined;
        if (keep && final) await keep(final);
        yield* last;
      } else if (event.data.trim() !== '') yield* dialect.chunk(parseObject(event.data));
    }
  };
  for await (const bytes of canonical) yield* translate(decoder.push(bytes));
  yield* translate(decoder.end());
}

/** A native stream (relayed as data-only events) with its event names restored from each event's `type`. */
async function* relayNative(codec: DialectCodec, body: OpenAIBody, native: AsyncIterable<Uint8Array>, keep?: (response: Record<string, unknown>) => Promise<void>): AsyncGenerator<Uint8Array> {
  const decoder = new SseDecoder();
  // What the client has seen, so a failure's closing events continue the stream (sequence numbers, Response id).
  const relayed: RelayedNativeStream = {};
  const relay = async function* (events: Array<{ event?: string; data: string }>): AsyncGenerator<Uint8Array> {
    for (const event of events) {
      if (event.event === 'error') {
        yield* codec.nativeStreamError(parseObject(event.data), relayed);
        continue;
      }
      if (event.data === '[DONE]' || event.data.trim() === '') continue;
      const payload = parseObject(event.data);
      const type = typeof payload.type === 'string' ? payload.type : 'message';
      if (typeof payload.sequence_number === 'number') relayed.lastSequence = payload.sequence_number;
      let data = event.data;
      // Events that carry the whole Response (created, in_progress, completed, …) get the same patch as a JSON answer.
      if (codec.patchNativeAnswer && isRecord(payload.response)) {
        payload.response = codec.patchNativeAnswer(payload.response, body);
        data = JSON.stringify(payload);
      }
      if (type === 'response.created' && isRecord(payload.response)) relayed.response = payload.response;
      if (keep && (type === 'response.completed' || type === 'response.incomplete') && isRecord(payload.response)) await keep(payload.response);
      yield encoder.encode(`event: ${type}\ndata: ${data}\n\n`);
    }
  };
  for await (const bytes of native) yield* relay(decoder.push(bytes));
  yield* relay(decoder.end());
}

function parseObject(data: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(data);
    return isRecord(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

function bodyText(body: ResponseBody): string {
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  return '';
}
