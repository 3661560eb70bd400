import { describe, expect, it } from 'vitest';
import { findProvider } from '../../../../shared/providers/registry.js';
import type { AdapterInput, Endpoint } from '../../../../shared/providers/types.js';

// Issue #47: the hosted OpenAI-compatible providers. Each must be reachable by `x-gw-provider` alone: its default
// host (from the provider's API reference), its Bearer auth, and its stream usage handled as the provider does it.

const HOSTS: Record<string, { base: string; endpoints: Endpoint[]; streamOptions: boolean; alias?: string }> = {
  huggingface: { base: 'https://router.huggingface.co/v1', endpoints: ['chat'], streamOptions: true, alias: 'hf' },
  'github-models': { base: 'https://models.github.ai/inference', endpoints: ['chat', 'embeddings'], streamOptions: true },
  'nvidia-nim': { base: 'https://integrate.api.nvidia.com/v1', endpoints: ['chat', 'completions', 'embeddings'], streamOptions: true, alias: 'nvidia' },
  sambanova: { base: 'https://api.sambanova.ai/v1', endpoints: ['chat', 'embeddings'], streamOptions: true },
  nebius: { base: 'https://api.tokenfactory.nebius.com/v1', endpoints: ['chat', 'completions', 'embeddings'], streamOptions: true },
  'novita-ai': { base: 'https://api.novita.ai/v3/openai', endpoints: ['chat', 'completions', 'embeddings'], streamOptions: true, alias: 'novita' },
  hyperbolic: { base: 'https://api.hyperbolic.xyz/v1', endpoints: ['chat', 'completions'], streamOptions: true },
  lambda: { base: 'https://api.lambda.ai/v1', endpoints: ['chat', 'completions'], streamOptions: true },
  moonshot: { base: 'https://api.moonshot.ai/v1', endpoints: ['chat'], streamOptions: false, alias: 'kimi' },
  dashscope: { base: 'https://dashscope-intl.aliyuncs.com/compatible-mode/v1', endpoints: ['chat', 'embeddings'], streamOptions: true, alias: 'qwen' },
  'dashscope-cn': { base: 'https://dashscope.aliyuncs.com/compatible-mode/v1', endpoints: ['chat', 'embeddings'], streamOptions: true },
  zhipu: { base: 'https://open.bigmodel.cn/api/paas/v4', endpoints: ['chat', 'embeddings'], streamOptions: false, alias: 'glm' },
  minimax: { base: 'https://api.minimax.io/v1', endpoints: ['chat'], streamOptions: false },
  ai21: { base: 'https://api.ai21.com/studio/v1', endpoints: ['chat'], streamOptions: false },
};

const PATHS: Partial<Record<Endpoint, string>> = { chat: '/chat/completions', completions: '/completions', embeddings: '/embeddings' };

function input(slug: string, endpoint: Endpoint, stream: boolean): AdapterInput {
  const body = endpoint === 'embeddings' ? { model: 'm', input: 'hi' } : endpoint === 'completions' ? { model: 'm', prompt: 'hi' } : { model: 'm', messages: [{ role: 'user', content: 'hi' }] };
  return { endpoint, body: stream ? { ...body, stream: true } : body, stream, target: { provider: slug, apiKey: 'tok-1' }, forwardHeaders: {} };
}

