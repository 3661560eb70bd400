import { SseDecoder, type EventSourceMessage } from '../../http/sse.js';
import { ChunkFactory, newChatCompletionId } from '../common/chunks.js';
import type { StreamEvent, StreamTranslator } from '../types.js';
import { googleErrorStatus, isRecord, summariseGoogleError } from './errors.js';
import type { GeminiCandidate, GeminiGenerateContentResponse, GeminiUsageMetadata } from './gemini-types.js';
import { malformedCallError, newToolCallId, signatureExtra, toFinishReason, toOpenAIUsage } from './response-common.js';
import { groundingAnnotations, groundingSearches } from './grounding.js';
import { withSearches } from './response.js';

interface CandidateState {
  toolCalls: number;
  /** The answer text sent so far and the latest grounding metadata: citations are placed in that text. */
  text: string;
  grounding?: unknown;
}

/**
 * Gemini `streamGenerateContent?alt=sse` → OpenAI `chat.completion.chunk` events. Each Gemini event is a whole
 * `GenerateContentResponse` carrying only what is new; function calls arrive whole, so each becomes a tool-call
 * start plus its complete arguments. Gemini repeats cumulative `usageMetadata` and sends no end marker, so the
 * usage chunk and `done` go out when the body ends, and only if a `finishReason` arrived (otherwise the stream was
 * cut short and the relay reports that).
 */
export class GeminiStreamTranslator implements StreamTranslator {
  private readonly decoder = new SseDecoder();
  private readonly chunks: ChunkFactory;
  private readonly candidates = new Map<number, CandidateState>();
  private usage: GeminiUsageMetadata | undefined;
  private sawFinish = false;
  private failed = false;

  constructor(
    model: string,
    id: string = newChatCompletionId(),
    /** Answer in the legacy `functions` form (`delta.function_call`, one call). */
    private readonly legacyFunctions = false,
  ) {
    this.chunks = new ChunkFactory(id, model);
  }

  push(bytes: Uint8Array): StreamEvent[] {
    return this.translate(this.decoder.push(bytes));
  }

  end(): StreamEvent[] {
    const events = this.translate(this.decoder.end());
    if (!this.failed && this.sawFinish) {
      const searches = [...this.candidates.values()].reduce((sum, state) => sum + groundingSearches(state.grounding), 0);
      events.push({ type: 'chunk', chunk: this.chunks.usage(withSearches(toOpenAIUsage(this.usage), searches)) }, { type: 'done' });
    }
    return events;
  }

  private translate(messages: EventSourceMessage[]): StreamEvent[] {
    const events: StreamEvent[] = [];
    for (const message of messages) {
      if (this.failed) break;
      const data = message.data.trim();
      if (data === '') continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(data);
      } catch {
        this.failed = true;
        events.push({ type: 'error', error: { message: 'Gemini sent a stream event that is not JSON', code: 'invalid_provider_stream' }, providerError: data.slice(0, 500) });
        break;
      }
      if (isRecord(parsed) && isRecord(parsed.error)) {
        this.failed = true;
        events.push({ type: 'error', status: googleErrorStatus(parsed), error: summariseGoogleError(500, parsed), providerError: parsed });
        break;
      }
      if (isRecord(parsed)) this.translateResponse(parsed as GeminiGenerateContentResponse, events);
    }
    return events;
  }

  private translateResponse(response: GeminiGenerateContentResponse, events: StreamEvent[]): void {
    if (response.usageMetadata) this.usage = response.usageMetadata;
    const candidates = response.candidates ?? [];
    candidates.forEach((candidate, position) => {
      if (!this.failed) this.translateCandidate(candidate, candidate.index ?? position, events);
    });
    if (candidates.length === 0 && response.promptFeedback?.blockReason) {
      // The prompt itself was blocked: there will be no candidate, so the answer is one filtered, empty choice.
      this.state(0, events);
      events.push(this.chunk(this.chunks.finish('content_filter'), 0));
      this.sawFinish = true;
    }
  }

  private translateCandidate(candidate: GeminiCandidate, index: number, events: StreamEvent[]): void {
    const malformed = malformedCallError(candidate);
    if (malformed) {
      // Never a silent `stop`: the stream ends with an error event that says what happened.
      this.failed = true;
      events.push({ type: 'error', status: 502, error: malformed, providerError: candidate });
      return;
    }
    const state = this.state(index, events);
    for (const part of candidate.content?.parts ?? []) {
      if (part.functionCall && this.legacyFunctions) {
        // The legacy form holds one call: the first is streamed, later ones cannot be shown.
        if (state.toolCalls++ === 0) {
          events.push(this.chunk(this.chunks.functionCall({ name: part.functionCall.name, arguments: '' }), index));
          events.push(this.chunk(this.chunks.functionCall({ arguments: JSON.stringify(part.functionCall.args ?? {}) }), index));
        }
      } else if (part.functionCall) {
        const toolIndex = state.toolCalls++;
        const start = this.chunks.toolCallStart(toolIndex, newToolCallId(), part.functionCall.name);
        Object.assign(toolCallDelta(start), signatureExtra(part.thoughtSignature));
        events.push(this.chunk(start, index), this.chunk(this.chunks.toolCallArguments(toolIndex, JSON.stringify(part.functionCall.args ?? {})), index));
      } else if (typeof part.text === 'string' && part.text !== '') {
        if (!part.thought) state.text += part.text;
        events.push(this.chunk(part.thought ? this.chunks.reasoning(part.text) : this.chunks.content(part.text), index));
      }
    }
    if (candidate.groundingMetadata !== undefined) state.grounding = candidate.groundingMetadata;
    if (candidate.finishReason) {
      // Google sends the grounding with the last chunks; the citations go out once, before the finish.
      const annotations = groundingAnnotations(state.grounding, state.text);
      if (annotations.length > 0) events.push(this.chunk(this.chunks.annotations(annotations), index));
      events.push(this.chunk(this.chunks.finish(toFinishReason(candidate.finishReason, state.toolCalls > 0, this.legacyFunctions)), index));
      this.sawFinish = true;
    }
  }

  /** A candidate's state; its first appearance opens the choice with the assistant role. */
  private state(index: number, events: StreamEvent[]): CandidateState {
    let state = this.candidates.get(index);
    if (!state) {
      state = { toolCalls: 0, text: '' };
      this.candidates.set(index, state);
      events.push(this.chunk(this.chunks.role(), index));
    }
    return state;
  }

  /** ChunkFactory builds choice 0; with several candidates (`n` > 1) the choice index is the candidate's. */
  private chunk(chunk: Record<string, unknown>, index: number): StreamEvent {
    if (index !== 0) (chunk.choices as Array<Record<string, unknown>>)[0].index = index;
    return { type: 'chunk', chunk };
  }
}

function toolCallDelta(chunk: Record<string, unknown>): Record<string, unknown> {
  const choice = (chunk.choices as Array<{ delta: { tool_calls: Array<Record<string, unknown>> } }>)[0];
  return choice.delta.tool_calls[0];
}
