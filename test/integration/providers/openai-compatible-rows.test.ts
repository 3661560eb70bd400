import { describe, expect, it } from 'vitest';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import { defaultPrice } from '../../../shared/observability/pricing/default-prices.js';
import { OPENAI_COMPATIBLE_PROVIDERS } from '../../../shared/providers/openai-compatible/catalog.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import { sse, type MockUpstream } from '../../support/mock-upstream.js';
import { requestLogsOfTrace } from '../../support/request-logs.js';

// Issue #47: every OpenAI-compatible row (the hosted providers, the per-account ones, the self-hosted servers) through
// the real local gw over HTTP against a mock provider at x-gw-custom-host. One table-driven case per behaviour the
// rows share: tools and structured output reach the provider as the client wrote them, the answer's tool calls and
// its usage (cached and reasoning tokens) come back and are metered, a stream of tool-call deltas is relayed with its
// usage, and an OpenAI-style error keeps its status, message and body. Each row's own quirk (auth header, fixed
// query, where its stream usage sits) is asserted by the same cases, from the row's documented behaviour.

let gateway: TestGateway;
let upstream: MockUpstream;
useGatewayWithUpstream(
  () => ({ status: 500, json: {} }),
  (started) => ({ gateway, upstream } = started),
);

const ROWS = OPENAI_COMPATIBLE_PROVIDERS.filter((row) => row.endpoints.includes('chat')).map((row) => [row.slug, row] as const);

const TOOLS = [{ type: 'function', function: { name: 'get_weather', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }, strict: true } }];
const RESPONSE_FORMAT = { type: 'json_schema', json_schema: { name: 'weather', strict: true, schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false } } };
const REQUEST = { model: 'some-model', messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: TOOLS, tool_choice: 'auto', parallel_tool_calls: false, response_format: RESPONSE_FORMAT, temperature: 0.2 };
const TOOL_CALL = { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } };

function headers(slug: string, trace: string): Record<string, string> {
  return { 'x-gw-provider': slug, 'x-gw-custom-host': `${upstream.url}/v1`, authorization: 'Bearer provider-token', 'x-gw-trace-id': trace, 'x-gw-config': JSON.stringify({ retry: { attempts: 0 } }) };
}

/** The row's documented credential header and fixed query, as the mock must see them. */
function expectAuth(row: (typeof OPENAI_COMPATIBLE_PROVIDERS)[number]): void {
  const seen = upstream.requests.at(-1)!;
  if (row.authHeader) {
    expect(seen.headers[row.authHeader]).toBe('provider-token');
    expect(seen.headers.authorization).toBeUndefined();
  } else {
    expect(seen.headers.authorization).toBe('Bearer provider-token');
  }
  for (const [name, value] of Object.entries(row.query ?? {})) expect(seen.query.get(name)).toBe(value);
}

async function loggedCost(trace: string): Promise<number | null | undefined> {
  await drainAllBackgroundWork();
  return (await requestLogsOfTrace(trace))[0]?.cost;
}

/** What the shipped price data charges for these tokens (cached input at the model's cache-read rate). */
function priceOf(provider: string, model: string, input: number, output: number, cachedInput: number): number {
  return defaultPrice(provider, model)!.cost({ input, output, cachedInput, cacheWrite: 0, reasoning: 0, total: input + output });
}

async function loggedUsage(trace: string): Promise<Record<string, unknown> | null | undefined> {
  await drainAllBackgroundWork();
  return (await requestLogsOfTrace(trace))[0]?.usage as Record<string, unknown> | null | undefined;
}

