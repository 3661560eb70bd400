import { expect } from 'vitest';
import { GatewayError } from '../../../../shared/http/errors.js';
import type { AdapterInput, OpenAIBody } from '../../../../shared/providers/types.js';

export const MODEL = 'claude-sonnet-4-5-20250929';

export function adapterInput(body: OpenAIBody, overrides: Partial<AdapterInput> = {}): AdapterInput {
  return {
    endpoint: 'chat',
    body: { model: MODEL, ...body },
    stream: body.stream === true,
    target: { provider: 'anthropic', apiKey: 'sk-ant-test-key' },
    forwardHeaders: {},
    ...overrides,
  };
}

/** Runs `action`, which must throw a GatewayError, and returns it for assertions. */
export function gatewayErrorOf(action: () => unknown): GatewayError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    return error as GatewayError;
  }
  throw new Error('expected a GatewayError, but nothing was thrown');
}
