import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { startMockUpstream, type MockUpstream, type ScriptedResponse } from '../../support/mock-upstream.js';

// IBM watsonx.ai through gw's HTTP server: one mock server plays IBM Cloud IAM (GW_WATSONX_IAM_URL) and the
// watsonx.ai runtime (x-gw-custom-host). Fixtures are written from IBM's API reference examples.
const fixturePath = (name: string) => fileURLToPath(new URL(`../../fixtures/watsonx/${name}`, import.meta.url));
const fixture = (name: string) => JSON.parse(readFileSync(fixturePath(name), 'utf8')) as unknown;
const token = (fixture('iam-token.json') as { access_token: string }).access_token;
const PROJECT = '0ea6f3c2-61d5-4a1f-9a0e-3e1c1f5e8b7d';

// IBM's chat reference example of a tool call (mistralai/mistral-large asked for the weather in Boston).
const TOOL_CALL_ANSWER = {
  id: 'chat-2e8d342d8a014e1a8d1f4f0b2c2a5c3e', model_id: 'mistralai/mistral-large', created: 1728806666, created_at: '2024-10-13T08:04:26.200Z',
  choices: [{ index: 0, message: { role: 'assistant', tool_calls: [{ id: 'chatcmpl-tool-ef093f0cbbff4c6a973aa0f9b6c7b1a3', type: 'function', function: { name: 'get_current_weather', arguments: '{"location": "Boston, MA", "unit": "fahrenheit"}' } }] }, finish_reason: 'tool_calls' }],
  usage: { completion_tokens: 18, prompt_tokens: 19, total_tokens: 37 },
};

let gateway: TestGateway;
let upstream: MockUpstream;

beforeAll(async () => {
  upstream = await startMockUpstream((request): ScriptedResponse => {
    if (request.path === '/identity/token') {
      return request.body.includes('apikey=ibm-bad-key') ? { status: 400, json: { errorCode: 'BXNIM0415E', errorMessage: 'Provided API key could not be found.' } } : { json: fixture('iam-token.json') };
    }
    if (request.headers.authorization !== `Bearer ${token}`) return { status: 401, json: { errors: [{ code: 'authentication_token_not_valid', message: 'Failed to authenticate the request due to invalid token' }], status_code: 401 } };
    const model = (request.json as { model_id?: string }).model_id;
    if (model === 'ibm/granite-nope') return { status: 404, json: fixture('error.json') };
    if (model === 'mistralai/mistral-large' && request.path === '/ml/v1/text/chat') return { json: TOOL_CALL_ANSWER };
    if (request.path === '/ml/v1/text/chat') return { json: fixture('chat.json') };
    if (request.path === '/ml/v1/text/chat_stream') return { headers: { 'content-type': 'text/event-stream' }, chunks: [readFileSync(fixturePath('chat-stream.txt'), 'utf8')] };
    if (request.path === '/ml/v1/text/embeddings') return { json: fixture('embeddings.json') };
    return { status: 404, json: { errors: [{ code: 'not_found', message: 'no route' }] } };
  });
  gateway = await startTestGateway({ GW_WATSONX_IAM_URL: `${upstream.url}/identity/token` });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-gw-api-key': gateway.apiKey,
      'x-gw-provider': 'watsonx',
      'x-gw-custom-host': upstream.url,
      'x-gw-watsonx-project-id': PROJECT,
      authorization: 'Bearer ibm-cloud-api-key',
      ...headers,
    },
    body: JSON.stringify(body),
  });

const iamCalls = () => upstream.requests.filter((request) => request.path === '/identity/token').length;

