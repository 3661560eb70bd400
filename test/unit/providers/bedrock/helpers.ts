import { expect } from 'vitest';
import { GatewayError, errorBody } from '../../../../shared/http/errors.js';
import { bedrockAdapter } from '../../../../shared/providers/bedrock/adapter.js';
import type { AdapterInput, Endpoint, OpenAIBody, TargetSettings } from '../../../../shared/providers/types.js';

export const AWS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', region: 'us-west-2' };

export function bedrockInput(
  body: OpenAIBody,
  options: { endpoint?: Endpoint; stream?: boolean; target?: Partial<TargetSettings>; drop?: boolean } = {},
): AdapterInput {
  return {
    endpoint: options.endpoint ?? 'chat',
    body,
    stream: options.stream ?? false,
    target: { provider: 'bedrock', aws: { ...AWS }, ...options.target },
    forwardHeaders: {},
    dropUnsupportedParams: options.drop ?? false,
  };
}

/** Builds the call through the real adapter and returns the JSON body Bedrock would receive. */
export async function converseBody(body: OpenAIBody, options: Parameters<typeof bedrockInput>[1] = {}): Promise<Record<string, unknown>> {
  const call = await bedrockAdapter.buildCall(bedrockInput(body, options));
  return JSON.parse(String(call.body)) as Record<string, unknown>;
}

export interface ExpectedError {
  status?: number;
  code: string;
  param: string | null;
  message: string | RegExp;
  /** The provider body gw keeps under `error.provider_error`, when there is one. */
  providerError?: unknown;
}

/** Asserts that building the call fails with gw's error body: status, code, param and a message that explains. */
export async function expectBuildError(input: AdapterInput, expected: ExpectedError): Promise<void> {
  let thrown: unknown;
  try {
    await bedrockAdapter.buildCall(input);
  } catch (error) {
    thrown = error;
  }
  expectGatewayError(thrown, expected);
}

export function expectGatewayError(thrown: unknown, expected: ExpectedError): void {
  expect(thrown).toBeInstanceOf(GatewayError);
  const error = thrown as GatewayError;
  expect(error.status).toBe(expected.status ?? 400);
  expect(errorBody(error)).toEqual({
    error: {
      message: typeof expected.message === 'string' ? expect.stringContaining(expected.message) : expect.stringMatching(expected.message),
      type: (expected.status ?? 400) === 400 ? 'invalid_request_error' : expect.any(String),
      code: expected.code,
      param: expected.param,
      ...(expected.providerError === undefined ? {} : { provider_error: expected.providerError }),
    },
    status: 'failure',
  });
}
