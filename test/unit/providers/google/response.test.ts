import { describe, expect, it } from 'vitest';
import { googleAdapter } from '../../../../shared/providers/google/adapter.js';
import { summariseGoogleError } from '../../../../shared/providers/google/errors.js';
import { adapterInput, fixtureJson, gatewayErrorOf } from './helpers.js';

const chatInput = (model = 'gemini-2.5-flash') => adapterInput({ model, messages: [{ role: 'user', content: 'Hi' }] });
interface ToolCall {
  id: string;
  type: string;
  function: { name: string; arguments: string };
  extra_content?: unknown;
}
interface Completion {
  id: string;
  object: string;
  created: number;
  model: string;
  choices: Array<{ index: number; finish_reason: string; message: { content: string | null; tool_calls: ToolCall[] } }>;
  usage: unknown;
}
const translate = (fixture: string, model?: string) => googleAdapter.toOpenAIResponse!(chatInput(model), fixtureJson(fixture)) as unknown as Completion;

describe('Gemini response → OpenAI chat.completion', () => {
  it('joins text parts into content, thought parts into reasoning_content, and maps usage with thoughts and cache', () => {
    const completion = translate('generate-content-text.json');
    expect(completion).toMatchObject({ id: 'chatcmpl-mYcNaPvjO4i1nvgPqYyhyAQ', object: 'chat.completion', model: 'gemini-2.5-flash' });
    expect(typeof completion.created).toBe('number');
    expect(completion.choices).toEqual([
      {
        index: 0,
        message: {
          role: 'assistant',
          content: "Occam's razor says the simplest explanation is usually the best one. Example: if the grass is wet, rain is likelier than a sprinkler malfunction at every house.",
          refusal: null,
          reasoning_content: "**Weighing the options**\n\nThe user wants a short answer about Occam's razor.",
        },
        logprobs: null,
        finish_reason: 'stop',
      },
    ]);
    expect(completion.usage).toEqual({
      prompt_tokens: 12,
      completion_tokens: 119,
      total_tokens: 131,
      prompt_tokens_details: { cached_tokens: 4 },
      completion_tokens_details: { reasoning_tokens: 88 },
    });
  });

  it('turns function calls into tool_calls with generated ids, JSON-string arguments and the thought signature', () => {
    const completion = translate('generate-content-function-calls.json', 'gemini-2.5-pro');
    const [choice] = completion.choices;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    expect(choice.message.tool_calls).toHaveLength(2);
    const [weather, time] = choice.message.tool_calls;
    expect(weather).toMatchObject({ type: 'function', function: { name: 'get_weather' }, extra_content: { google: { thought_signature: 'CiQBVKhc7hQ3v4u0S3oZ0k8mJcX1YQ==' } } });
    expect(JSON.parse(weather.function.arguments)).toEqual({ location: 'Paris', unit: 'celsius' });
    expect(time.extra_content).toBeUndefined();
    expect(JSON.parse(time.function.arguments)).toEqual({ timezone: 'Europe/Paris' });
    expect(weather.id).toMatch(/^call_/);
    expect(weather.id).not.toBe(time.id);
    expect(completion.usage).toEqual({ prompt_tokens: 70, completion_tokens: 26, total_tokens: 96 });
  });

  it('maps one choice per candidate with MAX_TOKENS → length and SAFETY → content_filter', () => {
    const completion = translate('generate-content-max-tokens.json', 'gemini-2.0-flash');
    expect(completion.choices.map((choice) => [choice.index, choice.finish_reason])).toEqual([
      [0, 'length'],
      [1, 'content_filter'],
    ]);
  });

  it('answers a blocked prompt with one empty content_filter choice', () => {
    const completion = translate('generate-content-blocked.json');
    expect(completion.choices).toEqual([{ index: 0, message: { role: 'assistant', content: null, refusal: null }, logprobs: null, finish_reason: 'content_filter' }]);
    expect(completion.usage).toMatchObject({ prompt_tokens: 8, completion_tokens: 0 });
  });

  it('refuses a provider body that is not an object with a 502', () => {
    const error = gatewayErrorOf(() => googleAdapter.toOpenAIResponse!(chatInput(), 'oops'));
    expect(error.status).toBe(502);
    expect(error.code).toBe('invalid_provider_response');
  });
});

