import { describe, expect, it } from 'vitest';
import { messagesToCanonical, validateMessagesBody } from '../../../shared/dialects/anthropic-messages/request.js';
import { canonicalToMessage } from '../../../shared/dialects/anthropic-messages/response.js';
import { responsesToCanonical, validateResponsesBody } from '../../../shared/dialects/responses/request.js';
import { canonicalToResponse } from '../../../shared/dialects/responses/response.js';
import { GatewayError } from '../../../shared/http/errors.js';

function refusal(run: () => unknown): GatewayError {
  try {
    run();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected a GatewayError');
}

describe('Messages → canonical chat', () => {
  it('maps system blocks, images, documents, tool results, tools, tool_choice and thinking', () => {
    const chat = messagesToCanonical(
      {
        model: 'm',
        max_tokens: 100,
        system: [{ type: 'text', text: 'A' }, { type: 'text', text: 'B', cache_control: { type: 'ephemeral' } }],
        stop_sequences: ['END'],
        metadata: { user_id: 'u-1' },
        thinking: { type: 'enabled', budget_tokens: 4000 },
        tool_choice: { type: 'any', disable_parallel_tool_use: true },
        tools: [{ name: 'f', description: 'd', input_schema: { type: 'object' } }],
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAA' } }, { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'PDF' }, title: 'a.pdf' }] },
          { role: 'assistant', content: [{ type: 'text', text: 'calling' }, { type: 'tool_use', id: 't1', name: 'f', input: { x: 1 } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'ok' }], is_error: true }, { type: 'text', text: 'next' }] },
        ],
      },
      'openai',
    );
    expect(chat).toEqual({
      model: 'm',
      max_tokens: 100,
      stop: ['END'],
      user: 'u-1',
      reasoning_effort: 'medium',
      tool_choice: 'required',
      parallel_tool_calls: false,
      tools: [{ type: 'function', function: { name: 'f', description: 'd', parameters: { type: 'object' } } }],
      messages: [
        { role: 'system', content: 'A\nB' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'look' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAA' } },
            { type: 'file', file: { filename: 'a.pdf', file_data: 'data:application/pdf;base64,PDF' } },
          ],
        },
        { role: 'assistant', content: 'calling', tool_calls: [{ id: 't1', type: 'function', function: { name: 'f', arguments: '{"x":1}' } }] },
        { role: 'tool', tool_call_id: 't1', content: 'Error: ok' },
        { role: 'user', content: 'next' },
      ],
    });
  });

  it('keeps signed thinking for Claude-serving providers only', () => {
    const body = { model: 'm', max_tokens: 5, messages: [{ role: 'assistant', content: [{ type: 'thinking', thinking: 'hmm', signature: 's' }, { type: 'text', text: 'hi' }] }] };
    expect((messagesToCanonical(body, 'bedrock').messages as unknown[])[0]).toMatchObject({ reasoning_content: 'hmm', thinking_blocks: [{ type: 'thinking', thinking: 'hmm', signature: 's' }] });
    expect((messagesToCanonical(body, 'openai').messages as unknown[])[0]).toEqual({ role: 'assistant', content: 'hi' });
  });

  it('refuses server tools and malformed bodies with 400s naming the field', () => {
    expect(refusal(() => messagesToCanonical({ model: 'm', max_tokens: 5, messages: [], tools: [{ type: 'bash_20250124', name: 'bash' }] }, 'groq')).message).toContain("'bash_20250124'");
    expect(refusal(() => validateMessagesBody({ model: 'm', messages: [{ role: 'user', content: 'x' }] }))).toMatchObject({ status: 400, code: 'missing_max_tokens', param: 'max_tokens' });
    expect(refusal(() => validateMessagesBody({ model: 'm', max_tokens: 5, messages: [{ role: 7, content: 'x' }] }))).toMatchObject({ status: 400, param: 'messages.0.role' });
  });

  it('accepts any role on arrival (a native target judges it); translation maps a system turn in place and refuses others', () => {
    const body = { model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'a' }, { role: 'system', content: [{ type: 'text', text: 'reminder' }] }, { role: 'user', content: 'b' }] };
    expect(() => validateMessagesBody(body)).not.toThrow();
    expect(messagesToCanonical(body, 'openai').messages).toEqual([{ role: 'user', content: 'a' }, { role: 'system', content: 'reminder' }, { role: 'user', content: 'b' }]);
    expect(refusal(() => messagesToCanonical({ ...body, messages: [{ role: 'critic', content: 'x' }] }, 'openai'))).toMatchObject({ status: 400, code: 'invalid_message', param: 'messages.0.role' });
  });

  it('fields with no chat equivalent follow the unsupported-parameter rule: a 400 naming them, or dropped and recorded', () => {
    const body = { model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'a' }], context_management: { edits: [] }, top_k: 5 };
    // context_management only tunes Anthropic's own context window: dropped and named even without the header.
    expect(refusal(() => messagesToCanonical(body, 'openai'))).toMatchObject({ status: 400, code: 'unsupported_parameter', param: 'top_k' });
    const hintsOnly: string[] = [];
    expect(messagesToCanonical({ ...body, top_k: undefined }, 'openai', { droppedParams: hintsOnly })).not.toHaveProperty('context_management');
    expect(hintsOnly).toEqual(['context_management']);
    const droppedParams: string[] = [];
    const chat = messagesToCanonical(body, 'openai', { dropUnsupportedParams: true, droppedParams });
    expect(droppedParams).toEqual(['context_management', 'top_k']);
    expect(chat).not.toHaveProperty('context_management');
    expect(chat).not.toHaveProperty('top_k');
  });

  it('maps adaptive thinking with output_config.effort and output_config.format; an effort without thinking is unsupported', () => {
    const base = { model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'a' }] };
    const schema = { type: 'object', properties: { city: { type: 'string' } } };
    const chat = messagesToCanonical({ ...base, thinking: { type: 'adaptive' }, output_config: { effort: 'max', format: { type: 'json_schema', schema } } }, 'openai');
    expect(chat).toMatchObject({ reasoning_effort: 'high', response_format: { type: 'json_schema', json_schema: { name: 'output', schema, strict: true } } });
    expect(messagesToCanonical({ ...base, thinking: { type: 'adaptive' } }, 'openai')).not.toHaveProperty('reasoning_effort');
    expect(refusal(() => messagesToCanonical({ ...base, output_config: { effort: 'low' } }, 'openai'))).toMatchObject({ code: 'unsupported_parameter', param: 'output_config.effort' });
  });

  it('answers a canonical completion as a Message, usage without cache reads in input_tokens', () => {
    const message = canonicalToMessage(
      {
        id: 'chatcmpl-1',
        model: 'gpt',
        choices: [{ message: { content: 'hi', reasoning_content: 'think', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":2}' } }] }, finish_reason: 'tool_calls' }],
        usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13, prompt_tokens_details: { cached_tokens: 4 } },
      },
      'm',
    );
    expect(message).toMatchObject({
      type: 'message',
      model: 'gpt',
      content: [{ type: 'thinking', thinking: 'think' }, { type: 'text', text: 'hi' }, { type: 'tool_use', id: 'c1', name: 'f', input: { a: 2 } }],
      stop_reason: 'tool_use',
      usage: { input_tokens: 6, output_tokens: 3, cache_read_input_tokens: 4 },
    });
  });
});

