import { ChunkFactory, newChatCompletionId } from '../common/chunks.js';
import type { OpenAIUsage } from '../common/openai-types.js';
import type { StreamEvent, StreamTranslator } from '../types.js';
import { summariseStreamException } from './errors.js';
import { EventStreamDecodeError, EventStreamDecoder, type EventStreamMessage } from './event-stream.js';
import { finishReasonOf, malformedOutputError, usageOf } from './finish-and-usage.js';
import { asRecord, isRecord, stringOf } from './json.js';
import { thinkingBlockOf, type ThinkingBlock } from './thinking-blocks.js';

/**
 * ConverseStream (AWS binary event stream) → OpenAI chat chunks.
 *
 * - The role chunk is held back until the first content, so an exception that arrives before any content
 *   still fails the request with an HTTP status (where routing can retry or fall back).
 * - Each `toolUse` content block gets the next tool-call index, whatever its content-block index.
 * - Bedrock ends with `messageStop` (the finish reason) and then `metadata` (usage); gw answers with the finish
 *   chunk, the usage chunk and `done` once both arrived, in that order whichever came first.
 */
export class ConverseStreamTranslator implements StreamTranslator {
  private readonly decoder = new EventStreamDecoder();
  private readonly chunks: ChunkFactory;
  private readonly toolIndexByBlock = new Map<number, number | 'ignored'>();
  private readonly toolBlocksWithInput = new Set<number>();
  private readonly reasoningByBlock = new Map<number, { text: string; signature: string; redacted: string }>();
  private readonly thinkingBlocks: ThinkingBlock[] = [];
  private nextToolIndex = 0;
  private roleSent = false;
  private stopped = false;
  private usage?: OpenAIUsage;
  private over = false;

  constructor(
    model: string,
    private readonly legacyFunctions: boolean,
    id: string = newChatCompletionId(),
  ) {
    this.chunks = new ChunkFactory(id, model);
  }

  push(bytes: Uint8Array): StreamEvent[] {
    if (this.over) return [];
    let messages: EventStreamMessage[];
    try {
      messages = this.decoder.push(bytes);
    } catch (error) {
      if (!(error instanceof EventStreamDecodeError)) throw error;
      return this.fail(502, { message: `Bedrock sent an unreadable event stream (${error.message})`, type: 'upstream_error', code: 'invalid_event_stream', param: null });
    }
    const events: StreamEvent[] = [];
    for (const message of messages) {
      events.push(...this.handle(message));
      if (this.over) break;
    }
    return events;
  }

  end(): StreamEvent[] {
    if (this.over) return [];
    // A stream that stopped but never sent its metadata is still a complete answer, only without usage.
    if (this.stopped) return this.complete();
    // Otherwise the stream is truncated; the relay reports that.
    return [];
  }

  private handle(message: EventStreamMessage): StreamEvent[] {
    if (message.kind === 'error') {
      return this.fail(502, { message: message.errorMessage || `Bedrock stream error ${message.errorCode}`, type: 'upstream_error', code: message.errorCode, param: null }, message);
    }
    if (message.kind === 'exception') {
      const { status, error } = summariseStreamException(message.exceptionType, message.payload);
      return this.fail(status, error, message.payload);
    }
    const payload = asRecord(message.payload);
    switch (message.eventType) {
      case 'contentBlockStart':
        return this.onBlockStart(payload);
      case 'contentBlockDelta':
        return this.onBlockDelta(payload);
      case 'contentBlockStop':
        return this.onBlockStop(payload);
      case 'messageStop':
        return this.onMessageStop(payload);
      case 'metadata':
        return this.onMetadata(payload);
      default:
        // messageStart and events gw has no use for carry nothing to relay.
        return [];
    }
  }

  private onBlockStart(payload: Record<string, unknown>): StreamEvent[] {
    const toolUse = asRecord(payload.start).toolUse;
    if (!isRecord(toolUse)) return [];
    const block = blockIndexOf(payload);
    // The legacy `function_call` holds one call; later ones have nowhere to go.
    if (this.legacyFunctions && this.nextToolIndex > 0) {
      this.toolIndexByBlock.set(block, 'ignored');
      return [];
    }
    const index = this.nextToolIndex++;
    this.toolIndexByBlock.set(block, index);
    const id = stringOf(toolUse.toolUseId) ?? `call_${index}`;
    const name = stringOf(toolUse.name) ?? '';
    if (this.legacyFunctions) return this.emit(withDelta(this.chunks.content(''), { function_call: { name, arguments: '' } }));
    return this.emit(this.chunks.toolCallStart(index, id, name));
  }

