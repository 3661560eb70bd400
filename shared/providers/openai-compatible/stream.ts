import { SseDecoder } from '../../http/sse.js';
import type { StreamEvent, StreamTranslator } from '../types.js';
import { summariseOpenAIStyleError, isRecord } from './error-summary.js';
import { withUsageFixed } from './usage-fields.js';
import { merged } from '../../merged.js';

/**
 * OpenAI SSE in, OpenAI SSE out: each event is parsed (usage and errors must be seen) and the original
 * text is kept so unchanged chunks go out without being serialised again.
 */
export class OpenAISseTranslator implements StreamTranslator {
  private readonly decoder = new SseDecoder();
  private sawDone = false;
  private sawFinish = false;

  /**
   * `liftChoiceUsage`: the provider reports a stream's usage inside its last choice (Moonshot), not beside it;
   * `fixUsage`: its usage fields need OpenAI's names (usage-fields.ts).
   */
  constructor(
    private readonly liftChoiceUsage = false,
    private readonly fixUsage?: (usage: Record<string, unknown>) => Record<string, unknown>,
  ) {}

  push(bytes: Uint8Array): StreamEvent[] {
    return this.translate(this.decoder.push(bytes));
  }

  end(): StreamEvent[] {
    const events = this.translate(this.decoder.end());
    // Some OpenAI-compatible servers close after the finish chunk without `[DONE]`: that is still complete.
    if (!this.sawDone && this.sawFinish) {
      this.sawDone = true;
      events.push({ type: 'done' });
    }
    return events;
  }

  private translate(messages: { event?: string; data: string }[]): StreamEvent[] {
    const events: StreamEvent[] = [];
    for (const message of messages) {
      const data = message.data.trim();
      if (data === '') continue;
      if (data === '[DONE]') {
        this.sawDone = true;
        events.push({ type: 'done' });
        continue;
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(data);
      } catch {
        events.push({ type: 'error', error: { message: 'The provider sent a stream event that is not JSON', type: 'upstream_error' }, providerError: data.slice(0, 500) });
        continue;
      }
      if (message.event === 'error' || (isRecord(parsed) && isRecord(parsed.error))) {
        events.push({ type: 'error', error: summariseOpenAIStyleError(500, parsed), providerError: parsed });
        continue;
      }
      if (!isRecord(parsed)) continue;
      if (hasFinishReason(parsed)) this.sawFinish = true;
      const lifted = (this.liftChoiceUsage ? withChoiceUsageLifted(parsed) : undefined) ?? parsed;
      const fixed = this.fixUsage ? (withUsageFixed(lifted, this.fixUsage) ?? lifted) : lifted;
      events.push(fixed !== parsed ? { type: 'chunk', chunk: fixed } : { type: 'chunk', chunk: parsed, raw: data });
    }
    return events;
  }
}

function hasFinishReason(chunk: Record<string, unknown>): boolean {
  const choices = chunk.choices;
  return Array.isArray(choices) && choices.some((choice) => isRecord(choice) && typeof choice.finish_reason === 'string');
}

/** The chunk with a choice's `usage` moved to the top level, where gw's meter and OpenAI clients read it; else undefined. */
function withChoiceUsageLifted(chunk: Record<string, unknown>): Record<string, unknown> | undefined {
  if (chunk.usage !== undefined || !Array.isArray(chunk.choices)) return undefined;
  const carrier = chunk.choices.find((choice): choice is Record<string, unknown> => isRecord(choice) && isRecord(choice.usage));
  if (!carrier) return undefined;
  const choices = chunk.choices.map((choice) => (choice === carrier ? Object.fromEntries(Object.entries(carrier).filter(([key]) => key !== 'usage')) : choice));
  return merged(chunk, { choices, usage: carrier.usage });
}
