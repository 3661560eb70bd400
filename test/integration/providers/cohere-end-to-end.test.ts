import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { startMockUpstream, type MockUpstream, type ScriptedResponse } from '../../support/mock-upstream.js';
import { readSseEvents } from '../../support/sse-client.js';

// Cohere through gw's HTTP server: a mock Cohere (a real HTTP server reached through x-gw-custom-host) answers
// with the recorded fixtures, so what gw sends and what the client gets are both checked on the wire.
const FIXTURES = fileURLToPath(new URL('../../fixtures/cohere/', import.meta.url));
const fixture = (name: string) => readFileSync(FIXTURES + name, 'utf8');
const PROVIDER_KEY = 'co-test-key-7f3a';

let gateway: TestGateway;
let cohere: MockUpstream;

beforeAll(async () => {
  cohere = await startMockUpstream((request): ScriptedResponse => {
    const body = request.json as Record<string, unknown>;
    if (request.path === '/v2/chat' && body.stream) return { headers: { 'content-type': 'text/event-stream' }, chunks: [fixture('stream-tool-call.sse')] };
    if (request.path === '/v2/chat' && body.model === 'command-missing') return { status: 404, json: { id: 'e1', message: "model 'command-missing' not found" } };
    if (request.path === '/v2/chat') return { json: JSON.parse(fixture('chat-text.json')) };
    if (request.path === '/v2/embed') return { json: JSON.parse(fixture('embed.json')) };
    if (request.path === '/v2/rerank') return { json: JSON.parse(fixture('rerank.json')) };
    return { status: 404, json: { message: `no route ${request.path}` } };
  });
  gateway = await startTestGateway();
});
afterAll(async () => {
  await gateway?.close();
  await cohere?.close();
});

const post = (path: string, body: unknown) =>
  fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gw-api-key': gateway.apiKey, 'x-gw-provider': 'cohere', 'x-gw-custom-host': cohere.url, authorization: `Bearer ${PROVIDER_KEY}` },
    body: JSON.stringify(body),
  });

describe('Cohere end to end', () => {
  it('chat: OpenAI request in, Cohere /v2/chat out with the provider key, OpenAI answer back', async () => {
    const response = await post('/v1/chat/completions', { model: 'command-a-03-2025', messages: [{ role: 'user', content: 'What is an LLM?' }], top_p: 0.5 });
    const answer = (await response.json()) as Record<string, unknown>;
    expect(response.status, JSON.stringify(answer)).toBe(200);
    expect(answer).toMatchObject({ object: 'chat.completion', choices: [{ message: { content: 'LLMs stand for Large Language Models.' }, finish_reason: 'stop' }], usage: { prompt_tokens: 17, completion_tokens: 12 } });
    const sent = cohere.requests.at(-1)!;
    expect(sent.path).toBe('/v2/chat');
    expect(sent.headers.authorization).toBe(`Bearer ${PROVIDER_KEY}`);
    expect(sent.headers['x-gw-api-key']).toBeUndefined();
    expect(sent.json).toMatchObject({ model: 'command-a-03-2025', messages: [{ role: 'user', content: 'What is an LLM?' }], p: 0.5 });
  });

  it('chat stream: Cohere SSE arrives as OpenAI chunks with tool calls, usage and [DONE]', async () => {
    const response = await post('/v1/chat/completions', { model: 'command-a-03-2025', messages: [{ role: 'user', content: 'Weather?' }], stream: true, stream_options: { include_usage: true } });
    expect(response.status).toBe(200);
    const events = await readSseEvents(response);
    expect(events.at(-1)?.data).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((event) => JSON.parse(event.data) as { choices: Array<{ delta: Record<string, unknown>; finish_reason: string | null }>; usage?: unknown });
    const args = chunks.flatMap((chunk) => chunk.choices.flatMap((choice) => (choice.delta.tool_calls as Array<{ function: { arguments?: string } }> | undefined) ?? [])).map((call) => call.function.arguments ?? '');
    expect(JSON.parse(args.join(''))).toEqual({ location: 'Zürich' });
    expect(chunks.some((chunk) => chunk.choices[0]?.finish_reason === 'tool_calls')).toBe(true);
    expect(chunks.at(-1)?.usage).toMatchObject({ prompt_tokens: 37, completion_tokens: 21 });
  });

  it('provider error: Cohere 404 {message} comes back as gw structured error with the provider body', async () => {
    const response = await post('/v1/chat/completions', { model: 'command-missing', messages: [{ role: 'user', content: 'hi' }] });
    const answer = (await response.json()) as { error: Record<string, unknown> };
    expect(response.status).toBe(404);
    expect(answer.error).toMatchObject({ message: "model 'command-missing' not found", code: 'not_found', provider_error: { message: "model 'command-missing' not found" } });
  });

  it('embeddings and rerank reach /v2/embed and /v2/rerank', async () => {
    const embedded = await post('/v1/embeddings', { model: 'embed-v4.0', input: ['hello', 'goodbye'], input_type: 'search_query' });
    expect(embedded.status).toBe(200);
    expect(await embedded.json()).toMatchObject({ object: 'list', data: [{ index: 0 }, { index: 1, embedding: [0.5, -0.25, 0.125] }], usage: { prompt_tokens: 2 } });
    expect(cohere.requests.at(-1)?.json).toMatchObject({ texts: ['hello', 'goodbye'], input_type: 'search_query' });

    const reranked = await post('/v1/rerank', { model: 'rerank-v3.5', query: 'capital of the US?', documents: ['Carson City', 'Washington, D.C.'], top_n: 2 });
    expect(reranked.status).toBe(200);
    expect(await reranked.json()).toMatchObject({ results: [{ index: 1, relevance_score: 0.999071 }, { index: 0 }] });
    expect(cohere.requests.at(-1)?.path).toBe('/v2/rerank');
  });
});
