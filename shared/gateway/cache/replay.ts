import { SSE_DONE, encodeSseData } from '../../http/sse.js';
import { merged } from '../../merged.js';

const PIECE_CHARS = 24;

/**
 * Replays a cached response as a proper SSE stream: content and reasoning split into deltas, tool calls
 * started with their index and id then fed their arguments, the finish reason, the usage chunk when the
 * client asked for it, and `[DONE]` — never one giant chunk. `id`, `created` and usage are the stored ones.
 */
export function* replayAsSse(stored: Record<string, unknown>, includeUsage: boolean): Generator<Uint8Array> {
  const base = { id: stored.id, object: stored.object === 'text_completion' ? 'text_completion' : 'chat.completion.chunk', created: stored.created, model: stored.model };
  const choices = (stored.choices as Array<Record<string, unknown>> | undefined) ?? [];
  for (const choice of choices) {
    const index = choice.index ?? 0;
    if (stored.object === 'text_completion') {
      for (const piece of pieces(String(choice.text ?? ''))) yield encodeSseData(merged(base, { choices: [{ index, text: piece, finish_reason: null, logprobs: null }] }));
      yield encodeSseData(merged(base, { choices: [{ index, text: '', finish_reason: choice.finish_reason ?? 'stop', logprobs: null }] }));
      continue;
    }
    const message = (choice.message ?? {}) as Record<string, unknown>;
    const delta = (value: Record<string, unknown>, finish: unknown = null) => encodeSseData(merged(base, { choices: [{ index, delta: value, logprobs: null, finish_reason: finish }] }));
    yield delta({ role: message.role ?? 'assistant', content: '' });
    for (const piece of pieces(String(message.reasoning_content ?? ''))) yield delta({ reasoning_content: piece });
    for (const piece of pieces(typeof message.content === 'string' ? message.content : '')) yield delta({ content: piece });
    const toolCalls = (message.tool_calls as Array<{ id: string; type: string; function: { name: string; arguments: string } }> | undefined) ?? [];
    for (const [callIndex, call] of toolCalls.entries()) {
      yield delta({ tool_calls: [{ index: callIndex, id: call.id, type: call.type, function: { name: call.function.name, arguments: '' } }] });
      for (const piece of pieces(call.function.arguments)) yield delta({ tool_calls: [{ index: callIndex, function: { arguments: piece } }] });
    }
    yield delta({}, choice.finish_reason ?? 'stop');
  }
  if (includeUsage && stored.usage) yield encodeSseData(merged(base, { choices: [], usage: stored.usage }));
  yield SSE_DONE;
}

/** Splits text into pieces of about PIECE_CHARS, at word boundaries where there are some. */
export function pieces(text: string): string[] {
  const out: string[] = [];
  let current = '';
  for (const word of text.split(/(?<=\s)/)) {
    if (current.length > 0 && current.length + word.length > PIECE_CHARS) {
      out.push(current);
      current = '';
    }
    if (word.length <= PIECE_CHARS) {
      current += word;
      continue;
    }
    // A long run without spaces (tool-call JSON, URLs) is cut by code points, never inside a character.
    const characters = Array.from(word);
    for (let i = 0; i < characters.length; i += PIECE_CHARS) out.push(characters.slice(i, i + PIECE_CHARS).join(''));
  }
  if (current) out.push(current);
  return out;
}
