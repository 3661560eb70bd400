import { describe, expect, it } from 'vitest';
import { countPromptTokens, defaultMaxOutputTokens, estimateUsage, maxOutputTokensOf, promptParts } from '../../../shared/gateway/enforcement/estimate.js';
import { jsonNestingDepth } from '../../../shared/http/json-nesting.js';
import { attemptsHeader, gatewayHeaders } from '../../../shared/gateway/response-headers.js';

describe('usage estimates for reservations', () => {
  it('reads prompt text of every dialect: chat strings and blocks, Anthropic system, Responses input, completions prompt', () => {
    expect(promptParts({ messages: [{ role: 'user', content: 'hello' }] })).toEqual({ texts: ['hello'], fixedTokens: 4 });
    expect(promptParts({ system: [{ type: 'text', text: 'be brief' }], messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }, { type: 'image', source: {} }] }] })).toEqual({
      texts: ['be brief', 'hi'],
      fixedTokens: 4 + 1_600,
    });
    expect(promptParts({ instructions: 'sys', input: [{ role: 'user', content: [{ type: 'input_text', text: 'q' }] }] }).texts).toEqual(['sys', 'q']);
    expect(promptParts({ input: 'plain responses input' }).texts).toEqual(['plain responses input']);
    expect(promptParts({ prompt: ['a', 'b'] }).texts).toEqual(['a', 'b']);
  });

  it('counts tokens with the tokenizer, and long prompts from their length', async () => {
    expect(await countPromptTokens({ messages: [{ role: 'user', content: 'Hi' }] })).toBe(5);
    expect(await countPromptTokens({ prompt: 'x'.repeat(100_000) })).toBe(50_000);
    expect(await countPromptTokens({})).toBe(0);
  });

  it('takes the request’s own output limit in any dialect, else the model default', () => {
    expect(maxOutputTokensOf({ max_completion_tokens: 10, max_tokens: 99 })).toBe(10);
    expect(maxOutputTokensOf({ max_tokens: 30 })).toBe(30);
    expect(maxOutputTokensOf({ max_output_tokens: 40 })).toBe(40);
    expect(maxOutputTokensOf({ generationConfig: { maxOutputTokens: 50 } })).toBe(50);
    expect(maxOutputTokensOf({ model: 'gpt-4o-mini' })).toBe(16_384);
    expect(defaultMaxOutputTokens('openai/o3-mini')).toBe(100_000);
    expect(defaultMaxOutputTokens('claude-3-haiku-20240307')).toBe(4_096);
    expect(defaultMaxOutputTokens('something-else')).toBe(4_096);
  });

  it('embeddings have no completion to reserve', async () => {
    expect(await estimateUsage('embeddings', { model: 'text-embedding-3-small', input: 'Hi' })).toEqual({ promptTokens: 1, maxOutputTokens: 0, totalTokens: 1 });
  });
});

describe('request body nesting', () => {
  it('counts object and array depth, skipping brackets inside strings and escapes', () => {
    expect(jsonNestingDepth('{"a":[1,{"b":2}]}')).toBe(3);
    expect(jsonNestingDepth('{"a":"[[[[\\"{{{"}')).toBe(1);
    expect(jsonNestingDepth('1')).toBe(0);
  });
});

describe('attempt headers', () => {
  const attempts = [
    { target_path: 'config.targets[0]', status: 503, retry: 0, error_code: 'injected_503' },
    { target_path: 'config.targets[0]', status: 503, retry: 1, error_code: 'injected_503' },
    { target_path: 'config.targets[1]', status: 200, retry: 0 },
  ];
  it('counts every retry on the path and lists every try', () => {
    const headers = gatewayHeaders({ traceId: 't', attempts });
    expect(headers['x-gw-retry-attempt-count']).toBe('1');
    expect(headers['x-gw-attempts']).toBe('config.targets[0]=503/injected_503, config.targets[0]=503/injected_503, config.targets[1]=200');
  });
  it('lists at most 20 tries', () => {
    const many = Array.from({ length: 25 }, (_, retry) => ({ target_path: 'config', status: 502, retry }));
    expect(attemptsHeader(many).endsWith('+5 more')).toBe(true);
  });
});
