import type { MockHandler, RecordedRequest, ScriptedResponse } from './mock-upstream.js';

type Json = Record<string, unknown>;

export const ANTHROPIC_MOCK_TEXT = 'Hello from the Anthropic mock!';
/** The JSON the mocks answer when a request asks for structured output. */
export const STRUCTURED_ANSWER = { city: 'Paris', temperature_c: 21 };
export const MOCK_RATE_LIMIT_HEADERS = { 'anthropic-ratelimit-requests-remaining': '99', 'anthropic-ratelimit-tokens-limit': '80000', 'request-id': 'req_anthropic_mock' };

let counter = 0;

/** The last message carries a tool result: the conversation is coming back from a tool call. */
function answersToolResult(body: Json): boolean {
  const last = Array.isArray(body.messages) ? (body.messages.at(-1) as Json | undefined) : undefined;
  return Array.isArray(last?.content) && (last.content as Json[]).some((block) => block.type === 'tool_result');
}

/**
 * An Anthropic Messages API mock, like the real API: JSON and SSE answers, a `tool_use` when tools are offered
 * (until a tool result comes back), thinking blocks when thinking is on, JSON text for structured output, and
 * `count_tokens`. Its tool input is `{"location":"Paris"}` for the first tool offered.
 */
export function anthropicMockHandler(): MockHandler {
  return (request: RecordedRequest): ScriptedResponse => {
    const body = (request.json ?? {}) as Json;
    if (request.path.endsWith('/count_tokens')) return { json: { input_tokens: 42 } };
    const model = typeof body.model === 'string' ? body.model : 'claude-mock';
    const tools = Array.isArray(body.tools) ? (body.tools as Json[]) : [];
    const content: Json[] = [];
    const thinking = (body.thinking as Json | undefined)?.type === 'enabled';
    if (thinking) content.push({ type: 'thinking', thinking: 'Let me think.', signature: 'sig_mock' });
    const structured = ((body.output_config as Json | undefined)?.format as Json | undefined)?.type === 'json_schema';
    if (tools.length > 0 && !answersToolResult(body)) {
      content.push({ type: 'tool_use', id: `toolu_mock_${++counter}`, name: tools[0].name, input: { location: 'Paris' } });
    } else {
      content.push({ type: 'text', text: structured ? JSON.stringify(STRUCTURED_ANSWER) : ANTHROPIC_MOCK_TEXT });
    }
    const stopReason = content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn';
    const usage = { input_tokens: 25, output_tokens: 15, cache_read_input_tokens: 5, cache_creation_input_tokens: 0 };
    const id = `msg_mock_${++counter}`;
    if (body.stream !== true) {
      return { headers: MOCK_RATE_LIMIT_HEADERS, json: { id, type: 'message', role: 'assistant', model, content, stop_reason: stopReason, stop_sequence: null, usage } };
    }
    return { headers: MOCK_RATE_LIMIT_HEADERS, chunks: anthropicStream(id, model, content, stopReason, usage) };
  };
}

/** The SSE events Anthropic sends for a message with these content blocks. */
export function anthropicStream(id: string, model: string, content: Json[], stopReason: string, usage: Json): string[] {
  const events: Array<[string, Json]> = [
    ['message_start', { type: 'message_start', message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } }],
    ['ping', { type: 'ping' }],
  ];
  content.forEach((block, index) => {
    if (block.type === 'text') {
      events.push(['content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }]);
      for (const piece of String(block.text).split(/(?<= )/)) events.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } }]);
    } else if (block.type === 'thinking') {
      events.push(['content_block_start', { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } }]);
      events.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: block.thinking } }]);
      events.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: block.signature } }]);
    } else if (block.type === 'tool_use') {
      events.push(['content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } }]);
      const json = JSON.stringify(block.input);
      events.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: json.slice(0, 5) } }]);
      events.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: json.slice(5) } }]);
    }
    events.push(['content_block_stop', { type: 'content_block_stop', index }]);
  });
  events.push(['message_delta', { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } }]);
  events.push(['message_stop', { type: 'message_stop' }]);
  return events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
}