describe('Responses → canonical chat', () => {
  it('joins assistant output items into one turn and maps parts, tools and text.format', () => {
    const chat = responsesToCanonical(
      {
        model: 'm',
        instructions: 'be nice',
        max_output_tokens: 50,
        reasoning: { effort: 'low' },
        tool_choice: { type: 'function', name: 'f' },
        tools: [{ type: 'function', name: 'f', parameters: { type: 'object' }, strict: true }],
        text: { format: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true } },
        input: [
          { role: 'developer', content: 'dev' },
          { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'see' }, { type: 'input_image', image_url: 'https://x/y.png', detail: 'low' }] },
          { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'calling' }] },
          { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
          { type: 'function_call', call_id: 'c2', name: 'f', arguments: '{"b":1}' },
          { type: 'reasoning', id: 'rs_1', summary: [] },
          { type: 'function_call_output', call_id: 'c1', output: 'r1' },
          { type: 'function_call_output', call_id: 'c2', output: 'r2' },
        ],
      },
      'anthropic',
    );
    expect(chat).toEqual({
      model: 'm',
      max_completion_tokens: 50,
      reasoning_effort: 'low',
      tool_choice: { type: 'function', function: { name: 'f' } },
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' }, strict: true } }],
      response_format: { type: 'json_schema', json_schema: { name: 'out', schema: { type: 'object' }, strict: true } },
      messages: [
        { role: 'system', content: 'be nice' },
        { role: 'system', content: 'dev' },
        { role: 'user', content: [{ type: 'text', text: 'see' }, { type: 'image_url', image_url: { url: 'https://x/y.png', detail: 'low' } }] },
        {
          role: 'assistant',
          content: 'calling',
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } },
            { id: 'c2', type: 'function', function: { name: 'f', arguments: '{"b":1}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'r1' },
        { role: 'tool', tool_call_id: 'c2', content: 'r2' },
      ],
    });
  });

  it('refuses built-in tools, OpenAI-only items and bad bodies with 400s', () => {
    expect(refusal(() => responsesToCanonical({ model: 'm', input: 'x', tools: [{ type: 'file_search' }] }, 'anthropic'))).toMatchObject({ code: 'unsupported_tool', param: 'tools.0.type' });
    expect(refusal(() => responsesToCanonical({ model: 'm', input: [{ type: 'computer_call', id: 'c' }] }, 'anthropic'))).toMatchObject({ code: 'unsupported_input_item' });
    expect(refusal(() => validateResponsesBody({ model: 'm' }))).toMatchObject({ code: 'missing_input', param: 'input' });
    expect(refusal(() => validateResponsesBody({ model: 'm', input: 'x', background: true }))).toMatchObject({ status: 400, param: 'background' });
    expect(() => validateResponsesBody({ model: 'm', previous_response_id: 'resp_1' })).not.toThrow();
  });

  it('Responses fields with no chat equivalent follow the unsupported-parameter rule; gw-only ones pass', () => {
    const body = { model: 'm', input: 'x', store: false, metadata: { a: 'b' }, include: ['reasoning.encrypted_content'], truncation: 'disabled', service_tier: 'auto', top_logprobs: 2, max_tool_calls: 3 };
    expect(refusal(() => responsesToCanonical(body, 'anthropic'))).toMatchObject({ status: 400, code: 'unsupported_parameter', param: 'top_logprobs' });
    const droppedParams: string[] = [];
    responsesToCanonical(body, 'anthropic', { dropUnsupportedParams: true, droppedParams });
    expect(droppedParams).toEqual(['top_logprobs', 'max_tool_calls']);
    expect(refusal(() => responsesToCanonical({ model: 'm', input: 'x', truncation: 'auto' }, 'anthropic'))).toMatchObject({ param: 'truncation' });
  });

  it('answers a canonical completion as a Response, incomplete on length', () => {
    const response = canonicalToResponse(
      { model: 'gpt', choices: [{ message: { content: 'hi' }, finish_reason: 'length' }], usage: { prompt_tokens: 7, completion_tokens: 2, total_tokens: 9, completion_tokens_details: { reasoning_tokens: 1 } } },
      { model: 'm', input: 'x', max_output_tokens: 2 },
    );
    expect(response).toMatchObject({
      object: 'response',
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      max_output_tokens: 2,
      output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'hi' }] }],
      usage: { input_tokens: 7, output_tokens: 2, total_tokens: 9, output_tokens_details: { reasoning_tokens: 1 } },
    });
    expect(String(response.id)).toMatch(/^resp_/);
  });
});
