import { describe, expect, it } from 'vitest';
import { logOfTrace } from '../observability/observability-support.js';
import { readSseEvents } from '../../support/sse-client.js';
import { targetHeaders, useDialectRig, type DialectRig } from './dialect-setup.js';

let rig: DialectRig;
useDialectRig((started) => (rig = started));

/** The request's log record, read through the logs API (the log engine answers within its freshness). */
async function logOf(traceId: string): Promise<Record<string, unknown>> {
  return (await logOfTrace(rig.gateway, traceId)) as unknown as Record<string, unknown>;
}

const messages = { model: 'claude-mock-1', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] };

describe('every dialect is metered and logged in the canonical usage shape', () => {
  it.each([
    ['native JSON', 'anthropic', false, { prompt_tokens: 30, completion_tokens: 15, cached_tokens: 5 }],
    ['native stream', 'anthropic', true, { prompt_tokens: 30, completion_tokens: 15, cached_tokens: 5 }],
    ['translated JSON', 'openai', false, { prompt_tokens: 20, completion_tokens: 10, cached_tokens: 4 }],
    ['translated stream', 'openai', true, { prompt_tokens: 9, completion_tokens: 12 }],
  ] as const)('/v1/messages, %s', async (_name, provider, stream, usage) => {
    const traceId = `messages-${provider}-${stream}-${Date.now()}`;
    const response = await rig.gateway.post('/v1/messages', { ...messages, stream }, { ...targetHeaders(provider, provider === 'anthropic' ? rig.anthropic : rig.openai), 'x-gw-trace-id': traceId });
    expect(response.status).toBe(200);
    if (stream) expect((await readSseEvents(response)).at(-1)?.event).toBe('message_stop');
    else await response.json();
    const record = await logOf(traceId);
    expect(record).toMatchObject({ endpoint: 'messages', provider, status: 200, error: null, usage: expect.objectContaining(usage) });
  });

  it('/v1/responses streamed through Anthropic', async () => {
    const traceId = `responses-anthropic-${Date.now()}`;
    const response = await rig.gateway.post('/v1/responses', { model: 'm', input: 'Hi', stream: true }, { ...targetHeaders('anthropic', rig.anthropic), 'x-gw-trace-id': traceId });
    const events = await readSseEvents(response);
    expect(events.at(-1)?.event).toBe('response.completed');
    const record = await logOf(traceId);
    expect(record).toMatchObject({ endpoint: 'responses', provider: 'anthropic', usage: expect.objectContaining({ prompt_tokens: 30, completion_tokens: 15, cached_tokens: 5 }) });
  });
});

describe('translated dialect answers come from the response cache too', () => {
  const cached = (provider: 'openai' | 'anthropic') =>
    JSON.stringify({ provider, api_key: 'sk-provider-key', custom_host: (provider === 'openai' ? rig.openai : rig.anthropic).url, cache: { mode: 'simple' } });

  it('/v1/messages on an OpenAI target: the second call is a HIT, still an Anthropic Message', async () => {
    const body = { ...messages, messages: [{ role: 'user', content: `cache me ${Date.now()}` }] };
    const first = await rig.gateway.post('/v1/messages', body, { 'x-gw-config': cached('openai') });
    expect(first.headers.get('x-gw-cache-status')).toBe('MISS');
    const fresh = await first.json();
    const calls = rig.openai.requests.length;
    const second = await rig.gateway.post('/v1/messages', body, { 'x-gw-config': cached('openai') });
    expect(second.headers.get('x-gw-cache-status')).toBe('HIT');
    expect(rig.openai.requests.length).toBe(calls);
    const hit = (await second.json()) as Record<string, unknown>;
    expect({ ...hit, id: undefined }).toEqual({ ...(fresh as Record<string, unknown>), id: undefined });
    expect(hit.type).toBe('message');
  });

  it('/v1/responses streamed on an Anthropic target: a HIT replays as Responses events', async () => {
    const body = { model: 'm', input: `cache me ${Date.now()}`, stream: true };
    const first = await rig.gateway.post('/v1/responses', body, { 'x-gw-config': cached('anthropic') });
    await readSseEvents(first);
    const second = await rig.gateway.post('/v1/responses', body, { 'x-gw-config': cached('anthropic') });
    expect(second.headers.get('x-gw-cache-status')).toBe('HIT');
    const events = await readSseEvents(second);
    expect(events[0].event).toBe('response.created');
    const completed = JSON.parse(events.at(-1)!.data) as { type: string; response: { output: Array<{ content: Array<{ text: string }> }> } };
    expect(completed.type).toBe('response.completed');
    expect(completed.response.output[0].content[0].text).toBe('Hello from the Anthropic mock!');
  });
});
