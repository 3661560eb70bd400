import { isRecord, recordField } from '../../providers/common/json-guards.js';
import type { OpenAIBody } from '../../providers/types.js';
import { namedEvent } from '../sse.js';
import type { DialectStreamEncoder } from '../types.js';
import { anthropicStreamError } from './errors.js';
import { anthropicUsageFrom, messageId, stopReasonFrom } from './response.js';

type Json = Record<string, unknown>;
type OpenBlock = { kind: 'text' } | { kind: 'thinking' } | { kind: 'tool'; toolIndex: number };

/**
 * Canonical chat chunks → Anthropic Messages stream events, one canonical chunk at a time: `message_start` on
 * the first chunk, one content block per run of text, reasoning or tool call (`text_delta`, `thinking_delta`,
 * `input_json_delta`), and `message_delta` (stop reason, usage) + `message_stop` when the canonical stream ends,
 * because canonical usage comes in the last chunk.
 */
export class MessagesStreamEncoder implements DialectStreamEncoder {
  private started = false;
  private blockIndex = -1;
  private open?: OpenBlock;
  private finishReason: unknown;
  private usage: unknown;

  constructor(private readonly body: OpenAIBody) {}

  chunk(chunk: Json): Uint8Array[] {
    const out: Uint8Array[] = [];
    if (!this.started) out.push(this.messageStart(chunk));
    if (chunk.usage) this.usage = chunk.usage;
    const choice = Array.isArray(chunk.choices) && isRecord(chunk.choices[0]) ? chunk.choices[0] : undefined;
    if (!choice) return out;
    const delta = recordField(choice, 'delta') ?? {};
    if (typeof delta.reasoning_content === 'string' && delta.reasoning_content !== '') {
      if (this.open?.kind !== 'thinking') this.startBlock(out, { kind: 'thinking' }, { type: 'thinking', thinking: '', signature: '' });
      out.push(this.delta({ type: 'thinking_delta', thinking: delta.reasoning_content }));
    }
    if (typeof delta.content === 'string' && delta.content !== '') {
      if (this.open?.kind !== 'text') this.startBlock(out, { kind: 'text' }, { type: 'text', text: '' });
      out.push(this.delta({ type: 'text_delta', text: delta.content }));
    }
    if (Array.isArray(delta.tool_calls)) for (const call of delta.tool_calls) if (isRecord(call)) this.toolDelta(out, call);
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    return out;
  }

  done(): Uint8Array[] {
    const out: Uint8Array[] = [];
    if (!this.started) out.push(this.messageStart({}));
    this.closeBlock(out);
    const usage = anthropicUsageFrom(this.usage);
    out.push(namedEvent('message_delta', { type: 'message_delta', delta: { stop_reason: stopReasonFrom(this.finishReason), stop_sequence: null }, usage }));
    out.push(namedEvent('message_stop', { type: 'message_stop' }));
    return out;
  }

  error(error: Json): Uint8Array[] {
    return [namedEvent('error', anthropicStreamError(error))];
  }

  private messageStart(chunk: Json): Uint8Array {
    this.started = true;
    const message = {
      id: messageId(chunk.id),
      type: 'message',
      role: 'assistant',
      model: typeof chunk.model === 'string' ? chunk.model : this.body.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 0, output_tokens: 0 },
    };
    return namedEvent('message_start', { type: 'message_start', message });
  }

  private toolDelta(out: Uint8Array[], call: Json): void {
    const toolIndex = typeof call.index === 'number' ? call.index : 0;
    const fn = recordField(call, 'function') ?? {};
    if (this.open?.kind !== 'tool' || this.open.toolIndex !== toolIndex) {
      this.startBlock(out, { kind: 'tool', toolIndex }, { type: 'tool_use', id: call.id ?? `toolu_${toolIndex}`, name: fn.name ?? '', input: {} });
    }
    if (typeof fn.arguments === 'string' && fn.arguments !== '') out.push(this.delta({ type: 'input_json_delta', partial_json: fn.arguments }));
  }

  private startBlock(out: Uint8Array[], block: OpenBlock, contentBlock: Json): void {
    this.closeBlock(out);
    this.open = block;
    this.blockIndex++;
    out.push(namedEvent('content_block_start', { type: 'content_block_start', index: this.blockIndex, content_block: contentBlock }));
  }

  private closeBlock(out: Uint8Array[]): void {
    if (!this.open) return;
    out.push(namedEvent('content_block_stop', { type: 'content_block_stop', index: this.blockIndex }));
    this.open = undefined;
  }

  private delta(delta: Json): Uint8Array {
    return namedEvent('content_block_delta', { type: 'content_block_delta', index: this.blockIndex, delta });
  }
}