describe('every OpenAI-compatible row through gw (recorded fixtures, issue #47)', () => {
  it.each(ROWS)('tools and structured output: %s gets them as written, its tool calls and cached/reasoning usage come back and are logged', async (slug, row) => {
    upstream.setHandler(() => ({
      json: {
        id: 'chatcmpl-1', object: 'chat.completion', created: 1735120033, model: 'some-model',
        choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [TOOL_CALL] }, finish_reason: 'tool_calls' }],
        usage: { prompt_tokens: 120, completion_tokens: 40, total_tokens: 160, prompt_tokens_details: { cached_tokens: 64 }, completion_tokens_details: { reasoning_tokens: 25 } },
      },
    }));
    const trace = `rows-json-${slug}`;
    const response = await gateway.post('/v1/chat/completions', REQUEST, headers(slug, trace));
    const body = (await response.json()) as { choices: Array<{ message: { tool_calls: unknown[] }; finish_reason: string }>; usage: Record<string, unknown> };
    expect(response.status).toBe(200);
    expect(upstream.requests.at(-1)!.path).toBe('/v1/chat/completions');
    expect(upstream.requests.at(-1)!.json).toEqual(REQUEST);
    expectAuth(row);
    expect(body.choices[0]).toMatchObject({ finish_reason: 'tool_calls', message: { tool_calls: [TOOL_CALL] } });
    expect(body.usage).toMatchObject({ prompt_tokens_details: { cached_tokens: 64 }, completion_tokens_details: { reasoning_tokens: 25 } });
    expect(await loggedUsage(trace)).toMatchObject({ prompt_tokens: 120, completion_tokens: 40, cached_tokens: 64, reasoning_tokens: 25 });
  });

  it.each(ROWS)('stream with tool calls: %s streams tool-call deltas, usage where the row reports it, and [DONE]', async (slug, row) => {
    const base = { id: 'chatcmpl-2', object: 'chat.completion.chunk', created: 1, model: 'some-model' };
    const usage = { prompt_tokens: 30, completion_tokens: 12, total_tokens: 42, completion_tokens_details: { reasoning_tokens: 5 } };
    upstream.setHandler(() => ({
      chunks: sse(
        { ...base, choices: [{ index: 0, delta: { role: 'assistant', tool_calls: [{ index: 0, ...TOOL_CALL, function: { name: 'get_weather', arguments: '' } }] }, finish_reason: null }] },
        { ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"city":"Paris"}' } }] }, finish_reason: null }] },
        // Rows that take stream_options send usage in a last chunk without choices; the others in their finish chunk
        // (Moonshot inside the finish choice itself).
        row.acceptsStreamOptions
          ? { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] }
          : { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls', ...(row.usageInChoice ? { usage } : {}) }], ...(row.usageInChoice ? {} : { usage }) },
        ...(row.acceptsStreamOptions ? [{ ...base, choices: [], usage }] : []),
        '[DONE]',
      ),
    }));
    const trace = `rows-stream-${slug}`;
    const response = await gateway.post('/v1/chat/completions', { ...REQUEST, stream: true, stream_options: { include_usage: true } }, headers(slug, trace));
    const text = await response.text();
    expect(response.status).toBe(200);
    expectAuth(row);
    expect(upstream.requests.at(-1)!.headers.accept).toBe('text/event-stream');
    const chunks = text.split('\n\n').filter((event) => event.startsWith('data: {')).map((event) => JSON.parse(event.slice(6)) as Record<string, unknown>);
    const toolDeltas = chunks.flatMap((chunk) => ((chunk.choices as Array<{ delta?: { tool_calls?: Array<{ function: { arguments: string } }> } }>) ?? []).flatMap((choice) => choice.delta?.tool_calls ?? []));
    expect(toolDeltas.map((delta) => delta.function.arguments).join('')).toBe('{"city":"Paris"}');
    expect(chunks.find((chunk) => chunk.usage)?.usage).toMatchObject({ total_tokens: 42, completion_tokens_details: { reasoning_tokens: 5 } });
    expect(text.trim().endsWith('data: [DONE]')).toBe(true);
    expect(await loggedUsage(trace)).toMatchObject({ prompt_tokens: 30, completion_tokens: 12, reasoning_tokens: 5 });
  });

  it.each(ROWS)('error shape: %s\'s OpenAI-style 400 keeps its status, message, code and param, and the provider body', async (slug) => {
    const providerError = { error: { message: "Invalid 'tools[0].function.name'", type: 'invalid_request_error', code: 'invalid_value', param: 'tools[0].function.name' } };
    upstream.setHandler(() => ({ status: 400, json: providerError }));
    const response = await gateway.post('/v1/chat/completions', REQUEST, headers(slug, `rows-error-${slug}`));
    const body = (await response.json()) as { error: Record<string, unknown> };
    expect(response.status).toBe(400);
    expect(body.error).toMatchObject({ message: expect.stringContaining("Invalid 'tools[0].function.name'"), code: 'invalid_value', param: 'tools[0].function.name', provider_error: providerError });
  });
});