  private onBlockDelta(payload: Record<string, unknown>): StreamEvent[] {
    const delta = asRecord(payload.delta);
    if (typeof delta.text === 'string') return delta.text === '' ? [] : this.emit(this.chunks.content(delta.text));
    if (isRecord(delta.toolUse)) {
      const input = stringOf(delta.toolUse.input) ?? '';
      const index = this.toolIndexByBlock.get(blockIndexOf(payload));
      if (index === undefined) {
        return this.fail(502, { message: 'Bedrock streamed tool input for a tool call it never started', type: 'upstream_error', code: 'invalid_event_stream', param: null }, payload);
      }
      if (index === 'ignored' || input === '') return [];
      this.toolBlocksWithInput.add(blockIndexOf(payload));
      if (this.legacyFunctions) return this.emit(withDelta(this.chunks.content(''), { function_call: { arguments: input } }));
      return this.emit(this.chunks.toolCallArguments(index, input));
    }
    if (isRecord(delta.reasoningContent)) {
      // The readable text streams as it comes; the signature (or redacted reasoning) is kept for the block's end.
      const block = blockIndexOf(payload);
      const reasoning = this.reasoningByBlock.get(block) ?? { text: '', signature: '', redacted: '' };
      this.reasoningByBlock.set(block, reasoning);
      const text = stringOf(delta.reasoningContent.text);
      reasoning.signature += stringOf(delta.reasoningContent.signature) ?? '';
      reasoning.redacted += stringOf(delta.reasoningContent.redactedContent) ?? '';
      if (!text) return [];
      reasoning.text += text;
      return this.emit(this.chunks.reasoning(text));
    }
    return [];
  }

  /**
   * At the end of a tool block that streamed no input: `{}`, so clients parse valid JSON arguments. At the end
   * of a reasoning block: a snapshot of every signed thinking block so far (clients keep the last).
   */
  private onBlockStop(payload: Record<string, unknown>): StreamEvent[] {
    const blockIndex = blockIndexOf(payload);
    const toolIndex = this.toolIndexByBlock.get(blockIndex);
    if (typeof toolIndex === 'number' && !this.toolBlocksWithInput.has(blockIndex)) {
      this.toolBlocksWithInput.add(blockIndex);
      if (this.legacyFunctions) return this.emit(withDelta(this.chunks.content(''), { function_call: { arguments: '{}' } }));
      return this.emit(this.chunks.toolCallArguments(toolIndex, '{}'));
    }
    const reasoning = this.reasoningByBlock.get(blockIndex);
    if (!reasoning) return [];
    this.reasoningByBlock.delete(blockIndex);
    const block = thinkingBlockOf(reasoning.text, reasoning.signature || undefined, reasoning.redacted || undefined);
    if (!block) return [];
    this.thinkingBlocks.push(block);
    return this.emit(withDelta(this.chunks.content(''), { thinking_blocks: [...this.thinkingBlocks] }));
  }

  private onMessageStop(payload: Record<string, unknown>): StreamEvent[] {
    if (this.stopped) return [];
    this.stopped = true;
    const malformed = malformedOutputError(payload.stopReason);
    if (malformed) return this.fail(502, malformed, payload);
    const events = this.emit(this.chunks.finish(finishReasonOf(payload.stopReason, this.legacyFunctions)));
    if (this.usage) events.push(...this.complete());
    return events;
  }

  private onMetadata(payload: Record<string, unknown>): StreamEvent[] {
    if (!isRecord(payload.usage)) return [];
    this.usage = usageOf(payload.usage);
    return this.stopped ? this.complete() : [];
  }

  private complete(): StreamEvent[] {
    this.over = true;
    const events: StreamEvent[] = [];
    if (this.usage) events.push({ type: 'chunk', chunk: this.chunks.usage(this.usage) });
    events.push({ type: 'done' });
    return events;
  }

  private emit(chunk: Record<string, unknown>): StreamEvent[] {
    const events: StreamEvent[] = [];
    if (!this.roleSent) {
      this.roleSent = true;
      events.push({ type: 'chunk', chunk: this.chunks.role() });
    }
    events.push({ type: 'chunk', chunk });
    return events;
  }

  private fail(status: number, error: Extract<StreamEvent, { type: 'error' }>['error'], providerError?: unknown): StreamEvent[] {
    this.over = true;
    return [{ type: 'error', status, error, providerError }];
  }
}

function blockIndexOf(payload: Record<string, unknown>): number {
  return typeof payload.contentBlockIndex === 'number' ? payload.contentBlockIndex : 0;
}

/** A chunk with a delta ChunkFactory has no method for (the legacy `function_call`, `thinking_blocks`). */
function withDelta(chunk: Record<string, unknown>, delta: Record<string, unknown>): Record<string, unknown> {
  const [choice] = chunk.choices as Array<Record<string, unknown>>;
  return { ...chunk, choices: [{ ...choice, delta }] };
}
