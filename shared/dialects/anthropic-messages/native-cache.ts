import { encodeSseData } from '../../http/sse.js';
import { isRecord } from '../../providers/common/json-guards.js';
import { pieces } from '../../gateway/cache/replay.js';
import type { NativeAnswerCollector } from '../types.js';

type Json = Record<string, unknown>;

/**
 * A native Messages stream folded back into the Message a JSON call would have returned, for the cache:
 * `message_start` gives the envelope, each content block is rebuilt from its start and deltas (text, tool input
 * JSON, thinking, signature, citations), `message_delta` the stop reason and final usage. Only a stream that
 * reached `message_stop` yields an answer.
 */
export function collectMessage(): NativeAnswerCollector {
  let message: Json | undefined;
  let stopped = false;
  const blocks: Json[] = [];
  const inputJson: string[] = [];
  return {
    add(event) {
      const index = typeof event.index === 'number' ? event.index : -1;
      switch (event.type) {
        case 'message_start':
          if (isRecord(event.message)) message = { ...event.message };
          break;
        case 'content_block_start':
          if (index >= 0 && isRecord(event.content_block)) blocks[index] = { ...event.content_block };
          break;
        case 'content_block_delta':
          if (blocks[index] && isRecord(event.delta)) applyDelta(blocks[index], event.delta, (json) => (inputJson[index] = (inputJson[index] ?? '') + json));
          break;
        case 'content_block_stop':
          if (blocks[index] && inputJson[index]) blocks[index].input = parsedInput(inputJson[index], blocks[index].input);
          break;
        case 'message_delta':
          if (!message) break;
          if (isRecord(event.delta)) Object.assign(message, pick(event.delta, ['stop_reason', 'stop_sequence']));
          if (isRecord(event.usage)) message.usage = { ...(isRecord(message.usage) ? message.usage : {}), ...event.usage };
          break;
        case 'message_stop':
          stopped = true;
          break;
      }
    },
    result: () => (stopped && message ? { ...message, content: blocks.filter(Boolean) } : undefined),
  };
}

function applyDelta(block: Json, delta: Json, addJson: (json: string) => void): void {
  if (delta.type === 'text_delta' && typeof delta.text === 'string') block.text = String(block.text ?? '') + delta.text;
  else if (delta.type === 'input_json_delta' && typeof delta.partial_json === 'string') addJson(delta.partial_json);
  else if (delta.type === 'thinking_delta' && typeof delta.thinking === 'string') block.thinking = String(block.thinking ?? '') + delta.thinking;
  else if (delta.type === 'signature_delta' && typeof delta.signature === 'string') block.signature = delta.signature;
  else if (delta.type === 'citations_delta' && delta.citation !== undefined) block.citations = [...(Array.isArray(block.citations) ? block.citations : []), delta.citation];
}

function parsedInput(json: string, fallback: unknown): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return fallback;
  }
}

function pick(source: Json, keys: string[]): Json {
  return Object.fromEntries(keys.filter((key) => key in source).map((key) => [key, source[key]]));
}

/**
 * A cached Message replayed as Anthropic streams one: message_start, each content block started, fed in
 * deltas (text, tool input JSON, thinking and its signature) and stopped, message_delta with the stop reason
 * and usage, message_stop. Blocks without deltas (tool results of server tools, redacted thinking) start whole.
 */
export function* replayMessage(stored: Json): Generator<Uint8Array> {
  const { content, stop_reason: stopReason, stop_sequence: stopSequence, usage, ...envelope } = stored;
  const usageObject = isRecord(usage) ? usage : {};
  yield encodeSseData({ type: 'message_start', message: { ...envelope, content: [], stop_reason: null, stop_sequence: null, usage: { ...usageObject, output_tokens: 0 } } });
  const blocks = Array.isArray(content) ? content.filter(isRecord) : [];
  for (const [index, block] of blocks.entries()) {
    const delta = (value: Json) => encodeSseData({ type: 'content_block_delta', index, delta: value });
    if (block.type === 'text' && typeof block.text === 'string') {
      yield encodeSseData({ type: 'content_block_start', index, content_block: { ...block, text: '' } });
      for (const piece of pieces(block.text)) yield delta({ type: 'text_delta', text: piece });
    } else if (block.type === 'thinking' && typeof block.thinking === 'string') {
      yield encodeSseData({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } });
      for (const piece of pieces(block.thinking)) yield delta({ type: 'thinking_delta', thinking: piece });
      if (typeof block.signature === 'string') yield delta({ type: 'signature_delta', signature: block.signature });
    } else if ((block.type === 'tool_use' || block.type === 'server_tool_use') && block.input !== undefined) {
      yield encodeSseData({ type: 'content_block_start', index, content_block: { ...block, input: {} } });
      for (const piece of pieces(JSON.stringify(block.input))) yield delta({ type: 'input_json_delta', partial_json: piece });
    } else {
      yield encodeSseData({ type: 'content_block_start', index, content_block: block });
    }
    yield encodeSseData({ type: 'content_block_stop', index });
  }
  yield encodeSseData({ type: 'message_delta', delta: { stop_reason: stopReason ?? null, stop_sequence: stopSequence ?? null }, usage: usageObject });
  yield encodeSseData({ type: 'message_stop' });
}
