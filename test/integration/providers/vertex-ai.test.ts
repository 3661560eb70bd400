import { decodeProtectedHeader, exportPKCS8, exportSPKI, generateKeyPair, importSPKI, jwtVerify } from 'jose';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { awkwardCuts, cutAt, fixtureBytes, fixtureJson, geminiMockHandler, readSse } from '../../fixtures/google/mock-gemini.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import { type MockHandler, type MockUpstream, type RecordedRequest } from '../../support/mock-upstream.js';

let gateway: TestGateway;
let upstream: MockUpstream;
useGatewayWithUpstream(vertexMockHandler(), (started) => ({ gateway, upstream } = started));

const ACCESS_TOKEN = 'ya29.a0-test-access-token';
const PREFIX = '/v1/projects/my-project/locations/us-central1/publishers';
const viaMock = (extra: Record<string, string> = {}) => ({
  'x-gw-provider': 'vertex-ai',
  'x-gw-vertex-project-id': 'my-project',
  'x-gw-vertex-region': 'us-central1',
  'x-gw-custom-host': upstream.url,
  authorization: `Bearer ${ACCESS_TOKEN}`,
  ...extra,
});
const chat = (model = 'gemini-2.5-pro') => ({ model, messages: [{ role: 'user', content: 'Say hello' }] });

/** Gemini answers for Google models, Anthropic answers for rawPredict / streamRawPredict, tokens on /token. */
function vertexMockHandler(options: { streamFixture?: string } = {}): MockHandler {
  const gemini = geminiMockHandler(options);
  let issued = 0;
  return (request: RecordedRequest) => {
    if (request.path === '/token') return { json: { access_token: `ya29.from-service-account-${++issued}`, expires_in: 3599, token_type: 'Bearer' } };
    if (request.path.endsWith(':streamRawPredict')) {
      const bytes = fixtureBytes('vertex-anthropic-stream.sse');
      return { chunks: cutAt(bytes, awkwardCuts(bytes)), chunkDelayMs: 1 };
    }
    if (request.path.endsWith(':rawPredict')) {
      return {
        json: {
          id: 'msg_vrtx_01',
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-20250514',
          content: [{ type: 'text', text: 'Hello from Claude on Vertex' }],
          stop_reason: 'end_turn',
          stop_sequence: null,
          usage: { input_tokens: 10, output_tokens: 7 },
        },
      };
    }
    return gemini(request);
  };
}

async function expectError(response: Response, status: number, code: string, param?: string | null) {
  expect(response.status).toBe(status);
  const body = (await response.json()) as { error: { message: string; type: string; code: string; param: string | null; provider_error?: unknown }; status: string };
  expect(body.status).toBe('failure');
  expect(body.error.code).toBe(code);
  expect(body.error.message.length).toBeGreaterThan(0);
  if (param !== undefined) expect(body.error.param).toBe(param);
  return body;
}

