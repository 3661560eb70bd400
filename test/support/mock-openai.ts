import { sse, type MockHandler, type RecordedRequest, type ScriptedResponse } from './mock-upstream.js';

export interface OpenAIMockOptions {
  content?: string;
  /** Delay between streamed chunks. */
  chunkDelayMs?: number;
}

/** An OpenAI-compatible mock: chat (JSON and SSE), legacy completions and embeddings, like the real API. */
export function openAIMockHandler(options: OpenAIMockOptions = {}): MockHandler {
  const content = options.content ?? 'Hello from the mock provider!';
  return (request: RecordedRequest): ScriptedResponse => {
    const body = (request.json ?? {}) as Record<string, unknown>;
    const model = typeof body.model === 'string' ? body.model : 'mock-model';
    if (request.path.endsWith('/embeddings')) {
      const inputs = Array.isArray(body.input) ? body.input : [body.input];
      return {
        json: {
          object: 'list',
          data: inputs.map((_, index) => ({ object: 'embedding', index, embedding: [0.1, 0.2, 0.3] })),
          model,
          usage: { prompt_tokens: 3, total_tokens: 3 },
        },
      };
    }
    if (request.path.endsWith('/completions') && !request.path.endsWith('/chat/completions')) {
      return { json: { id: 'cmpl-mock', object: 'text_completion', created: 1_700_000_000, model, choices: [{ index: 0, text: content, finish_reason: 'stop', logprobs: null }], usage: usage() } };
    }
    if (body.stream === true) return { chunks: chatStream(model, content, body), chunkDelayMs: options.chunkDelayMs };
    return {
      headers: { 'x-request-id': 'req_mock_1' },
      json: {
        id: 'chatcmpl-mock',
        object: 'chat.completion',
        created: 1_700_000_000,
        model,
        choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, finish_reason: 'stop', logprobs: null }],
        usage: usage(),
      },
    };
  };
}

function usage() {
  return { prompt_tokens: 9, completion_tokens: 12, total_tokens: 21 };
}

/** The chunks OpenAI sends for a streamed chat completion, split into a few words per chunk. */
export function chatStream(model: string, content: string, body: Record<string, unknown> = {}): string[] {
  const base = { id: 'chatcmpl-mock', object: 'chat.completion.chunk', created: 1_700_000_000, model };
  const words = content.split(/(?<= )/);
  const events: unknown[] = [{ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }];
  for (const word of words) events.push({ ...base, choices: [{ index: 0, delta: { content: word }, finish_reason: null }] });
  events.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
  const options = body.stream_options as { include_usage?: boolean } | undefined;
  if (options?.include_usage) events.push({ ...base, choices: [], usage: usage() });
  events.push('[DONE]');
  return sse(...events);
}
