import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { GatewayError } from '../../../../shared/http/errors.js';
import type { AdapterInput, Endpoint, OpenAIBody, StreamEvent, TargetSettings } from '../../../../shared/providers/types.js';

const FIXTURES = fileURLToPath(new URL('../../../fixtures/google/', import.meta.url));

export function fixtureJson(name: string): unknown {
  return JSON.parse(readFileSync(FIXTURES + name, 'utf8'));
}

export function fixtureBytes(name: string): Uint8Array {
  return new Uint8Array(readFileSync(FIXTURES + name));
}

export function adapterInput(body: OpenAIBody, options: { endpoint?: Endpoint; stream?: boolean; target?: Partial<TargetSettings>; drop?: boolean } = {}): AdapterInput {
  return {
    endpoint: options.endpoint ?? 'chat',
    body,
    stream: options.stream ?? body.stream === true,
    target: { provider: 'google', ...options.target },
    forwardHeaders: {},
    dropUnsupportedParams: options.drop,
  };
}

/** Runs `fn` and returns the GatewayError it throws (failing the test when it does not throw one). */
export function gatewayErrorOf(fn: () => unknown): GatewayError {
  try {
    fn();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected a GatewayError, nothing was thrown');
}

export async function asyncGatewayErrorOf(fn: () => Promise<unknown>): Promise<GatewayError> {
  try {
    await fn();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected a GatewayError, nothing was thrown');
}

export interface ReassembledMessage {
  role?: string;
  content: string;
  reasoning: string;
  toolCalls: Array<{ id?: string; name: string; arguments: string; extra?: unknown }>;
  finishReason?: string;
  usage?: Record<string, unknown>;
  done: boolean;
  errors: unknown[];
}

/** Folds OpenAI chunk events the way a client does, to compare streams by what they say, not how they are cut. */
export function reassemble(events: StreamEvent[]): ReassembledMessage {
  const message: ReassembledMessage = { content: '', reasoning: '', toolCalls: [], done: false, errors: [] };
  for (const event of events) {
    if (event.type === 'done') message.done = true;
    else if (event.type === 'error') message.errors.push(event);
    else {
      const chunk = event.chunk as { usage?: Record<string, unknown>; choices: Array<{ delta: Record<string, unknown>; finish_reason: string | null }> };
      if (chunk.usage) message.usage = chunk.usage;
      for (const choice of chunk.choices) {
        const delta = choice.delta as {
          role?: string;
          content?: string;
          reasoning_content?: string;
          tool_calls?: Array<{ index: number; id?: string; function?: { name?: string; arguments?: string }; extra_content?: unknown }>;
        };
        if (delta.role) message.role = delta.role;
        if (delta.content) message.content += delta.content;
        if (delta.reasoning_content) message.reasoning += delta.reasoning_content;
        for (const call of delta.tool_calls ?? []) {
          const entry = (message.toolCalls[call.index] ??= { name: '', arguments: '' });
          if (call.id) entry.id = call.id;
          if (call.function?.name) entry.name = call.function.name;
          if (call.function?.arguments) entry.arguments += call.function.arguments;
          if (call.extra_content) entry.extra = call.extra_content;
        }
        if (choice.finish_reason) message.finishReason = choice.finish_reason;
      }
    }
  }
  return message;
}
