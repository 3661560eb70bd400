import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, describe, expect, it } from 'vitest';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import { readSseEvents } from '../../support/sse-client.js';
import { useDialectRig, type DialectRig } from '../dialects/dialect-setup.js';

// The cache on the native entry points: /v1/responses to OpenAI and /v1/messages to Anthropic pass through in
// their own dialect, and are cached in it: a repeat is a HIT (JSON, or replayed as the dialect's own stream),
// whichever of the two calls streamed, and the provider is asked once.
let rig: DialectRig;
useDialectRig((started) => (rig = started));
afterAll(() => drainAllBackgroundWork());

type Json = Record<string, unknown>;
const CACHE = { mode: 'simple', max_age: 600 };

async function post(path: string, body: Json, config: Json): Promise<Response> {
  return fetch(`${rig.gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gw-api-key': rig.gateway.apiKey, 'x-gw-config': JSON.stringify(config) },
    body: JSON.stringify(body),
  });
}

const responsesText = (response: Json) =>
  (response.output as Json[]).flatMap((item) => (item.type === 'message' ? (item.content as Json[]).map((part) => part.text) : [])).join('');
const messageText = (message: Json) => (message.content as Json[]).map((block) => block.text ?? '').join('');

describe('native /v1/responses is cached in the Responses shape', () => {
  const config = () => ({ provider: 'openai', api_key: 'sk-native-cache', custom_host: rig.openai.url, cache: CACHE });

  it('JSON: MISS then HIT with the same Response; streamed: replayed as Responses events', async () => {
    const body = { model: 'gpt-4o-mini', input: 'What is cached? (json first)' };
    const before = rig.openai.requests.length;
    const first = await post('/v1/responses', body, config());
    expect(first.headers.get('x-gw-cache-status')).toBe('MISS');
    const answer = (await first.json()) as Json;
    expect(answer).toMatchObject({ object: 'response', store: true });
    await drainAllBackgroundWork();

    const second = await post('/v1/responses', body, config());
    expect(second.status).toBe(200);
    expect(second.headers.get('x-gw-cache-status')).toBe('HIT');
    expect(await second.json()).toEqual(answer);

    const streamed = await post('/v1/responses', { ...body, stream: true }, config());
    expect(streamed.headers.get('x-gw-cache-status')).toBe('HIT');
    expect(streamed.headers.get('content-type')).toContain('text/event-stream');
    const events = await readSseEvents(streamed);
    const names = events.map((event) => event.event);
    expect(names[0]).toBe('response.created');
    expect(names.at(-1)).toBe('response.completed');
    expect(names).toContain('response.output_text.delta');
    const deltas = events.filter((event) => event.event === 'response.output_text.delta').map((event) => (JSON.parse(event.data) as Json).delta).join('');
    expect(deltas).toBe(responsesText(answer));
    expect((JSON.parse(events.at(-1)!.data) as Json).response).toEqual(answer);
    expect(rig.openai.requests.length).toBe(before + 1);
  });

  it('a streamed MISS is stored whole: the JSON repeat is a HIT with the same text', async () => {
    const body = { model: 'gpt-4o-mini', input: 'What is cached? (stream first)' };
    const before = rig.openai.requests.length;
    const streamed = await post('/v1/responses', { ...body, stream: true }, config());
    expect(streamed.headers.get('x-gw-cache-status')).toBe('MISS');
    const events = await readSseEvents(streamed);
    const completed = (JSON.parse(events.find((event) => event.event === 'response.completed')!.data) as Json).response as Json;
    await drainAllBackgroundWork();

    const repeat = await post('/v1/responses', body, config());
    expect(repeat.headers.get('x-gw-cache-status')).toBe('HIT');
    const answer = (await repeat.json()) as Json;
    expect(answer).toMatchObject({ object: 'response', id: completed.id });
    expect(responsesText(answer)).toBe(responsesText(completed));
    expect(rig.openai.requests.length).toBe(before + 1);
  });
});

describe('native answers that must not be replayed', () => {
  it('a Response that did not complete (cancelled, still queued) is relayed but not cached: the repeat asks again', async () => {
    const cancelled = { id: 'resp_cancelled', object: 'response', status: 'cancelled', model: 'gpt-4o-mini', output: [] };
    rig.failing.setHandler(() => ({ json: cancelled }));
    try {
      const config = { provider: 'openai', api_key: 'sk-native-cache', custom_host: rig.failing.url, cache: CACHE };
      const body = { model: 'gpt-4o-mini', input: 'will be cancelled' };
      const before = rig.failing.requests.length;
      const first = await post('/v1/responses', body, config);
      expect(first.headers.get('x-gw-cache-status')).toBe('MISS');
      expect(await first.json()).toMatchObject({ status: 'cancelled' });
      await drainAllBackgroundWork();
      const repeat = await post('/v1/responses', body, config);
      expect(repeat.headers.get('x-gw-cache-status')).toBe('MISS');
      await repeat.arrayBuffer();
      expect(rig.failing.requests.length).toBe(before + 2);
    } finally {
      rig.failing.setHandler(() => ({ status: 500, json: { error: { message: 'mock is down', type: 'server_error', code: null } } }));
    }
  });
});

describe('the SDKs read a replayed stream as they read a live one', () => {
  it('OpenAI responses.stream and Anthropic messages.stream assemble the cached answers', async () => {
    const headers = (config: Json) => ({ 'x-gw-api-key': rig.gateway.apiKey, 'x-gw-config': JSON.stringify(config) });
    const openai = new OpenAI({ baseURL: `${rig.gateway.url}/v1`, apiKey: 'unused', maxRetries: 0, defaultHeaders: headers({ provider: 'openai', api_key: 'sk-sdk', custom_host: rig.openai.url, cache: CACHE }) });
    const live = await openai.responses.create({ model: 'gpt-4o-mini', input: 'SDK replay' });
    await drainAllBackgroundWork();
    const replayed = await openai.responses.stream({ model: 'gpt-4o-mini', input: 'SDK replay' }).finalResponse();
    expect(replayed.output_text).toBe(live.output_text);
    expect(replayed.id).toBe(live.id);

    const anthropic = new Anthropic({ baseURL: rig.gateway.url, apiKey: 'unused', maxRetries: 0, defaultHeaders: headers({ provider: 'anthropic', api_key: 'sk-sdk', custom_host: rig.anthropic.url, cache: CACHE }) });
    const params = { model: 'claude-sonnet-4-5', max_tokens: 32, messages: [{ role: 'user' as const, content: 'SDK replay' }] };
    const message = await anthropic.messages.create(params);
    await drainAllBackgroundWork();
    const streamedMessage = await anthropic.messages.stream(params).finalMessage();
    expect(streamedMessage.content).toEqual(message.content);
    expect(streamedMessage.id).toBe(message.id);
    expect(streamedMessage.usage.output_tokens).toBe(message.usage.output_tokens);
  });
});

describe('native /v1/messages is cached in the Messages shape', () => {
  const config = () => ({ provider: 'anthropic', api_key: 'sk-ant-native-cache', custom_host: rig.anthropic.url, cache: CACHE });

  it('JSON: MISS then HIT; streamed: replayed as Anthropic events, tool input included', async () => {
    const body = { model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'Weather?' }], tools: [{ name: 'weather', input_schema: { type: 'object' } }] };
    const before = rig.anthropic.requests.length;
    const first = await post('/v1/messages', body, config());
    expect(first.headers.get('x-gw-cache-status')).toBe('MISS');
    const answer = (await first.json()) as Json;
    expect(answer).toMatchObject({ type: 'message', stop_reason: 'tool_use' });
    await drainAllBackgroundWork();

    const second = await post('/v1/messages', body, config());
    expect(second.headers.get('x-gw-cache-status')).toBe('HIT');
    expect(await second.json()).toEqual(answer);

    const streamed = await post('/v1/messages', { ...body, stream: true }, config());
    expect(streamed.headers.get('x-gw-cache-status')).toBe('HIT');
    const events = await readSseEvents(streamed);
    expect(events.map((event) => event.event)).toEqual(['message_start', 'content_block_start', ...events.slice(2, -3).map(() => 'content_block_delta'), 'content_block_stop', 'message_delta', 'message_stop']);
    const json = events.filter((event) => event.event === 'content_block_delta').map((event) => ((JSON.parse(event.data) as Json).delta as Json).partial_json).join('');
    expect(JSON.parse(json)).toEqual((answer.content as Json[])[0].input);
    expect(JSON.parse(events.at(-2)!.data)).toMatchObject({ delta: { stop_reason: 'tool_use' } });
    expect(rig.anthropic.requests.length).toBe(before + 1);
  });

  it('a streamed MISS is folded back into the Message: the JSON repeat is a HIT with the same text and usage', async () => {
    const body = { model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'Say hello (stream first)' }] };
    const before = rig.anthropic.requests.length;
    const streamed = await post('/v1/messages', { ...body, stream: true }, config());
    expect(streamed.headers.get('x-gw-cache-status')).toBe('MISS');
    const events = await readSseEvents(streamed);
    const streamedText = events.filter((event) => event.event === 'content_block_delta').map((event) => ((JSON.parse(event.data) as Json).delta as Json).text).join('');
    await drainAllBackgroundWork();

    const repeat = await post('/v1/messages', body, config());
    expect(repeat.headers.get('x-gw-cache-status')).toBe('HIT');
    const answer = (await repeat.json()) as Json;
    expect(answer).toMatchObject({ type: 'message', role: 'assistant', stop_reason: 'end_turn', usage: { input_tokens: 25, output_tokens: 15 } });
    expect(messageText(answer)).toBe(streamedText);
    expect(rig.anthropic.requests.length).toBe(before + 1);
  });

  it('without a cache in the config the status stays DISABLED', async () => {
    const response = await post('/v1/messages', { model: 'claude-sonnet-4-5', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] }, { provider: 'anthropic', api_key: 'k', custom_host: rig.anthropic.url });
    expect(response.headers.get('x-gw-cache-status')).toBe('DISABLED');
    await response.arrayBuffer();
  });
});