describe('IBM watsonx.ai', () => {
  it('chat: the API key is exchanged once for an IAM token, the body carries model_id and project_id, the answer is OpenAI’s', async () => {
    const body = {
      model: 'ibm/granite-3-8b-instruct',
      messages: [{ role: 'user', content: 'What is the flight distance?' }],
      max_completion_tokens: 100,
      tools: [{ type: 'function', function: { name: 'distance', parameters: { type: 'object' } } }],
      tool_choice: 'auto',
    };
    const answered = await post('/v1/chat/completions', body);
    expect(answered.status).toBe(200);
    expect(await answered.json()).toMatchObject({
      object: 'chat.completion',
      model: 'ibm/granite-3-8b-instruct',
      choices: [{ message: { role: 'assistant', content: expect.stringContaining('7,800') }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 67, completion_tokens: 18, total_tokens: 85 },
    });
    const sent = upstream.requests.at(-1)!;
    expect(sent.path).toBe('/ml/v1/text/chat');
    expect(sent.query.get('version')).toBe('2025-02-06');
    expect(sent.json).toMatchObject({ model_id: 'ibm/granite-3-8b-instruct', project_id: PROJECT, max_tokens: 100, tool_choice_option: 'auto' });
    expect(sent.json).not.toHaveProperty('model');
    const iam = upstream.requests.find((request) => request.path === '/identity/token')!;
    expect(new URLSearchParams(iam.body).get('grant_type')).toBe('urn:ibm:params:oauth:grant-type:apikey');

    // token caching: a second call with the same key reuses the token until it expires
    expect((await post('/v1/chat/completions', body)).status).toBe(200);
    expect(iamCalls()).toBe(1);
  });

  it('tools and structured output: the tools and JSON schema go out as watsonx takes them, its tool call comes back as OpenAI\'s', async () => {
    const tools = [{ type: 'function', function: { name: 'get_current_weather', description: 'Current weather', parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] } } }];
    const responseFormat = { type: 'json_schema', json_schema: { name: 'weather', schema: { type: 'object', properties: { location: { type: 'string' } } } } };
    const answered = await post('/v1/chat/completions', { model: 'mistralai/mistral-large', messages: [{ role: 'user', content: 'Weather in Boston?' }], tools, tool_choice: 'auto', response_format: responseFormat });
    expect(answered.status).toBe(200);
    expect(await answered.json()).toMatchObject({
      object: 'chat.completion',
      model: 'mistralai/mistral-large',
      choices: [{ finish_reason: 'tool_calls', message: { tool_calls: [{ type: 'function', function: { name: 'get_current_weather', arguments: '{"location": "Boston, MA", "unit": "fahrenheit"}' } }] } }],
      usage: { prompt_tokens: 19, completion_tokens: 18, total_tokens: 37 },
    });
    expect(upstream.requests.at(-1)!.json).toMatchObject({ model_id: 'mistralai/mistral-large', tools, tool_choice_option: 'auto', response_format: responseFormat });
  });

  it('stream: watsonx chunks become chat.completion.chunk with usage and [DONE]', async () => {
    const answered = await post('/v1/chat/completions', { model: 'ibm/granite-3-8b-instruct', messages: [{ role: 'user', content: 'Hi' }], stream: true, stream_options: { include_usage: true } });
    expect(answered.status).toBe(200);
    const text = await answered.text();
    const chunks = text.split('\n').filter((line) => line.startsWith('data: {')).map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk' && chunk.model === 'ibm/granite-3-8b-instruct')).toBe(true);
    expect(chunks.map((chunk) => (chunk.choices as Array<{ delta?: { content?: string } }>)[0]?.delta?.content ?? '').join('')).toBe('About 7,800 km.');
    expect(chunks.find((chunk) => chunk.usage)?.usage).toMatchObject({ prompt_tokens: 40, completion_tokens: 6 });
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect(upstream.requests.at(-1)?.path).toBe('/ml/v1/text/chat_stream');
  });

  it('embeddings: inputs and model_id out, OpenAI’s list with prompt_tokens back; a space id instead of a project', async () => {
    const answered = await post('/v1/embeddings', { model: 'ibm/slate-125m-english-rtrvr-v2', input: ['a', 'b'], encoding_format: 'float' }, { 'x-gw-watsonx-project-id': '', 'x-gw-watsonx-space-id': PROJECT });
    expect(answered.status).toBe(200);
    expect(await answered.json()).toMatchObject({ object: 'list', data: [{ index: 0, embedding: [-0.006929283, -0.005336422] }, { index: 1 }], usage: { prompt_tokens: 11 } });
    expect(upstream.requests.at(-1)?.json).toEqual({ inputs: ['a', 'b'], model_id: 'ibm/slate-125m-english-rtrvr-v2', space_id: PROJECT });
  });

  it('provider error shape: watsonx {errors:[…]} keeps its status, code and message, with the trace id', async () => {
    const answered = await post('/v1/chat/completions', { model: 'ibm/granite-nope', messages: [{ role: 'user', content: 'Hi' }] });
    expect(answered.status).toBe(404);
    const { error } = (await answered.json()) as { error: { code: string; message: string; provider_error: unknown } };
    expect(error.code).toBe('model_not_supported');
    expect(error.message).toContain("Model 'ibm/granite-nope' is not supported");
    expect(error.message).toContain('3fd543d2c8a1e7e2b8f0bd4b51c8a3a4');
    expect(error.provider_error).toMatchObject({ status_code: 404 });
  });

  it('missing or malformed coordinates are 400s naming the header, before any upstream call', async () => {
    const count = upstream.requests.length;
    const missing = await post('/v1/chat/completions', { model: 'ibm/granite-3-8b-instruct', messages: [{ role: 'user', content: 'Hi' }] }, { 'x-gw-watsonx-project-id': '' });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: { code: string; param: string } }).error).toMatchObject({ code: 'missing_account', param: 'x-gw-watsonx-project-id' });
    const region = await post('/v1/chat/completions', { model: 'm', messages: [{ role: 'user', content: 'Hi' }] }, { 'x-gw-watsonx-region': 'evil.example.com/' });
    expect(region.status).toBe(400);
    expect(((await region.json()) as { error: { param: string } }).error.param).toBe('x-gw-watsonx-region');
    expect(upstream.requests.length).toBe(count);
  });

  it('a refused API key is a 401 that names IAM and never echoes the key', async () => {
    const answered = await post('/v1/chat/completions', { model: 'ibm/granite-3-8b-instruct', messages: [{ role: 'user', content: 'Hi' }] }, { authorization: 'Bearer ibm-bad-key' });
    expect(answered.status).toBe(401);
    const text = await answered.text();
    expect(text).toContain('BXNIM0415E');
    expect(text).not.toContain('ibm-bad-key');
  });

  it('/v1/models lists the priced watsonx models, and a media provider’s models, under their slugs', async () => {
    const list = async (provider: string) => {
      const response = await fetch(`${gateway.url}/v1/models?provider=${provider}`, { headers: { 'x-gw-api-key': gateway.apiKey } });
      expect(response.status).toBe(200);
      return ((await response.json()) as { data: Array<{ id: string; owned_by: string }> }).data;
    };
    expect(await list('watsonx')).toEqual(expect.arrayContaining([expect.objectContaining({ id: 'ibm/granite-3-8b-instruct', owned_by: 'watsonx' })]));
    expect((await list('deepgram')).map((model) => model.id)).toContain('nova-3');
  });
});
