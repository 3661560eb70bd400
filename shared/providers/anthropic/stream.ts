import { SseDecoder, type EventSourceMessage } from '../../http/sse.js';
import { ChunkFactory, newChatCompletionId } from '../common/chunks.js';
import { isRecord, recordField, stringField } from '../common/json-guards.js';
import type { OpenAIFinishReason } from '../common/openai-types.js';
import type { AdapterInput, StreamEvent, StreamTranslator } from '../types.js';
import { statusForAnthropicError, summariseAnthropicError } from './errors.js';
import { finishReasonFrom, mergeTokenCounts, NO_TOKENS, usageFrom, type AnthropicTokenCounts } from './mapping.js';
import { usesLegacyFunctions } from './request-tools.js';
import { citationsOf } from './web-search.js';

/** What the translator remembers about one Anthropic content block, by the block's `index`. */
type BlockState =
  /** `start` is where the block begins in the answer's text; web search citations arrive before its text. */
  | { kind: 'text'; start: number; text: string; citations: unknown[] }
  /** `toolIndex` counts tool_use blocks only: OpenAI's tool-call index, not Anthropic's block index. */
  | { kind: 'tool'; toolIndex: number; sentArguments: boolean; name: string; json: string }
  | { kind: 'thinking'; thinking: string; signature?: string }
  | { kind: 'redacted'; data: string }
  | { kind: 'ignored' };

export function createAnthropicStreamTranslator(input: AdapterInput): StreamTranslator {
  return new AnthropicStreamTranslator(typeof input.body.model === 'string' ? input.body.model : '', usesLegacyFunctions(input.body));
}

/**
 * Anthropic Messages SSE → OpenAI `chat.completion.chunk` events.
 *
 * The role chunk is held back until the first content block (not sent on `message_start`), so an
 * `overloaded_error` that Anthropic sends right after `message_start` still reaches the gateway before anything
 * was committed to the client, and can be retried or fall back. The finish chunk goes out on `message_delta`,
 * the usage chunk and `done` on `message_stop`. After an `error` event the stream is over: nothing else is read.
 */
export class AnthropicStreamTranslator implements StreamTranslator {
  private readonly decoder = new SseDecoder();
  private factory?: ChunkFactory;
  private readonly blocks = new Map<number, BlockState>();
  private toolCount = 0;
  /** Characters of answer text sent so far: annotation indexes count in it. */
  private written = 0;
  private roleSent = false;
  private finishSent = false;
  private over = false;
  private counts: AnthropicTokenCounts = NO_TOKENS;
  private readonly thinkingBlocks: Array<Record<string, unknown>> = [];
  /** The name of a tool whose streamed input did not parse as JSON: a `tool_use` stop then is an error. */
  private malformedTool?: string;

  constructor(
    private readonly requestModel: string,
    private readonly legacyFunctions: boolean,
  ) {}

  push(bytes: Uint8Array): StreamEvent[] {
    return this.translate(this.decoder.push(bytes));
  }

  end(): StreamEvent[] {
    // A stream that stops before message_stop yields no `done`: the relay reports it as truncated.
    return this.translate(this.decoder.end());
  }

  private translate(messages: EventSourceMessage[]): StreamEvent[] {
    const out: StreamEvent[] = [];
    for (const message of messages) {
      if (this.over) break;
      const data = message.data.trim();
      if (data === '') continue;
      let event: unknown;
      try {
        event = JSON.parse(data);
      } catch {
        this.over = true;
        out.push({ type: 'error', status: 502, error: { message: 'Anthropic sent a stream event that is not JSON', type: 'upstream_error', code: 'upstream_invalid_stream' }, providerError: data.slice(0, 500) });
        break;
      }
      if (isRecord(event)) this.handle(event, message.event, out);
    }
    return out;
  }

  private handle(event: Record<string, unknown>, name: string | undefined, out: StreamEvent[]): void {
    switch (stringField(event, 'type') ?? name) {
      case 'message_start':
        return this.onMessageStart(recordField(event, 'message') ?? {});
      case 'content_block_start':
        return this.onBlockStart(event, out);
      case 'content_block_delta':
        return this.onBlockDelta(event, out);
      case 'content_block_stop':
        return this.onBlockStop(event, out);
      case 'message_delta':
        return this.onMessageDelta(event, out);
      case 'message_stop':
        return this.onMessageStop(out);
      case 'error':
        return this.onError(event, out);
      default:
        // `ping`, and event types Anthropic may add later, carry nothing to translate.
        return;
    }
  }

