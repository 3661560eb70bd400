import { encodeSseData } from '../../http/sse.js';
import { isRecord } from '../../providers/common/json-guards.js';
import { pieces } from '../../gateway/cache/replay.js';
import type { NativeAnswerCollector } from '../types.js';

type Json = Record<string, unknown>;

/**
 * A native Responses stream's answer for the cache: the whole Response its final `response.completed` (or
 * `response.incomplete`, cut by max_output_tokens, as a translated answer cut by `length` is kept) carries. A
 * failed stream has no answer (as a translated stream is stored only after a clean end).
 */
export function collectResponse(): NativeAnswerCollector {
  let final: Json | undefined;
  return {
    add: (event) => {
      if ((event.type === 'response.completed' || event.type === 'response.incomplete') && isRecord(event.response)) final = event.response;
    },
    result: () => final,
  };
}

/** Whether a native JSON answer may be cached: a Response that failed, was cancelled or is still running is not. */
export function cacheableResponse(response: Json): boolean {
  return response.status === undefined || response.status === 'completed' || response.status === 'incomplete';
}

/**
 * A cached Response replayed as the Responses API streams one: created, in progress, each output item added
 * with its text or arguments in deltas and done, then completed with the whole Response. Every event has its
 * `sequence_number`; the dialect edge names each event after its `type`.
 */
export function* replayResponse(stored: Json): Generator<Uint8Array> {
  let sequence = 0;
  const event = (type: string, fields: Json) => encodeSseData({ type, sequence_number: sequence++, ...fields });
  const output = Array.isArray(stored.output) ? (stored.output as unknown[]).filter(isRecord) : [];
  const opening = { ...stored, status: 'in_progress', output: [] };
  yield event('response.created', { response: opening });
  yield event('response.in_progress', { response: opening });
  for (const [outputIndex, item] of output.entries()) {
    const itemId = item.id;
    if (item.type === 'message' && Array.isArray(item.content)) {
      yield event('response.output_item.added', { output_index: outputIndex, item: { ...item, status: 'in_progress', content: [] } });
      for (const [contentIndex, part] of (item.content as unknown[]).filter(isRecord).entries()) {
        const at = { item_id: itemId, output_index: outputIndex, content_index: contentIndex };
        const text = typeof part.text === 'string' ? part.text : typeof part.refusal === 'string' ? part.refusal : undefined;
        yield event('response.content_part.added', { ...at, part: text === undefined ? part : { ...part, [part.type === 'refusal' ? 'refusal' : 'text']: '' } });
        if (text !== undefined) {
          const delta = part.type === 'refusal' ? 'response.refusal' : 'response.output_text';
          for (const piece of pieces(text)) yield event(`${delta}.delta`, { ...at, delta: piece });
          yield event(`${delta}.done`, { ...at, [part.type === 'refusal' ? 'refusal' : 'text']: text });
        }
        yield event('response.content_part.done', { ...at, part });
      }
    } else if (item.type === 'function_call' && typeof item.arguments === 'string') {
      yield event('response.output_item.added', { output_index: outputIndex, item: { ...item, status: 'in_progress', arguments: '' } });
      const at = { item_id: itemId, output_index: outputIndex };
      for (const piece of pieces(item.arguments)) yield event('response.function_call_arguments.delta', { ...at, delta: piece });
      yield event('response.function_call_arguments.done', { ...at, arguments: item.arguments });
    } else {
      yield event('response.output_item.added', { output_index: outputIndex, item });
    }
    yield event('response.output_item.done', { output_index: outputIndex, item });
  }
  yield event(stored.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response: stored });
}
