import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import { chatStream } from '../../support/mock-openai.js';
import { startMockUpstream, type MockUpstream, type ScriptedResponse } from '../../support/mock-upstream.js';
import { useDialectRig, type DialectRig } from './dialect-setup.js';

// A native (pass-through) Responses or Messages answer is checked like a translated one: a 2xx whose body is
// not a Response / Message is an upstream failure that falls back, else a 502, and never a stored success.
let rig: DialectRig;
let bogus: MockUpstream;
let answer: ScriptedResponse;
useDialectRig((started) => (rig = started));
beforeAll(async () => {
  bogus = await startMockUpstream(() => answer);
});
afterAll(async () => {
  await drainAllBackgroundWork();
  await bogus?.close();
});

const CHAT_COMPLETION = { id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }] };
const NOT_AN_ANSWER: Array<[string, ScriptedResponse]> = [
  ['an empty object', { json: {} }],
  ['an HTML page', { headers: { 'content-type': 'text/html' }, chunks: ['<html><body>Welcome to the proxy</body></html>'] }],
  ['a chat completion', { json: CHAT_COMPLETION }],
];
const MESSAGE = { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [{ type: 'text', text: 'hi' }], stop_reason: 'end_turn', usage: { input_tokens: 1, output_tokens: 1 } };
const RESPONSE = { id: 'resp_1', object: 'response', status: 'completed', model: 'm', output: [], usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 } };

const DIALECTS = [
  { path: '/v1/responses', provider: 'openai', body: { model: 'gpt-4o-mini', input: 'Hi' }, good: () => rig.openai, otherDialect: MESSAGE },
  { path: '/v1/messages', provider: 'anthropic', body: { model: 'claude-sonnet-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] }, good: () => rig.anthropic, otherDialect: RESPONSE },
] as const;

async function post(path: string, body: unknown, config: unknown): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const response = await fetch(`${rig.gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gw-api-key': rig.gateway.apiKey, 'x-gw-config': JSON.stringify(config) },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

describe('native answers that are not the dialect\'s answer', () => {
  for (const dialect of DIALECTS) {
    for (const [what, scripted] of [...NOT_AN_ANSWER, ['the other dialect\'s answer', { json: dialect.otherDialect }] as [string, ScriptedResponse]]) {
      it(`${dialect.path}: ${what} with 200 is a 502, and a fallback target answers instead`, async () => {
        answer = scripted;
        const target = (url: string) => ({ provider: dialect.provider, api_key: 'sk-native', custom_host: url });
        const before = bogus.requests.length;
        const alone = await post(dialect.path, dialect.body, target(bogus.url));
        expect(bogus.requests.length).toBe(before + 1);
        expect(alone.status, JSON.stringify(alone.body)).toBe(502);
        expect(JSON.stringify(alone.body)).toMatch(/not a (Response|Message)|not JSON/);

        const fallback = await post(dialect.path, dialect.body, { strategy: { mode: 'fallback' }, targets: [target(bogus.url), target(dialect.good().url)] });
        expect(fallback.status, JSON.stringify(fallback.body)).toBe(200);
        expect(fallback.headers.get('x-gw-last-used-option-index')).toBe('config.targets[1]');
        expect(fallback.body).toMatchObject(dialect.path === '/v1/responses' ? { object: 'response' } : { type: 'message' });
      });
    }
  }

  it('/v1/responses: a Response whose status is failed is a 502 naming its error, and falls back', async () => {
    answer = { json: { id: 'resp_f', object: 'response', status: 'failed', model: 'm', output: [], error: { code: 'server_error', message: 'the model crashed' } } };
    const target = (url: string) => ({ provider: 'openai', api_key: 'sk-native', custom_host: url });
    const alone = await post('/v1/responses', DIALECTS[0].body, target(bogus.url));
    expect(alone.status).toBe(502);
    expect(alone.body).toMatchObject({ error: { code: 'upstream_response_failed', type: 'upstream_error', provider_error: { message: 'the model crashed' } } });
    const fallback = await post('/v1/responses', DIALECTS[0].body, { strategy: { mode: 'fallback' }, targets: [target(bogus.url), target(rig.openai.url)] });
    expect(fallback.status).toBe(200);
    expect(fallback.body).toMatchObject({ object: 'response', status: 'completed' });
  });

  it('a streamed 200 of foreign events (a chat completion stream) is a 502 before anything is committed', async () => {
    answer = { headers: { 'content-type': 'text/event-stream' }, chunks: chatStream('m', 'hello there', {}) };
    for (const dialect of DIALECTS) {
      const streamed = await post(dialect.path, { ...dialect.body, stream: true }, { provider: dialect.provider, api_key: 'sk-native', custom_host: bogus.url });
      expect(streamed.status, JSON.stringify(streamed.body)).toBe(502);
      expect(JSON.stringify(streamed.body)).toContain('ended the stream without sending anything');
    }
  });

  it('a well-formed native answer still passes through untouched', async () => {
    const responses = await post('/v1/responses', DIALECTS[0].body, { provider: 'openai', api_key: 'sk-native', custom_host: rig.openai.url });
    expect(responses.status).toBe(200);
    expect(responses.body).toMatchObject({ object: 'response', status: 'completed' });
    const messages = await post('/v1/messages', DIALECTS[1].body, { provider: 'anthropic', api_key: 'sk-native', custom_host: rig.anthropic.url });
    expect(messages.status).toBe(200);
    expect(messages.body).toMatchObject({ type: 'message', role: 'assistant' });
  });
});
