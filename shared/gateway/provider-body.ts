import { GatewayError } from '../http/errors.js';
import type { Endpoint } from '../providers/types.js';

/** The list an OpenAI-format answer of each endpoint must carry, so a truncated or foreign body is caught. */
const OPENAI_ANSWER_LIST: Record<Endpoint, string> = { chat: 'choices', completions: 'choices', embeddings: 'data', responses: 'output', messages: 'content' };

function invalidBody(code: string, message: string, cause?: unknown): GatewayError {
  return new GatewayError(502, code, message, { type: 'upstream_error', upstream: true, cause });
}

/**
 * Parses a provider's non-streamed 2xx body: it must not be empty, must be a JSON object, and, when gw passes
 * it through as the OpenAI format, must have the endpoint's answer list (`choices` or `data`). A body that is
 * not is an upstream failure (502) that routing retries and falls back on, never a 200 with garbage.
 */
export function parseProviderBody(raw: Buffer, endpoint: Endpoint, openAIFormat: boolean): Record<string, unknown> {
  if (raw.length === 0) throw invalidBody('empty_provider_response', 'The provider answered 2xx with an empty body');
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch (error) {
    throw invalidBody('invalid_provider_response', 'The provider answered 2xx with a body that is not JSON (incomplete, or compressed without saying so)', error);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw invalidBody('invalid_provider_response', 'The provider answered 2xx with a JSON body that is not an object');
  }
  const body = parsed as Record<string, unknown>;
  if (openAIFormat && !Array.isArray(body[OPENAI_ANSWER_LIST[endpoint]])) {
    throw invalidBody('invalid_provider_response', `The provider answered 2xx without the \`${OPENAI_ANSWER_LIST[endpoint]}\` list of a ${endpoint} response`);
  }
  return body;
}

/** What a native answer of an inbound dialect must be: its object marker and its list. */
const NATIVE_ANSWER: Partial<Record<Endpoint, { marker: string; value: string; list: string; name: string }>> = {
  responses: { marker: 'object', value: 'response', list: 'output', name: 'Response' },
  messages: { marker: 'type', value: 'message', list: 'content', name: 'Message' },
};

/**
 * Parses a native (dialect pass-through) 2xx body: a Responses answer must be a Response (`object: "response"`
 * with an `output` list), a Messages answer a Message (`type: "message"` with a `content` list). Anything else
 * (`{}`, an HTML page, a chat completion) is the same upstream failure as a translated body gw cannot read:
 * retried, fallen back on, else a 502; never relayed or stored as a success. So is a Response whose `status`
 * is `failed`.
 */
export function parseNativeBody(raw: Buffer, endpoint: Endpoint): Record<string, unknown> {
  const body = parseProviderBody(raw, endpoint, false);
  const expected = NATIVE_ANSWER[endpoint];
  if (expected && (body[expected.marker] !== expected.value || !Array.isArray(body[expected.list]))) {
    throw invalidBody('invalid_provider_response', `The provider answered 2xx with a body that is not a ${expected.name} (\`${expected.marker}: "${expected.value}"\` with a \`${expected.list}\` list)`);
  }
  // A Response that failed is a failure, as its stream's `response.failed` event is (responses/native.ts).
  if (endpoint === 'responses' && body.status === 'failed') {
    const error = typeof body.error === 'object' && body.error !== null ? (body.error as { message?: unknown }) : {};
    const reason = typeof error.message === 'string' ? error.message : 'no reason given';
    throw new GatewayError(502, 'upstream_response_failed', `The provider answered with a failed Response: ${reason}`, { type: 'upstream_error', upstream: true, providerError: body.error });
  }
  return body;
}

/** Runs a provider adapter's response translation; a body it cannot read is the provider's failure, not gw's. */
export function translateProviderBody<T>(translate: () => T): T {
  try {
    return translate();
  } catch (error) {
    if (error instanceof GatewayError) throw error;
    throw invalidBody('invalid_provider_response', "The provider answered 2xx with a body gw could not read as the provider's format", error);
  }
}