describe('hosted OpenAI-compatible providers (issue #47)', () => {
  it.each(Object.entries(HOSTS))('default host: %s is a registered slug that serves its documented endpoints', (slug, expected) => {
    const entry = findProvider(slug);
    expect(entry?.slug).toBe(slug);
    expect([...entry!.endpoints]).toEqual(expected.endpoints);
    if (expected.alias) expect(findProvider(expected.alias)?.slug).toBe(slug);
  });

  it.each(Object.entries(HOSTS))('default host and auth: %s builds {base}{path} with a Bearer token per endpoint', async (slug, expected) => {
    const adapter = await findProvider(slug)!.load();
    for (const endpoint of expected.endpoints) {
      const call = await adapter.buildCall(input(slug, endpoint, false));
      expect(call.url).toBe(expected.base + PATHS[endpoint]!);
      expect(call.headers.authorization).toBe('Bearer tok-1');
      expect(call.headers['content-type']).toBe('application/json');
    }
  });

  it.each(Object.entries(HOSTS))('stream usage quirk: %s gets stream_options only where the provider accepts it', async (slug, expected) => {
    const adapter = await findProvider(slug)!.load();
    const call = await adapter.buildCall(input(slug, 'chat', true));
    const body = JSON.parse(call.body as string) as Record<string, unknown>;
    expect(body.stream_options).toEqual(expected.streamOptions ? { include_usage: true } : undefined);
    expect(call.headers.accept).toBe('text/event-stream');
  });

  it('custom host overrides the default host of a hosted provider', async () => {
    const adapter = await findProvider('sambanova')!.load();
    const call = await adapter.buildCall({ ...input('sambanova', 'chat', false), target: { provider: 'sambanova', apiKey: 'k', customHost: 'http://127.0.0.1:9/v1/' } });
    expect(call.url).toBe('http://127.0.0.1:9/v1/chat/completions');
  });

  it('error shape: a Zhipu-style {error:{code,message}} and a Novita-style {code,reason,message} map to gw fields', async () => {
    const zhipu = await findProvider('zhipu')!.load();
    expect(zhipu.toOpenAIError(429, { error: { code: '1302', message: 'High concurrency usage' } })).toMatchObject({ message: 'High concurrency usage' });
    const novita = await findProvider('novita-ai')!.load();
    expect(novita.toOpenAIError(401, { code: 401, reason: 'INVALID_API_KEY', message: 'invalid api key' }).message).toContain('invalid api key');
  });

  it('stream fixture: a Zhipu stream that ends with usage in its last chunk and [DONE] is relayed chunk by chunk', async () => {
    const translator = (await findProvider('zhipu')!.load()).createStreamTranslator(input('zhipu', 'chat', true));
    const text = [
      'data: {"id":"1","created":1,"model":"glm-4.6","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"}}]}',
      'data: {"id":"1","created":1,"model":"glm-4.6","choices":[{"index":0,"finish_reason":"stop","delta":{"role":"assistant","content":""}}],"usage":{"prompt_tokens":8,"completion_tokens":2,"total_tokens":10,"prompt_tokens_details":{"cached_tokens":4}}}',
      'data: [DONE]',
      '',
    ].join('\n\n');
    const events = [...translator.push(new TextEncoder().encode(text)), ...translator.end()];
    expect(events.map((event) => event.type)).toEqual(['chunk', 'chunk', 'done']);
    const last = events[1];
    expect(last.type === 'chunk' && last.chunk.usage).toMatchObject({ prompt_tokens_details: { cached_tokens: 4 } });
  });

  it('stream usage quirk: Moonshot\'s usage inside its last choice is moved to the chunk, where the meter reads it', async () => {
    const translator = (await findProvider('kimi')!.load()).createStreamTranslator(input('moonshot', 'chat', true));
    const text = [
      'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"kimi-k2","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}',
      'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"kimi-k2","choices":[{"index":0,"delta":{},"finish_reason":"stop","usage":{"prompt_tokens":19,"completion_tokens":13,"total_tokens":32,"cached_tokens":8}}]}',
      'data: [DONE]',
      '',
    ].join('\n\n');
    const events = [...translator.push(new TextEncoder().encode(text)), ...translator.end()];
    expect(events.map((event) => event.type)).toEqual(['chunk', 'chunk', 'done']);
    const [first, last] = events;
    expect(first.type === 'chunk' && first.raw).toBeTruthy();
    expect(last.type === 'chunk' && last.chunk).toMatchObject({ usage: { prompt_tokens: 19, completion_tokens: 13, total_tokens: 32 }, choices: [{ index: 0, finish_reason: 'stop' }] });
    expect(last.type === 'chunk' && (last.chunk.choices as Array<Record<string, unknown>>)[0].usage).toBeUndefined();
  });
});
