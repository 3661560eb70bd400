import { chatStream } from './mock-openai.js';
import { STRUCTURED_ANSWER } from './mock-anthropic.js';
import { sse, type MockHandler, type RecordedRequest, type ScriptedResponse } from './mock-upstream.js';

type Json = Record<string, unknown>;

export const OPENAI_MOCK_TEXT = 'Hello from the OpenAI mock!';
export const OPENAI_RATE_LIMIT_HEADERS = { 'x-ratelimit-remaining-requests': '4999', 'x-ratelimit-limit-tokens': '2000000', 'x-request-id': 'req_openai_mock' };

let counter = 0;
const next = (prefix: string) => `${prefix}_mock${++counter}`;

/**
 * An OpenAI mock for both of OpenAI's chat APIs, like the real one: Chat Completions (with a tool call when
 * tools are offered and no tool result came back yet, JSON text for a json_schema response format) and the
 * Responses API (`/responses`, JSON and typed SSE events, function_call items the same way). The tool call's
 * arguments are `{"location":"Paris"}` for the first tool offered.
 */
export function openAIDialectsMockHandler(): MockHandler {
  return (request: RecordedRequest): ScriptedResponse => {
    const body = (request.json ?? {}) as Json;
    if (request.path.endsWith('/responses')) return responsesAnswer(body);
    return chatAnswer(body);
  };
}

function chatAnswer(body: Json): ScriptedResponse {
  const model = String(body.model ?? 'mock-model');
  const messages = Array.isArray(body.messages) ? (body.messages as Json[]) : [];
  const tools = Array.isArray(body.tools) ? (body.tools as Json[]) : [];
  const structured = (body.response_format as Json | undefined)?.type === 'json_schema';
  const usage = { prompt_tokens: 20, completion_tokens: 10, total_tokens: 30, prompt_tokens_details: { cached_tokens: 4 } };
  const base = { id: next('chatcmpl'), created: 1_700_000_000, model };
  if (tools.length > 0 && messages.at(-1)?.role !== 'tool') {
    const name = (tools[0].function as Json).name;
    const call = { id: next('call'), type: 'function', function: { name, arguments: '{"location":"Paris"}' } };
    if (body.stream !== true) {
      return { headers: OPENAI_RATE_LIMIT_HEADERS, json: { ...base, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [call] }, finish_reason: 'tool_calls' }], usage } };
    }
    const chunk = { ...base, object: 'chat.completion.chunk' };
    return {
      headers: OPENAI_RATE_LIMIT_HEADERS,
      chunks: sse(
        { ...chunk, choices: [{ index: 0, delta: { role: 'assistant', content: null, tool_calls: [{ index: 0, id: call.id, type: 'function', function: { name, arguments: '' } }] }, finish_reason: null }] },
        { ...chunk, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"location":' } }] }, finish_reason: null }] },
        { ...chunk, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }, finish_reason: null }] },
        { ...chunk, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
        { ...chunk, choices: [], usage },
        '[DONE]',
      ),
    };
  }
  const text = structured ? JSON.stringify(STRUCTURED_ANSWER) : OPENAI_MOCK_TEXT;
  if (body.stream === true) return { headers: OPENAI_RATE_LIMIT_HEADERS, chunks: chatStream(model, text, body) };
  return { headers: OPENAI_RATE_LIMIT_HEADERS, json: { ...base, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null }, finish_reason: 'stop' }], usage } };
}

function responsesAnswer(body: Json): ScriptedResponse {
  const model = String(body.model ?? 'mock-model');
  const input = Array.isArray(body.input) ? (body.input as Json[]) : [];
  const tools = Array.isArray(body.tools) ? (body.tools as Json[]) : [];
  const structured = ((body.text as Json | undefined)?.format as Json | undefined)?.type === 'json_schema';
  const item: Json =
    tools.length > 0 && input.at(-1)?.type !== 'function_call_output'
      ? { type: 'function_call', id: next('fc'), call_id: next('call'), name: tools[0].name, arguments: '{"location":"Paris"}', status: 'completed' }
      : { type: 'message', id: next('msg'), status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: structured ? JSON.stringify(STRUCTURED_ANSWER) : OPENAI_MOCK_TEXT, annotations: [] }] };
  const usage = { input_tokens: 20, input_tokens_details: { cached_tokens: 4 }, output_tokens: 10, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 30 };
  const response = { id: next('resp'), object: 'response', created_at: 1_700_000_000, status: 'completed', model, output: [item], usage, error: null, incomplete_details: null, tools, text: body.text ?? { format: { type: 'text' } }, parallel_tool_calls: true, tool_choice: 'auto', metadata: {} };
  if (body.stream !== true) return { headers: OPENAI_RATE_LIMIT_HEADERS, json: response };
  let sequence = 0;
  const event = (type: string, fields: Json) => ({ type, sequence_number: sequence++, ...fields });
  const pending = { ...response, status: 'in_progress', output: [], usage: null };
  const events: Json[] = [event('response.created', { response: pending }), event('response.in_progress', { response: pending })];
  if (item.type === 'message') {
    const text = ((item.content as Json[])[0] as Json).text as string;
    events.push(event('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } }));
    events.push(event('response.content_part.added', { item_id: item.id, output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } }));
    for (const piece of text.split(/(?<= )/)) events.push(event('response.output_text.delta', { item_id: item.id, output_index: 0, content_index: 0, delta: piece, logprobs: [] }));
    events.push(event('response.output_text.done', { item_id: item.id, output_index: 0, content_index: 0, text, logprobs: [] }));
    events.push(event('response.content_part.done', { item_id: item.id, output_index: 0, content_index: 0, part: { type: 'output_text', text, annotations: [] } }));
  } else {
    events.push(event('response.output_item.added', { output_index: 0, item: { ...item, arguments: '', status: 'in_progress' } }));
    events.push(event('response.function_call_arguments.delta', { item_id: item.id, output_index: 0, delta: item.arguments }));
    events.push(event('response.function_call_arguments.done', { item_id: item.id, output_index: 0, arguments: item.arguments }));
  }
  events.push(event('response.output_item.done', { output_index: 0, item }));
  events.push(event('response.completed', { response }));
  return { headers: OPENAI_RATE_LIMIT_HEADERS, chunks: events.map((data) => `event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`) };
}