  /** Anthropic's in-stream error (e.g. overloaded_error): reported with the status its type stands for; the stream is over. */
  private onError(event: Record<string, unknown>, out: StreamEvent[]): void {
    this.over = true;
    const status = statusForAnthropicError(event);
    out.push({ type: 'error', status, error: summariseAnthropicError(status, event), providerError: event });
  }

  private onMessageStart(message: Record<string, unknown>): void {
    this.factory = new ChunkFactory(stringField(message, 'id') ?? newChatCompletionId(), stringField(message, 'model') ?? this.requestModel);
    this.counts = mergeTokenCounts(this.counts, message.usage);
  }

  private onBlockStart(event: Record<string, unknown>, out: StreamEvent[]): void {
    const index = blockIndex(event);
    const block = recordField(event, 'content_block') ?? {};
    switch (block.type) {
      case 'text': {
        const state: BlockState = { kind: 'text', start: this.written, text: '', citations: Array.isArray(block.citations) ? [...(block.citations as unknown[])] : [] };
        this.blocks.set(index, state);
        const text = stringField(block, 'text');
        if (text) this.sendText(state, text, out);
        return;
      }
      case 'tool_use':
        return this.onToolStart(index, block, out);
      case 'thinking': {
        const thinking = stringField(block, 'thinking') ?? '';
        this.blocks.set(index, { kind: 'thinking', thinking, signature: stringField(block, 'signature') });
        if (thinking) this.emit(out, this.factoryNow().reasoning(thinking));
        return;
      }
      case 'redacted_thinking':
        this.blocks.set(index, { kind: 'redacted', data: stringField(block, 'data') ?? '' });
        return;
      default:
        // Server-tool calls and their results have no OpenAI counterpart.
        this.blocks.set(index, { kind: 'ignored' });
    }
  }

  private onToolStart(index: number, block: Record<string, unknown>, out: StreamEvent[]): void {
    const toolIndex = this.toolCount++;
    const id = stringField(block, 'id') ?? `toolu_gw_${toolIndex}`;
    const name = stringField(block, 'name') ?? '';
    if (this.legacyFunctions && toolIndex > 0) {
      // The legacy API carries one function_call (gw asked for no parallel calls); extra calls cannot be shown.
      this.blocks.set(index, { kind: 'ignored' });
      return;
    }
    const state: Extract<BlockState, { kind: 'tool' }> = { kind: 'tool', toolIndex, sentArguments: false, name, json: '' };
    this.blocks.set(index, state);
    this.emit(out, this.legacyFunctions ? this.delta({ function_call: { name, arguments: '' } }) : this.factoryNow().toolCallStart(toolIndex, id, name));
    // Anthropic streams the input as deltas and starts with `{}`; a non-empty start input is sent whole.
    if (isRecord(block.input) && Object.keys(block.input).length > 0) {
      state.json = JSON.stringify(block.input);
      this.sendArguments(state, state.json, out);
    }
  }

  private onBlockDelta(event: Record<string, unknown>, out: StreamEvent[]): void {
    const state = this.blocks.get(blockIndex(event));
    const delta = recordField(event, 'delta') ?? {};
    if (!state) return;
    switch (delta.type) {
      case 'text_delta': {
        const text = stringField(delta, 'text');
        if (text && state.kind === 'text') this.sendText(state, text, out);
        return;
      }
      case 'citations_delta':
        if (state.kind === 'text' && isRecord(delta.citation)) state.citations.push(delta.citation);
        return;
      case 'input_json_delta': {
        const partial = stringField(delta, 'partial_json');
        if (partial && state.kind === 'tool') {
          state.json += partial;
          this.sendArguments(state, partial, out);
        }
        return;
      }
      case 'thinking_delta': {
        const thinking = stringField(delta, 'thinking');
        if (thinking && state.kind === 'thinking') {
          state.thinking += thinking;
          this.emit(out, this.factoryNow().reasoning(thinking));
        }
        return;
      }
      case 'signature_delta':
        if (state.kind === 'thinking') state.signature = stringField(delta, 'signature') ?? state.signature;
        return;
      default:
        // Future delta types: nothing OpenAI's chunk format can carry.
        return;
    }
  }

