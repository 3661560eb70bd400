import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bedrockAdapter } from '../../../../shared/providers/bedrock/adapter.js';
import { bedrockInput, expectGatewayError } from './helpers.js';

const load = (name: string) => JSON.parse(readFileSync(new URL(`../../../fixtures/bedrock/${name}`, import.meta.url), 'utf8')) as Record<string, unknown>;
const MODEL = 'anthropic.claude-3-5-sonnet-20240620-v1:0';
const translate = (providerBody: unknown, body: Record<string, unknown> = {}) =>
  bedrockAdapter.toOpenAIResponse!(bedrockInput({ model: MODEL, messages: [{ role: 'user', content: 'Hi' }], ...body }), providerBody);
const textAnswer = (stopReason: string) => ({
  output: { message: { role: 'assistant', content: [{ text: 'Hello!' }] } },
  stopReason,
  usage: { inputTokens: 5, outputTokens: 3, totalTokens: 8 },
});

describe('Converse answer → OpenAI chat.completion', () => {
  it('translates text and parallel tool calls, with arguments as JSON strings', () => {
    const completion = translate(load('converse-response-tools.json'));
    expect(completion).toEqual({
      id: expect.stringMatching(/^chatcmpl-/),
      object: 'chat.completion',
      created: expect.any(Number),
      model: MODEL,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: "I'll look up the weather in both cities.",
            refusal: null,
            tool_calls: [
              { id: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' } },
              { id: 'tooluse_2XKAxgU1QhSdBpbcP1Uo9A', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Tōkyō","unit":"celsius"}' } },
            ],
          },
          logprobs: null,
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 448, completion_tokens: 121, total_tokens: 569 },
    });
  });

  it('returns reasoning as reasoning_content and thinking_blocks, and counts cache reads into prompt tokens', () => {
    const completion = translate(load('converse-response-reasoning.json')) as { choices: Array<{ message: Record<string, unknown> }>; usage: unknown };
    expect(completion.choices[0].message).toEqual({
      role: 'assistant',
      content: 'The capital of France is Paris.',
      refusal: null,
      reasoning_content: 'The question asks for the capital of France. It is Paris.',
      thinking_blocks: [{ type: 'thinking', thinking: 'The question asks for the capital of France. It is Paris.', signature: 'ErcBCkgIAhABGAIiQMj0' }],
    });
    expect(completion.usage).toEqual({ prompt_tokens: 2012, completion_tokens: 65, total_tokens: 2077, prompt_tokens_details: { cached_tokens: 2000 } });
  });

  it('returns redacted reasoning as a redacted_thinking block', () => {
    const providerBody = {
      output: { message: { role: 'assistant', content: [{ reasoningContent: { redactedContent: 'ZW5jcnlwdGVk' } }, { text: 'Done.' }] } },
      stopReason: 'end_turn',
      usage: { inputTokens: 5, outputTokens: 9, totalTokens: 14 },
    };
    const completion = translate(providerBody) as { choices: Array<{ message: Record<string, unknown> }> };
    expect(completion.choices[0].message).toEqual({ role: 'assistant', content: 'Done.', refusal: null, thinking_blocks: [{ type: 'redacted_thinking', data: 'ZW5jcnlwdGVk' }] });
  });

  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['tool_use', 'tool_calls'],
    ['content_filtered', 'content_filter'],
    ['guardrail_intervened', 'content_filter'],
  ])('maps stopReason %s to finish_reason %s', (stopReason, finishReason) => {
    const completion = translate(textAnswer(stopReason)) as { choices: Array<{ finish_reason: string }> };
    expect(completion.choices[0].finish_reason).toBe(finishReason);
  });

  it('answers a legacy functions request with function_call', () => {
    const providerBody = {
      output: { message: { role: 'assistant', content: [{ toolUse: { toolUseId: 'tooluse_1', name: 'get_weather', input: { city: 'Paris' } } }] } },
      stopReason: 'tool_use',
      usage: { inputTokens: 50, outputTokens: 20, totalTokens: 70 },
    };
    const completion = translate(providerBody, { functions: [{ name: 'get_weather', parameters: { type: 'object' } }] }) as {
      choices: Array<{ message: Record<string, unknown>; finish_reason: string }>;
    };
    expect(completion.choices[0].message).toEqual({
      role: 'assistant',
      content: null,
      refusal: null,
      function_call: { name: 'get_weather', arguments: '{"city":"Paris"}' },
    });
    expect(completion.choices[0].finish_reason).toBe('function_call');
  });

  it('reports an answer without output.message as a 502 that keeps the provider body', () => {
    let thrown: unknown;
    try {
      translate({ stopReason: 'end_turn' });
    } catch (error) {
      thrown = error;
    }
    expectGatewayError(thrown, { status: 502, code: 'invalid_provider_response', param: null, message: 'without output.message.content', providerError: { stopReason: 'end_turn' } });
  });
});