describe('Vertex AI Gemini through the gateway', () => {
  it('calls generateContent on the project/region path with the access token as it was given', async () => {
    upstream.setHandler(vertexMockHandler());
    const response = await gateway.post('/v1/chat/completions', chat(), viaMock());
    expect(response.status).toBe(200);
    expect(response.headers.get('x-gw-provider')).toBe('vertex-ai');
    const body = (await response.json()) as { choices: Array<{ message: { content: string } }> };
    expect(body.choices[0].message.content).toMatch(/^Occam's razor/);
    const seen = upstream.requests.at(-1)!;
    expect(seen.path).toBe(`${PREFIX}/google/models/gemini-2.5-pro:generateContent`);
    expect(seen.headers.authorization).toBe(`Bearer ${ACCESS_TOKEN}`);
    expect(seen.json).toEqual({ contents: [{ role: 'user', parts: [{ text: 'Say hello' }] }] });
  });

  it('streams Gemini SSE cut mid-UTF-8 and mid-event into OpenAI chunks ending in [DONE]', async () => {
    upstream.setHandler(vertexMockHandler({ streamFixture: 'stream-text.sse' }));
    const response = await gateway.post('/v1/chat/completions', { ...chat(), stream: true, stream_options: { include_usage: true } }, viaMock());
    expect(response.status).toBe(200);
    const events = await readSse(response);
    expect(events.at(-1)).toEqual({ data: '[DONE]' });
    const chunks = events.slice(0, -1).map((event) => JSON.parse(event.data) as { choices: Array<{ delta: { content?: string } }>; usage?: unknown });
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe('Grüß dich! 👋 Schön, dass du da bist — wie kann ich helfen? 你好！');
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { total_tokens: 68 } });
    const seen = upstream.requests.at(-1)!;
    expect(seen.path).toBe(`${PREFIX}/google/models/gemini-2.5-pro:streamGenerateContent`);
    expect(seen.query.get('alt')).toBe('sse');
  });

  it('ends the stream with an SSE error event on an in-stream Gemini error', async () => {
    upstream.setHandler(vertexMockHandler({ streamFixture: 'stream-error-after-content.sse' }));
    const events = await readSse(await gateway.post('/v1/chat/completions', { ...chat(), stream: true }, viaMock()));
    expect(events.at(-1)!.event).toBe('error');
    expect(JSON.parse(events.at(-1)!.data)).toMatchObject({ error: { code: 'unavailable' }, status: 'failure' });
  });

  it('embeds through :predict', async () => {
    upstream.setHandler(vertexMockHandler());
    const response = await gateway.post('/v1/embeddings', { model: 'text-embedding-005', input: ['a', 'b'] }, viaMock());
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: Array<{ embedding: number[] }>; usage: { prompt_tokens: number } };
    expect(body.data).toHaveLength(2);
    expect(body.usage.prompt_tokens).toBe(10);
    expect(upstream.requests.at(-1)!.path).toBe(`${PREFIX}/google/models/text-embedding-005:predict`);
  });

  it('passes a Google permission error through with its status', async () => {
    const denied = { error: { code: 403, message: "Permission 'aiplatform.endpoints.predict' denied on resource", status: 'PERMISSION_DENIED' } };
    upstream.setHandler(() => ({ status: 403, json: denied }));
    const body = await expectError(await gateway.post('/v1/chat/completions', chat(), viaMock()), 403, 'permission_denied');
    expect(body.error.provider_error).toEqual(denied);
    expect(JSON.stringify(body)).not.toContain(ACCESS_TOKEN);
  });

  it.each([
    ['x-gw-vertex-project-id', 'missing_vertex_project'],
    ['x-gw-vertex-region', 'missing_vertex_region'],
  ])('refuses a call without %s with a 400 naming it', async (header, code) => {
    const headers = viaMock();
    delete (headers as Record<string, string>)[header];
    const before = upstream.requests.length;
    await expectError(await gateway.post('/v1/chat/completions', chat(), headers), 400, code, header);
    expect(upstream.requests.length).toBe(before);
  });

  it('refuses an unsupported parameter with a 400, and drops it on request', async () => {
    upstream.setHandler(vertexMockHandler());
    await expectError(await gateway.post('/v1/chat/completions', { ...chat(), top_logprobs: 3 }, viaMock()), 400, 'unsupported_parameter', 'top_logprobs');
    const dropped = await gateway.post('/v1/chat/completions', { ...chat(), top_logprobs: 3 }, viaMock({ 'x-gw-drop-unsupported-params': 'true' }));
    expect(dropped.status).toBe(200);
  });
});

describe('Claude on Vertex AI through the gateway', () => {
  it('routes by the spec headers (cloudb, X-CloudB-LLM-Request-Type) to rawPredict with a Messages body', async () => {
    upstream.setHandler(vertexMockHandler());
    const response = await gateway.post('/v1/chat/completions', { ...chat('claude-sonnet-4@20250514'), max_tokens: 64 }, {
      'x-gw-provider': 'cloudb',
      'x-gw-cloudb-project-id': 'my-project',
      'x-gw-cloudb-region': 'us-central1',
      'x-cloudb-llm-request-type': 'anthropic',
      'x-gw-custom-host': upstream.url,
      authorization: `Bearer ${ACCESS_TOKEN}`,
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { choices: Array<{ message: { content: string } }>; usage: { total_tokens: number } };
    expect(body.choices[0].message.content).toBe('Hello from Claude on Vertex');
    expect(body.usage.total_tokens).toBe(17);
    const seen = upstream.requests.at(-1)!;
    expect(seen.path).toBe(`${PREFIX}/anthropic/models/claude-sonnet-4@20250514:rawPredict`);
    expect(seen.json).toMatchObject({ anthropic_version: 'vertex-2023-10-16', max_tokens: 64 });
    expect((seen.json as Record<string, unknown>).model).toBeUndefined();
  });

  it('streams streamRawPredict (Anthropic SSE, cut mid-UTF-8) into OpenAI chunks', async () => {
    upstream.setHandler(vertexMockHandler());
    const events = await readSse(await gateway.post('/v1/chat/completions', { ...chat('claude-sonnet-4@20250514'), stream: true }, viaMock()));
    expect(events.at(-1)).toEqual({ data: '[DONE]' });
    const text = events
      .slice(0, -1)
      .map((event) => (JSON.parse(event.data) as { choices: Array<{ delta: { content?: string } }> }).choices[0]?.delta.content ?? '')
      .join('');
    expect(text).toBe('Grüße aus Vertex 🌍');
    expect(upstream.requests.at(-1)!.path).toBe(`${PREFIX}/anthropic/models/claude-sonnet-4@20250514:streamRawPredict`);
  });
});

describe('tool calling end to end with the openai SDK (Vertex AI)', () => {
  it('reassembles two parallel streamed function calls into valid JSON arguments', async () => {
    upstream.setHandler(vertexMockHandler({ streamFixture: 'stream-parallel-tool-calls.sse' }));
    const { authorization: _authorization, ...gwHeaders } = viaMock();
    const client = new OpenAI({ apiKey: ACCESS_TOKEN, baseURL: `${gateway.url}/v1`, defaultHeaders: { 'x-gw-api-key': gateway.apiKey, ...gwHeaders } });
    const completion = await client.chat.completions
      .stream({
        model: 'gemini-2.5-flash',
        messages: [{ role: 'user', content: 'Weather and local time in São Paulo?' }],
        tools: [
          { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { location: { type: 'string' }, unit: { type: 'string' } } } } },
          { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: { timezone: { type: 'string' }, format: { type: 'string' } } } } },
        ],
        tool_choice: 'required',
      })
      .finalChatCompletion();
    const calls = completion.choices[0].message.tool_calls ?? [];
    expect(completion.choices[0].finish_reason).toBe('tool_calls');
    expect(calls.map((call) => (call.type === 'function' ? [call.function.name, JSON.parse(call.function.arguments)] : null))).toEqual([
      ['get_weather', { location: 'São Paulo', unit: 'celsius' }],
      ['get_time', { timezone: 'America/Sao_Paulo', format: '24h' }],
    ]);
    const seen = upstream.requests.at(-1)!;
    expect(seen.headers.authorization).toBe(`Bearer ${ACCESS_TOKEN}`);
    expect(seen.json).toMatchObject({ toolConfig: { functionCallingConfig: { mode: 'ANY' } } });
  });
});