const EMBEDDING_ROWS = OPENAI_COMPATIBLE_PROVIDERS.filter((row) => row.endpoints.includes('embeddings')).map((row) => [row.slug, row] as const);
const COMPLETION_ROWS = OPENAI_COMPATIBLE_PROVIDERS.filter((row) => row.endpoints.includes('completions')).map((row) => [row.slug, row] as const);

describe('embeddings and completions of the rows that serve them (issue #47)', () => {
  it.each(EMBEDDING_ROWS)('embeddings: %s gets /embeddings as sent, its list and usage come back and are logged', async (slug, row) => {
    upstream.setHandler(() => ({ json: { object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.1, -0.2] }, { object: 'embedding', index: 1, embedding: [0.3, 0.4] }], model: 'embed-model', usage: { prompt_tokens: 7, total_tokens: 7 } } }));
    const request = { model: 'embed-model', input: ['first', 'second'], dimensions: 2 };
    const trace = `rows-embeddings-${slug}`;
    const response = await gateway.post('/v1/embeddings', request, headers(slug, trace));
    const body = (await response.json()) as { data: Array<{ embedding: number[] }> };
    expect(response.status).toBe(200);
    expect(upstream.requests.at(-1)!.path).toBe('/v1/embeddings');
    expect(upstream.requests.at(-1)!.json).toEqual(request);
    expectAuth(row);
    expect(body.data.map((item) => item.embedding)).toEqual([[0.1, -0.2], [0.3, 0.4]]);
    expect(await loggedUsage(trace)).toMatchObject({ prompt_tokens: 7 });
  });

  it.each(COMPLETION_ROWS)('completions: %s gets /completions as sent and its text completion comes back', async (slug, row) => {
    upstream.setHandler(() => ({ json: { id: 'cmpl-1', object: 'text_completion', created: 1, model: 'm', choices: [{ index: 0, text: ' world', finish_reason: 'stop', logprobs: null }], usage: { prompt_tokens: 2, completion_tokens: 1, total_tokens: 3 } } }));
    const response = await gateway.post('/v1/completions', { model: 'm', prompt: 'Hello', max_tokens: 5 }, headers(slug, `rows-completions-${slug}`));
    const body = (await response.json()) as { choices: Array<{ text: string }> };
    expect(response.status).toBe(200);
    expect(upstream.requests.at(-1)!.path).toBe('/v1/completions');
    expect(upstream.requests.at(-1)!.json).toEqual({ model: 'm', prompt: 'Hello', max_tokens: 5 });
    expectAuth(row);
    expect(body.choices[0].text).toBe(' world');
  });
});

// A config names providers too (x-gw-config, saved configs): every slug and alias must be accepted there as in the header.
const ROW_NAMES = OPENAI_COMPATIBLE_PROVIDERS.flatMap((row) => [row.slug, ...(row.aliases ?? [])].map((name) => [name, row] as const));

describe('provider names in a config (issue #47)', () => {
  it.each(ROW_NAMES)('config provider: %s in x-gw-config reaches its row with the config\'s key', async (name, row) => {
    upstream.setHandler(() => ({ json: { id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }] } }));
    const config = { provider: name, api_key: 'provider-token', custom_host: `${upstream.url}/v1`, retry: { attempts: 0 } };
    const response = await gateway.post('/v1/chat/completions', { model: 'm', messages: [{ role: 'user', content: 'Hi' }] }, { 'x-gw-config': JSON.stringify(config) });
    expect(response.status, await response.clone().text()).toBe(200);
    expect(response.headers.get('x-gw-provider')).toBe(row.slug);
    expectAuth(row);
  });
});