  private onBlockStop(event: Record<string, unknown>, out: StreamEvent[]): void {
    const index = blockIndex(event);
    const state = this.blocks.get(index);
    this.blocks.delete(index);
    if (!state) return;
    if (state.kind === 'text') {
      // A cited block's span is known once its text is: the annotations follow the text they cite.
      const annotations = citationsOf({ citations: state.citations }, state.start, state.text.length);
      if (annotations.length > 0) this.emit(out, this.delta({ annotations }));
      return;
    }
    if (state.kind === 'tool' && !state.sentArguments) {
      // A tool without input still needs valid JSON arguments once reassembled.
      this.sendArguments(state, '{}', out);
    } else if (state.kind === 'tool' && !parsesAsJson(state.json)) {
      this.malformedTool ??= state.name;
    } else if (state.kind === 'thinking' || state.kind === 'redacted') {
      this.thinkingBlocks.push(
        state.kind === 'thinking' ? { type: 'thinking', thinking: state.thinking, signature: state.signature ?? null } : { type: 'redacted_thinking', data: state.data },
      );
      // A snapshot of every signed block so far (not a delta), so whoever keeps the last value has them all.
      this.emit(out, this.delta({ thinking_blocks: [...this.thinkingBlocks] }));
    }
  }

  private onMessageDelta(event: Record<string, unknown>, out: StreamEvent[]): void {
    this.counts = mergeTokenCounts(this.counts, event.usage);
    const stopReason = recordField(event, 'delta')?.stop_reason;
    if (stopReason === 'tool_use' && this.malformedTool !== undefined) {
      // Never a finish that looks complete: the arguments the client would get cannot be parsed. (A call cut
      // by max_tokens is not this case: it ends as `length`, which says so.)
      this.over = true;
      const message = `Claude's call to tool '${this.malformedTool}' has input that is not valid JSON`;
      out.push({ type: 'error', status: 502, error: { message, type: 'upstream_error', code: 'malformed_tool_use', param: null }, providerError: event });
      return;
    }
    if (typeof stopReason === 'string' && !this.finishSent) this.sendFinish(finishReasonFrom(stopReason, this.legacyFunctions), out);
  }

  private onMessageStop(out: StreamEvent[]): void {
    if (!this.finishSent) this.sendFinish('stop', out);
    // Always sent: the relay strips it when the client did not ask for usage.
    out.push({ type: 'chunk', chunk: this.factoryNow().usage(usageFrom(this.counts)) });
    out.push({ type: 'done' });
    this.over = true;
  }

  private sendFinish(reason: OpenAIFinishReason, out: StreamEvent[]): void {
    this.emit(out, this.factoryNow().finish(reason));
    this.finishSent = true;
  }

  private sendArguments(state: Extract<BlockState, { kind: 'tool' }>, json: string, out: StreamEvent[]): void {
    state.sentArguments = true;
    this.emit(out, this.legacyFunctions ? this.delta({ function_call: { arguments: json } }) : this.factoryNow().toolCallArguments(state.toolIndex, json));
  }

  /**
   * Sends one chunk, preceded (once) by the assistant role chunk: the role opens the OpenAI stream, and
   * sending it only with real content keeps early errors uncommitted.
   */
  private emit(out: StreamEvent[], chunk: Record<string, unknown>): void {
    if (!this.roleSent) {
      this.roleSent = true;
      out.push({ type: 'chunk', chunk: this.factoryNow().role() });
    }
    out.push({ type: 'chunk', chunk });
  }

  /** A chunk with a delta ChunkFactory has no method for (legacy function_call, thinking_blocks). */
  private sendText(state: Extract<BlockState, { kind: 'text' }>, text: string, out: StreamEvent[]): void {
    state.text += text;
    this.written += text.length;
    this.emit(out, this.factoryNow().content(text));
  }

  private delta(delta: Record<string, unknown>): Record<string, unknown> {
    const factory = this.factoryNow();
    return {
      id: factory.id,
      object: 'chat.completion.chunk',
      created: factory.created,
      model: factory.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: null }],
    };
  }

  /** The factory made on message_start; a stream that skipped message_start still gets stable ids. */
  private factoryNow(): ChunkFactory {
    this.factory ??= new ChunkFactory(newChatCompletionId(), this.requestModel);
    return this.factory;
  }
}

function blockIndex(event: Record<string, unknown>): number {
  return typeof event.index === 'number' ? event.index : 0;
}

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
