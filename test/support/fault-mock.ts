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
    return ok(request);
  }) as MockHandler & { calls: (model: string) => number };
  handler.calls = (model) => counts.get(model) ?? 0;
  return handler;
}

function errorResponse(status: number): ScriptedResponse {
  const headers: Record<string, string> = status === 429 || status >= 500 ? { 'retry-after-ms': '1' } : {};
  return { status, headers, json: { error: { message: `injected ${status}`, type: 'server_error', code: `injected_${status}`, param: null } } };
}
