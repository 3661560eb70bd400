import { describe, expect, it } from 'vitest';
import { chatStream, openAIMockHandler } from '../../support/mock-openai.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import type { MockUpstream, RecordedRequest, ScriptedResponse } from '../../support/mock-upstream.js';
import { readSseEvents } from '../../support/sse-client.js';

// GW_STREAM_IDLE_TIMEOUT_MS is the longest silence gw accepts from a provider once its headers arrived, for
// streamed and whole bodies alike; a provider that goes quiet fails the attempt (retry, fallback) or, after the
// stream committed, ends it with an SSE error event. A provider that is slow but keeps sending is never cut.

const IDLE_MS = 400;
const messages = [{ role: 'user', content: 'Hi' }];
const ok = openAIMockHandler();

function quietProvider(request: RecordedRequest): ScriptedResponse {
  const model = String((request.json as { model?: string }).model);
  const answer = JSON.stringify((ok(request) as ScriptedResponse).json);
  switch (model) {
    case 'json-goes-quiet':
      return { headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(answer)) }, chunks: [answer.slice(0, 20)], hangAfterChunks: true };
    case 'stream-goes-quiet':
      return { headers: { 'content-type': 'text/event-stream' }, chunks: chatStream(model, 'one two three').slice(0, 2), hangAfterChunks: true };
    case 'stream-slow-but-steady':
      // Five gaps of 250 ms: over a second in all, each gap under the idle timeout.
      return { headers: { 'content-type': 'text/event-stream' }, chunks: chatStream(model, 'a b c d'), chunkDelayMs: 250 };
    default:
      return ok(request) as ScriptedResponse;
  }
}

let gateway: TestGateway;
let upstream: MockUpstream;
useGatewayWithUpstream(quietProvider, (started) => ({ gateway, upstream } = started), { GW_STREAM_IDLE_TIMEOUT_MS: String(IDLE_MS) });

const target = (model: string) => ({ provider: 'openai', api_key: 'sk-t', custom_host: upstream.url, override_params: { model } });
const post = (config: unknown, body: Record<string, unknown>) => gateway.post('/v1/chat/completions', body, { 'x-gw-config': JSON.stringify(config) });

describe('a provider that goes quiet mid-body (GW_STREAM_IDLE_TIMEOUT_MS)', () => {
  it('a whole JSON body: 504 upstream_idle_timeout, retried; with a fallback the next target answers', async () => {
    const alone = await post({ retry: { attempts: 1 }, ...target('json-goes-quiet') }, { messages });
    expect(alone.status).toBe(504);
    expect(await alone.json()).toMatchObject({ error: { code: 'upstream_idle_timeout', type: 'upstream_error' } });
    expect(alone.headers.get('x-gw-attempts')).toBe('config=504/upstream_idle_timeout, config=504/upstream_idle_timeout');
    const fallback = await post({ strategy: { mode: 'fallback' }, targets: [target('json-goes-quiet'), target('healthy')] }, { messages });
    expect(fallback.status).toBe(200);
    expect(fallback.headers.get('x-gw-attempts')).toBe('config.targets[0]=504/upstream_idle_timeout, config.targets[1]=200');
  });

  it('a stream after its first content: the stream ends with an SSE error event naming the idle timeout', async () => {
    const response = await post(target('stream-goes-quiet'), { messages, stream: true });
    expect(response.status).toBe(200);
    const events = await readSseEvents(response);
    expect(events.some((event) => event.data.includes('"content"'))).toBe(true);
    expect(events.at(-1)?.data).toContain('stream_idle_timeout');
    expect(events.map((event) => event.data)).not.toContain('[DONE]');
  });

  it('a stream that is slow but keeps sending is relayed whole', async () => {
    const response = await post(target('stream-slow-but-steady'), { messages, stream: true });
    expect(response.status).toBe(200);
    const events = await readSseEvents(response);
    expect(events.at(-1)?.data).toBe('[DONE]');
    expect(events.map((event) => event.data).join('')).not.toContain('error');
    const text = events
      .filter((event) => event.data !== '[DONE]')
      .map((event) => (JSON.parse(event.data) as { choices: Array<{ delta?: { content?: string } }> }).choices[0]?.delta?.content ?? '')
      .join('');
    expect(text).toBe('a b c d');
  });
});
