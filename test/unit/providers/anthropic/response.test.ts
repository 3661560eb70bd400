import { describe, expect, it } from 'vitest';
import { anthropicAdapter } from '../../../../shared/providers/anthropic/adapter.js';
import { fromAnthropicMessage, summariseAnthropicError } from '../../../../shared/providers/anthropic/messages-codec.js';
import { anthropicJsonFixture } from '../../../fixtures/anthropic/index.js';
import { adapterInput, gatewayErrorOf } from './helpers.js';

const chat = adapterInput({ messages: [{ role: 'user', content: 'Hi' }] });

describe('Anthropic response translation', () => {
  it('turns a text message into a chat.completion with finish_reason stop and usage', () => {
    const completion = fromAnthropicMessage(chat, anthropicJsonFixture('message-text'));
    expect(completion).toMatchObject({
      id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
      object: 'chat.completion',
      model: 'claude-sonnet-4-5-20250929',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello! How can I help you today?', refusal: null }, logprobs: null, finish_reason: 'stop' }],
      usage: { prompt_tokens: 12, completion_tokens: 11, total_tokens: 23, prompt_tokens_details: { cached_tokens: 0 } },
    });
    expect(typeof completion.created).toBe('number');
    const message = (completion.choices as Array<{ message: Record<string, unknown> }>)[0].message;
    expect(message).not.toHaveProperty('tool_calls');
    expect(message).not.toHaveProperty('reasoning_content');
  });

  it('turns tool_use blocks into tool_calls with JSON-string arguments, and counts cache reads and writes as prompt tokens', () => {
    const completion = fromAnthropicMessage(chat, anthropicJsonFixture('message-tool-use'));
    const choice = (completion.choices as Array<{ message: Record<string, unknown>; finish_reason: string }>)[0];
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBe("I'll check the current weather in San Francisco and Paris for you.");
    expect(choice.message.tool_calls).toEqual([
      { id: 'toolu_01A09q90qw90lq917835lq9', type: 'function', function: { name: 'get_weather', arguments: '{"location":"San Francisco, CA","unit":"celsius"}' } },
      { id: 'toolu_01B8Wj3XmV7cK2pQ9rT4sN6y', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Paris, France","unit":"celsius"}' } },
    ]);
    expect(completion.usage).toEqual({
      prompt_tokens: 21 + 1523 + 188086,
      completion_tokens: 393,
      total_tokens: 21 + 1523 + 188086 + 393,
      prompt_tokens_details: { cached_tokens: 188086, cache_creation_tokens: 1523 },
      cache_creation_input_tokens: 1523,
    });
  });

  it('returns thinking as reasoning_content plus the signed and redacted blocks, and max_tokens as length', () => {
    const completion = fromAnthropicMessage(chat, anthropicJsonFixture('message-thinking'));
    const choice = (completion.choices as Array<{ message: Record<string, unknown>; finish_reason: string }>)[0];
    const fixture = anthropicJsonFixture('message-thinking') as { content: Array<Record<string, string>> };
    expect(choice.finish_reason).toBe('length');
    expect(choice.message.content).toBe('27 * 453 = 12,231');
    expect(choice.message.reasoning_content).toBe(fixture.content[0].thinking);
    expect(choice.message.thinking_blocks).toEqual([fixture.content[0], fixture.content[1]]);
  });

  it('answers a legacy functions request with one function_call and finish_reason function_call', () => {
    const legacy = adapterInput({ messages: [{ role: 'user', content: 'Weather?' }], functions: [{ name: 'get_weather' }] });
    const completion = fromAnthropicMessage(legacy, anthropicJsonFixture('message-tool-use'));
    const choice = (completion.choices as Array<{ message: Record<string, unknown>; finish_reason: string }>)[0];
    expect(choice.finish_reason).toBe('function_call');
    expect(choice.message.function_call).toEqual({ name: 'get_weather', arguments: '{"location":"San Francisco, CA","unit":"celsius"}' });
    expect(choice.message).not.toHaveProperty('tool_calls');
  });

  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['max_tokens', 'length'],
    ['tool_use', 'tool_calls'],
    ['refusal', 'content_filter'],
    ['pause_turn', 'stop'],
    ['model_context_window_exceeded', 'length'],
  ])('maps stop_reason %s to finish_reason %s', (stopReason, finishReason) => {
    const completion = fromAnthropicMessage(chat, { ...anthropicJsonFixture('message-text'), stop_reason: stopReason });
    expect((completion.choices as Array<{ finish_reason: string }>)[0].finish_reason).toBe(finishReason);
  });

  it('answers 502 with the body kept when Anthropic sends something that is not a Message', () => {
    const error = gatewayErrorOf(() => fromAnthropicMessage(chat, { unexpected: true }));
    expect({ status: error.status, code: error.code, type: error.type }).toEqual({ status: 502, code: 'upstream_invalid_response', type: 'upstream_error' });
    expect(error.providerError).toEqual({ unexpected: true });
  });

  it('is the adapter’s response translator', () => {
    expect(anthropicAdapter.toOpenAIResponse).toBe(fromAnthropicMessage);
  });
});

describe('Anthropic error summaries', () => {
  it.each([
    ['error-invalid-request', 400, 'invalid_request_error'],
    ['error-rate-limit', 429, 'rate_limit_error'],
    ['error-overloaded', 529, 'overloaded_error'],
  ])('reads %s: the error type becomes the code and the message is Anthropic’s', (fixture, status, type) => {
    const body = anthropicJsonFixture(fixture) as { error: { message: string } };
    expect(summariseAnthropicError(status, body)).toEqual({ message: body.error.message, type, code: type, param: null });
  });

  it('keeps a non-JSON body readable and falls back to the status when there is nothing', () => {
    expect(summariseAnthropicError(502, '<html>Bad gateway</html>').message).toBe('<html>Bad gateway</html>');
    expect(summariseAnthropicError(503, undefined)).toEqual({ message: 'Anthropic answered with HTTP 503', type: undefined, code: undefined, param: null });
  });
});
