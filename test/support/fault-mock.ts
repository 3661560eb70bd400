import { gzipSync } from 'node:zlib';
import { openAIMockHandler } from './mock-openai.js';
import { chatStream } from './mock-openai.js';
import { sse, type MockHandler, type RecordedRequest, type ScriptedResponse } from './mock-upstream.js';

/**
 * A fault-injecting OpenAI-compatible provider. The requested `model` says how to misbehave, so one mock can
 * play every target of a config:
 * - `status-<code>`: that status with an OpenAI error body (`retry-after-ms: 1` for 429/5xx, so retries are quick)
 * - `flaky-<n>`: the first n calls for that model answer 503, later ones succeed
 * - `hang`: never answers; `slow-<ms>`: answers after ms
 * - `reset`: drops the connection before answering
 * - `stream-error-first`: a 200 stream whose first event is an error
 * - `stream-mid-fail`: content, then the connection drops
 * - non-streamed 2xx bodies that are not an answer:
 *   `body-invalid-json`, `body-empty`, `body-truncated` (a well-framed body holding half the JSON),
 *   `body-no-choices` (JSON without `choices`), `body-cut` (half the body, then the connection drops),
 *   `gzip-unlabelled` (gzip bytes without content-encoding), `gzip-mislabelled` (content-encoding gzip on
 *   plain JSON), `encoding-unknown` (content-encoding zstd); and `gzip-ok` (a correctly gzipped answer)
 * - `slow-first-byte`: headers only after 3 s (for request timeouts)
 * - anything else: a normal answer (JSON or stream)
 */
export function faultInjectingHandler(): MockHandler & { calls: (model: string) => number } {
  const counts = new Map<string, number>();
  const ok = openAIMockHandler();
  const handler = ((request: RecordedRequest): ScriptedResponse | Promise<ScriptedResponse> => {
    const body = (request.json ?? {}) as { model?: string; stream?: boolean };
    const model = body.model ?? '';
    const seen = (counts.get(model) ?? 0) + 1;
    counts.set(model, seen);
    const status = /^status-(\d{3})$/.exec(model);
    if (status) return errorResponse(Number(status[1]));
    const flaky = /^flaky-(\d+)$/.exec(model);
    if (flaky && seen <= Number(flaky[1])) return errorResponse(503);
    if (model === 'hang') return { hang: true };
    const slow = /^slow-(\d+)$/.exec(model);
    if (slow) return { ...(ok(request) as ScriptedResponse), delayMs: Number(slow[1]) };
    if (model === 'reset') return { destroy: true };
    if (model === 'stream-error-first') return { chunks: sse({ error: { message: 'overloaded', type: 'server_error', code: 'overloaded' } }) };
    if (model === 'stream-mid-fail') return { chunks: chatStream(model, 'one two three').slice(0, 2), resetAfterChunks: true, chunkDelayMs: 20 };
    if (model === 'slow-first-byte') return { ...(ok(request) as ScriptedResponse), delayMs: 3_000 };
    const fault = bodyFault(model, () => JSON.stringify((ok(request) as ScriptedResponse).json));
    if (fault) return fault;
    return ok(request);
  }) as MockHandler & { calls: (model: string) => number };
  handler.calls = (model) => counts.get(model) ?? 0;
  return handler;
}

function errorResponse(status: number): ScriptedResponse {
  const headers: Record<string, string> = status === 429 || status >= 500 ? { 'retry-after-ms': '1' } : {};
  return { status, headers, json: { error: { message: `injected ${status}`, type: 'server_error', code: `injected_${status}`, param: null } } };
}

const JSON_HEADERS = { 'content-type': 'application/json' };

/** The non-streamed 2xx faults: raw bytes written as they are (framing and encoding headers included). */
function bodyFault(model: string, answer: () => string): ScriptedResponse | undefined {
  switch (model) {
    case 'body-invalid-json':
      return { headers: JSON_HEADERS, chunks: ['{"id": "chatcmpl-1", "choices": [oops'] };
    case 'body-empty':
      return { headers: { ...JSON_HEADERS, 'content-length': '0' }, chunks: [] };
    case 'body-truncated': {
      const half = answer().slice(0, 40);
      return { headers: { ...JSON_HEADERS, 'content-length': String(Buffer.byteLength(half)) }, chunks: [half] };
    }
    case 'body-no-choices':
      return { headers: JSON_HEADERS, chunks: ['{"id":"chatcmpl-1","object":"chat.completion"}'] };
    case 'body-cut': {
      const full = answer();
      return { headers: { ...JSON_HEADERS, 'content-length': String(Buffer.byteLength(full)) }, chunks: [full.slice(0, 30)], resetAfterChunks: true, chunkDelayMs: 20 };
    }
    case 'gzip-unlabelled':
      return { headers: JSON_HEADERS, chunks: [gzipSync(answer())] };
    case 'gzip-mislabelled':
      return { headers: { ...JSON_HEADERS, 'content-encoding': 'gzip' }, chunks: [answer()] };
    case 'encoding-unknown':
      return { headers: { ...JSON_HEADERS, 'content-encoding': 'zstd' }, chunks: [answer()] };
    case 'gzip-ok':
      return { headers: { ...JSON_HEADERS, 'content-encoding': 'gzip' }, chunks: [gzipSync(answer())] };
    default:
      return undefined;
  }
}