// Through gw's HTTP edge, with no custom host: a per-account row without its account header is refused before any call.
const ACCOUNT_NAMES = OPENAI_COMPATIBLE_PROVIDERS.filter((row) => row.account).flatMap((row) => [row.slug, ...(row.aliases ?? [])].map((name) => [name, row.account!.header] as const));

describe('per-account rows over HTTP (issue #47)', () => {
  it.each(ACCOUNT_NAMES)('missing account: x-gw-provider %s without %s is a 400 naming the header, and nothing is sent', async (name, header) => {
    const before = upstream.requests.length;
    const response = await gateway.post('/v1/chat/completions', { model: 'm', messages: [{ role: 'user', content: 'Hi' }] }, { 'x-gw-provider': name, authorization: 'Bearer provider-token' });
    const body = (await response.json()) as { error: Record<string, unknown> };
    expect(response.status).toBe(400);
    expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'missing_account', param: header });
    expect(body.error.message).toContain(header);
    expect(upstream.requests.length).toBe(before);
  });
});

// Error bodies in the providers' own shapes (from their API references): the message and code must reach the caller.
const ERROR_SHAPES: Array<[slug: string, status: number, body: unknown, message: string, code: string | undefined]> = [
  ['cloudflare-workers-ai', 401, { success: false, errors: [{ code: 10000, message: 'Authentication error' }], messages: [], result: null }, 'Authentication error', '10000'],
  ['databricks', 400, { error_code: 'BAD_REQUEST', message: 'Invalid model endpoint name' }, 'Invalid model endpoint name', 'BAD_REQUEST'],
  ['ai21', 422, { detail: 'model jamba-x is not supported' }, 'model jamba-x is not supported', undefined],
  ['ai21', 422, { detail: [{ loc: ['body', 'messages'], msg: 'field required', type: 'value_error.missing' }] }, 'field required', undefined],
  ['huggingface', 400, { error: 'Model meta-llama/Nope is not supported by any provider you have enabled.' }, 'not supported by any provider', undefined],
  ['novita-ai', 401, { code: 401, reason: 'INVALID_API_KEY', message: 'invalid api key' }, 'invalid api key', '401'],
  ['snowflake-cortex', 400, { code: '390144', message: 'JWT token is invalid.' }, 'JWT token is invalid.', '390144'],
];

describe('provider error shapes (issue #47)', () => {
  it.each(ERROR_SHAPES)('provider error shape: %s %d keeps the provider\'s own message and code', async (slug, status, providerBody, message, code) => {
    upstream.setHandler(() => ({ status, json: providerBody }));
    const response = await gateway.post('/v1/chat/completions', { model: 'm', messages: [{ role: 'user', content: 'Hi' }] }, headers(slug, `rows-error-shape-${slug}-${status}`));
    const body = (await response.json()) as { error: Record<string, unknown> };
    expect(response.status).toBe(status);
    expect(body.error.message).toContain(message);
    if (code !== undefined) expect(body.error.code).toBe(code);
    expect(body.error.provider_error).toEqual(providerBody);
  });
});

