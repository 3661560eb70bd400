import { ChunkFactory, newChatCompletionId } from '../common/chunks.js';
import type { OpenAIUsage } from '../common/openai-types.js';
import { openAIUsage } from '../common/usage.js';
import type { StreamEvent, StreamTranslator } from '../types.js';
import { summariseStreamException } from './errors.js';
import { EventStreamDecodeError, EventStreamDecoder, type EventStreamMessage } from './event-stream.js';
import { cohereFinish, invokeChatToCompletion } from './invoke-chat.js';
import { asRecord, countOf, stringOf } from './json.js';

type ErrorEvent = Extract<StreamEvent, { type: 'error' }>;

const unreadable = (why: string): ErrorEvent => ({
  type: 'error',
  status: 502,
  error: { message: `Bedrock sent an unreadable event stream (${why})`, type: 'upstream_error', code: 'invalid_event_stream', param: null },
});

/**
 * InvokeModelWithResponseStream of Cohere Command → OpenAI chat chunks. The binary framing is the one ConverseStream
 * uses (event-stream.ts); each `chunk` event carries the model's own JSON, base64-encoded under `bytes`:
 * `{"text", "is_finished": false}` while it writes, then `{"is_finished": true, "finish_reason",
 * "amazon-bedrock-invocationMetrics": {inputTokenCount, outputTokenCount}}`. As for Converse, the role chunk waits
 * for the first text, so an exception before any text is still an HTTP error that retries and falls back.
 */
export class CohereCommandStreamTranslator implements StreamTranslator {
  private readonly decoder = new EventStreamDecoder();
  private readonly chunks: ChunkFactory;
  private roleSent = false;
  private over = false;

  constructor(model: string, id: string = newChatCompletionId()) {
    this.chunks = new ChunkFactory(id, model);
  }

  push(bytes: Uint8Array): StreamEvent[] {
    if (this.over) return [];
    let messages: EventStreamMessage[];
    try {
      messages = this.decoder.push(bytes);
    } catch (error) {
      if (!(error instanceof EventStreamDecodeError)) throw error;
      return this.fail(unreadable(error.message));
    }
    const events: StreamEvent[] = [];
    for (const message of messages) {
      events.push(...this.handle(message));
      if (this.over) break;
    }
    return events;
  }

  /** A stream that ends before `is_finished` is truncated: the relay reports it. */
  end(): StreamEvent[] {
    return [];
  }

  private handle(message: EventStreamMessage): StreamEvent[] {
    if (message.kind === 'error') {
      return this.fail({ type: 'error', status: 502, error: { message: message.errorMessage || `Bedrock stream error ${message.errorCode}`, type: 'upstream_error', code: message.errorCode, param: null } });
    }
    if (message.kind === 'exception') {
      const { status, error } = summariseStreamException(message.exceptionType, message.payload);
      return this.fail({ type: 'error', status, error, providerError: message.payload });
    }
    if (message.eventType !== 'chunk') return [];
    const encoded = stringOf(asRecord(message.payload).bytes);
    let part: Record<string, unknown>;
    try {
      part = asRecord(JSON.parse(Buffer.from(encoded ?? '', 'base64').toString('utf8')));
    } catch {
      return this.fail(unreadable('a chunk is not base64 JSON'));
    }
    const events: StreamEvent[] = [];
    const text = stringOf(part.text) ?? stringOf(asRecord(Array.isArray(part.generations) ? part.generations[0] : undefined).text);
    if (text && part.is_finished !== true) events.push(...this.emit(this.chunks.content(text)));
    if (part.is_finished === true) {
      events.push(...this.emit(this.chunks.finish(cohereFinish(part.finish_reason))));
      const usage = invocationUsage(part['amazon-bedrock-invocationMetrics']);
      if (usage) events.push({ type: 'chunk', chunk: this.chunks.usage(usage) });
      events.push({ type: 'done' });
      this.over = true;
    }
    return events;
  }

  private emit(chunk: Record<string, unknown>): StreamEvent[] {
    if (this.roleSent) return [{ type: 'chunk', chunk }];
    this.roleSent = true;
    return [{ type: 'chunk', chunk: this.chunks.role() }, { type: 'chunk', chunk }];
  }

  private fail(event: ErrorEvent): StreamEvent[] {
    this.over = true;
    return [event];
  }
}

/** Bedrock's `amazon-bedrock-invocationMetrics` of a stream's last chunk → OpenAI usage. */
function invocationUsage(metrics: unknown): OpenAIUsage | undefined {
  const record = asRecord(metrics);
  const prompt = countOf(record.inputTokenCount);
  const completion = countOf(record.outputTokenCount);
  if (prompt === undefined && completion === undefined) return undefined;
  return openAIUsage({ promptTokens: prompt ?? 0, completionTokens: completion ?? 0 });
}

/**
 * AI21 Jurassic-2 cannot stream on Bedrock. For `stream: true` gw makes the ordinary InvokeModel call and replays
 * the whole answer as chunks when it has arrived: role, content, finish, usage, done — the same shape a streamed
 * answer has, so a streaming client works unchanged (only without incremental text).
 */
export class WholeAnswerReplayTranslator implements StreamTranslator {
  private readonly parts: Buffer[] = [];

  constructor(private readonly model: string) {}

  push(bytes: Uint8Array): StreamEvent[] {
    this.parts.push(Buffer.from(bytes));
    return [];
  }

  end(): StreamEvent[] {
    let completion: Record<string, unknown>;
    try {
      completion = invokeChatToCompletion('ai21-jurassic', JSON.parse(Buffer.concat(this.parts).toString('utf8')), this.model);
    } catch {
      return [{ type: 'error', status: 502, error: { message: 'Bedrock answered with a body gw could not read as a Jurassic-2 completion', type: 'upstream_error', code: 'invalid_provider_response', param: null } }];
    }
    const chunks = new ChunkFactory(String(completion.id), this.model, Number(completion.created));
    const [choice] = completion.choices as Array<{ message: { content: string }; finish_reason: 'stop' | 'length' }>;
    const events: StreamEvent[] = [{ type: 'chunk', chunk: chunks.role() }];
    if (choice.message.content !== '') events.push({ type: 'chunk', chunk: chunks.content(choice.message.content) });
    events.push({ type: 'chunk', chunk: chunks.finish(choice.finish_reason) }, { type: 'chunk', chunk: chunks.usage(completion.usage as OpenAIUsage) }, { type: 'done' });
    return events;
  }
}