describe('Gemini errors → gw error parts', () => {
  it('reads message and status from Google error bodies', () => {
    expect(summariseGoogleError(400, fixtureJson('error-invalid-argument.json'))).toEqual({
      message: '* GenerateContentRequest.contents: contents is not specified\n',
      code: 'invalid_argument',
      param: null,
    });
    expect(summariseGoogleError(429, [fixtureJson('error-resource-exhausted.json')])).toMatchObject({ code: 'resource_exhausted' });
  });

  it('falls back to the text or the status when the body is not Google JSON', () => {
    expect(summariseGoogleError(502, '<html>Bad Gateway</html>')).toEqual({ message: '<html>Bad Gateway</html>', code: undefined, param: null });
    expect(summariseGoogleError(500, undefined).message).toBe('Google answered with HTTP 500');
  });
});

describe('Gemini embeddings', () => {
  it('builds one batchEmbedContents request per input and maps vectors back in order', () => {
    const input = adapterInput({ model: 'gemini-embedding-001', input: ['first', 'second'], dimensions: 4, task_type: 'RETRIEVAL_DOCUMENT' }, { endpoint: 'embeddings' });
    const call = googleAdapter.buildCall(input);
    if (call instanceof Promise) throw new Error('the Gemini call is built synchronously');
    expect(JSON.parse(String(call.body))).toEqual({
      requests: [
        { model: 'models/gemini-embedding-001', content: { parts: [{ text: 'first' }] }, taskType: 'RETRIEVAL_DOCUMENT', outputDimensionality: 4 },
        { model: 'models/gemini-embedding-001', content: { parts: [{ text: 'second' }] }, taskType: 'RETRIEVAL_DOCUMENT', outputDimensionality: 4 },
      ],
    });
    expect(googleAdapter.toOpenAIResponse!(input, fixtureJson('batch-embed-contents.json'))).toEqual({
      object: 'list',
      data: [
        { object: 'embedding', index: 0, embedding: [0.013168517, -0.00871193, -0.046782672, 0.00069969177] },
        { object: 'embedding', index: 1, embedding: [-0.0110094, 0.0048719, -0.03325113, 0.0219003] },
      ],
      model: 'gemini-embedding-001',
      usage: { prompt_tokens: 0, total_tokens: 0 },
    });
  });

  it('encodes vectors as little-endian float32 base64 when asked', () => {
    const input = adapterInput({ model: 'gemini-embedding-001', input: 'x', encoding_format: 'base64' }, { endpoint: 'embeddings' });
    const list = googleAdapter.toOpenAIResponse!(input, { embeddings: [{ values: [1, -2.5] }] }) as { data: Array<{ embedding: string }> };
    const bytes = Buffer.from(list.data[0].embedding, 'base64');
    expect([bytes.readFloatLE(0), bytes.readFloatLE(4)]).toEqual([1, -2.5]);
  });

  it.each([
    [{ input: [1, 2, 3] }, 'input'],
    [{ input: [] }, 'input'],
    [{ input: 'x', dimensions: 0 }, 'dimensions'],
    [{ input: 'x', encoding_format: 'int8' }, 'encoding_format'],
  ])('refuses %j with a 400 naming %s', (body, param) => {
    const error = gatewayErrorOf(() => googleAdapter.buildCall(adapterInput({ model: 'gemini-embedding-001', ...body }, { endpoint: 'embeddings' })));
    expect(error.status).toBe(400);
    expect(error.param).toBe(param);
  });
});