describe('usage field names (issue #47)', () => {
  it('provider usage field names: Moonshot\'s top-level cached_tokens is moved to prompt_tokens_details, answered and logged as cached input', async () => {
    upstream.setHandler(() => ({
      json: {
        id: 'chatcmpl-k', object: 'chat.completion', created: 1, model: 'kimi-k2-0905-preview',
        choices: [{ index: 0, message: { role: 'assistant', content: 'Hello' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 1000, completion_tokens: 10, total_tokens: 1010, cached_tokens: 768 },
      },
    }));
    const response = await gateway.post('/v1/chat/completions', { model: 'kimi-k2-0905-preview', messages: [{ role: 'user', content: 'Hi' }] }, headers('kimi', 'rows-moonshot-cached'));
    const body = (await response.json()) as { usage: Record<string, unknown> };
    expect(response.status).toBe(200);
    expect(body.usage).toMatchObject({ prompt_tokens: 1000, cached_tokens: 768, prompt_tokens_details: { cached_tokens: 768 } });
    expect(await loggedUsage('rows-moonshot-cached')).toMatchObject({ prompt_tokens: 1000, cached_tokens: 768 });
    // Kimi's cached input costs a quarter of its uncached input: the log's cost is the cached price, not the full one.
    const cached = priceOf('moonshot', 'kimi-k2-0905-preview', 1000, 10, 768);
    expect(cached).toBeLessThan(priceOf('moonshot', 'kimi-k2-0905-preview', 1000, 10, 0));
    expect(await loggedCost('rows-moonshot-cached')).toBeCloseTo(cached, 10);
  });

  it('provider usage field names: DeepSeek\'s prompt_cache_hit_tokens (JSON and stream) become cached input, beside its reasoning tokens', async () => {
    const usage = { prompt_tokens: 2000, completion_tokens: 300, total_tokens: 2300, prompt_cache_hit_tokens: 1920, prompt_cache_miss_tokens: 80, completion_tokens_details: { reasoning_tokens: 250 } };
    upstream.setHandler(() => ({
      json: { id: 'd1', object: 'chat.completion', created: 1, model: 'deepseek-reasoner', choices: [{ index: 0, message: { role: 'assistant', content: '42', reasoning_content: 'think' }, finish_reason: 'stop' }], usage },
    }));
    const response = await gateway.post('/v1/chat/completions', { model: 'deepseek-reasoner', messages: [{ role: 'user', content: 'Hi' }] }, headers('deepseek', 'rows-deepseek-cached'));
    const body = (await response.json()) as { usage: Record<string, unknown>; choices: Array<{ message: Record<string, unknown> }> };
    expect(body.usage).toMatchObject({ prompt_cache_hit_tokens: 1920, prompt_tokens_details: { cached_tokens: 1920 } });
    expect(body.choices[0].message.reasoning_content).toBe('think');
    expect(await loggedUsage('rows-deepseek-cached')).toMatchObject({ prompt_tokens: 2000, cached_tokens: 1920, reasoning_tokens: 250 });
    expect(await loggedCost('rows-deepseek-cached')).toBeCloseTo(priceOf('deepseek', 'deepseek-reasoner', 2000, 300, 1920), 10);

    const base = { id: 'd2', object: 'chat.completion.chunk', created: 1, model: 'deepseek-chat' };
    upstream.setHandler(() => ({ chunks: sse({ ...base, choices: [{ index: 0, delta: { content: 'x' }, finish_reason: 'stop' }] }, { ...base, choices: [], usage }, '[DONE]') }));
    const streamed = await gateway.post('/v1/chat/completions', { model: 'deepseek-chat', messages: [{ role: 'user', content: 'Hi' }], stream: true }, headers('deepseek', 'rows-deepseek-stream'));
    await streamed.text();
    expect(await loggedUsage('rows-deepseek-stream')).toMatchObject({ cached_tokens: 1920 });
  });

  it('provider usage field names: a Moonshot stream\'s usage (inside its finish choice, cached_tokens beside the totals) is metered with its cached input', async () => {
    const base = { id: 'chatcmpl-ks', object: 'chat.completion.chunk', created: 1, model: 'kimi-k2-0905-preview' };
    upstream.setHandler(() => ({
      chunks: sse(
        { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: 'Hi' }, finish_reason: null }] },
        { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop', usage: { prompt_tokens: 500, completion_tokens: 3, total_tokens: 503, cached_tokens: 256 } }] },
        '[DONE]',
      ),
    }));
    const response = await gateway.post('/v1/chat/completions', { model: 'kimi-k2-0905-preview', messages: [{ role: 'user', content: 'Hi' }], stream: true, stream_options: { include_usage: true } }, headers('moonshot', 'rows-moonshot-stream'));
    const text = await response.text();
    expect(text).toContain('"prompt_tokens_details":{"cached_tokens":256}');
    expect(await loggedUsage('rows-moonshot-stream')).toMatchObject({ prompt_tokens: 500, cached_tokens: 256 });
  });
});