describe('service account credentials (inline config)', () => {
  it('exchanges the service account for a token once, sends it as Bearer, and reuses it', async () => {
    const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
    const serviceAccount = JSON.stringify({
      type: 'service_account',
      project_id: 'my-project',
      private_key_id: 'sa-key-1',
      private_key: await exportPKCS8(privateKey),
      client_email: 'gw-it@my-project.iam.gserviceaccount.com',
      token_uri: `${upstream.url}/token`,
    });
    const config = JSON.stringify({
      provider: 'vertex-ai',
      custom_host: upstream.url,
      vertex_project_id: 'my-project',
      vertex_region: 'us-central1',
      vertex_service_account_json: serviceAccount,
    });
    upstream.setHandler(vertexMockHandler());
    const before = upstream.requests.length;
    const first = await gateway.post('/v1/chat/completions', chat(), { 'x-gw-config': config });
    expect(first.status).toBe(200);
    const second = await gateway.post('/v1/chat/completions', chat(), { 'x-gw-config': config });
    expect(second.status).toBe(200);

    const seen = upstream.requests.slice(before);
    const tokenCalls = seen.filter((request) => request.path === '/token');
    const modelCalls = seen.filter((request) => request.path.endsWith(':generateContent'));
    expect(tokenCalls).toHaveLength(1);
    expect(modelCalls.map((request) => request.headers.authorization)).toEqual(['Bearer ya29.from-service-account-1', 'Bearer ya29.from-service-account-1']);
    const assertion = new URLSearchParams(tokenCalls[0].body).get('assertion')!;
    expect(decodeProtectedHeader(assertion).kid).toBe('sa-key-1');
    const { payload } = await jwtVerify(assertion, await importSPKI(await exportSPKI(publicKey), 'RS256'), {
      issuer: 'gw-it@my-project.iam.gserviceaccount.com',
      audience: `${upstream.url}/token`,
    });
    expect(payload.scope).toBe('https://www.googleapis.com/auth/cloud-platform');
  });

  it('answers 401 without leaking the key when the token endpoint refuses the grant', async () => {
    const { privateKey } = await generateKeyPair('RS256', { extractable: true });
    const pem = await exportPKCS8(privateKey);
    const config = JSON.stringify({
      provider: 'vertex-ai',
      custom_host: upstream.url,
      vertex_project_id: 'my-project',
      vertex_region: 'us-central1',
      vertex_service_account_json: JSON.stringify({ type: 'service_account', private_key: pem, client_email: 'revoked@my-project.iam.gserviceaccount.com', token_uri: `${upstream.url}/token` }),
    });
    upstream.setHandler((request) => (request.path === '/token' ? { status: 400, json: { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' } } : { json: fixtureJson('generate-content-text.json') }));
    const body = await expectError(await gateway.post('/v1/chat/completions', chat(), { 'x-gw-config': config }), 401, 'vertex_token_exchange_failed');
    expect(body.error.message).toContain('invalid_grant');
    expect(JSON.stringify(body)).not.toContain('PRIVATE KEY');
  });
});
