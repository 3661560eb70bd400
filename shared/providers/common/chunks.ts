import { randomBytes } from 'node:crypto';
import type { OpenAIFinishReason, OpenAIUsage } from './openai-types.js';

export function newChatCompletionId(): string {
  return `chatcmpl-${randomBytes(12).toString('base64url')}`;
}

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/**
 * Builds `chat.completion.chunk` objects for one stream with a stable id, model and created time, so a
 * translator only says what changed (role, text, reasoning, a tool-call start or argument delta, the end).
 */
export class ChunkFactory {
  constructor(
    readonly id: string,
    readonly model: string,
    readonly created: number = nowSeconds(),
  ) {}

  role(): Record<string, unknown> {
    return this.chunk({ role: 'assistant', content: '' });
  }

  content(text: string): Record<string, unknown> {
    return this.chunk({ content: text });
  }

  reasoning(text: string): Record<string, unknown> {
    return this.chunk({ reasoning_content: text });
  }

  /** The first delta of tool call `index`: its id and name, with empty arguments. */
  toolCallStart(index: number, id: string, name: string): Record<string, unknown> {
    return this.chunk({ tool_calls: [{ index, id, type: 'function', function: { name, arguments: '' } }] });
  }

  toolCallArguments(index: number, partialJson: string): Record<string, unknown> {
    return this.chunk({ tool_calls: [{ index, function: { arguments: partialJson } }] });
  }

  /** The legacy `functions` API's one call, streamed as `delta.function_call` (name first, then arguments). */
  functionCall(call: { name?: string; arguments: string }): Record<string, unknown> {
    return this.chunk({ function_call: call });
  }

  /** Web search citations of the text streamed so far, as OpenAI's search models stream `delta.annotations`. */
  annotations(annotations: unknown[]): Record<string, unknown> {
    return this.chunk({ annotations });
  }

  finish(reason: OpenAIFinishReason): Record<string, unknown> {
    return this.chunk({}, reason);
  }

  /** The usage chunk OpenAI sends last when `stream_options.include_usage` is set: no choices. */
  usage(usage: OpenAIUsage): Record<string, unknown> {
    return { id: this.id, object: 'chat.completion.chunk', created: this.created, model: this.model, choices: [], usage };
  }

  private chunk(delta: Record<string, unknown>, finishReason: OpenAIFinishReason | null = null): Record<string, unknown> {
    return {
      id: this.id,
      object: 'chat.completion.chunk',
      created: this.created,
      model: this.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    };
  }
}
