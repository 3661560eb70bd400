import { GatewayError, badRequest } from '../http/errors.js';
import { assertJsonNesting } from '../http/json-nesting.js';
import { assertStorableNumbers } from '../http/json-numbers.js';
import type { Endpoint, OpenAIBody } from '../providers/types.js';
import { merged } from '../merged.js';

const OUTPUT_TOKEN_FIELDS = ['max_tokens', 'max_completion_tokens'] as const;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** Parses the JSON body of an inference call and checks what gw itself needs of it. */
export function parseInferenceBody(raw: Buffer, maxBytes: number): OpenAIBody {
  if (raw.length > maxBytes) {
    throw new GatewayError(413, 'body_too_large', `The request body is ${raw.length} bytes; the limit is ${maxBytes} bytes`);
  }
  if (raw.length === 0) throw badRequest('invalid_body', 'The request body is empty; send a JSON object');
  const text = decodeUtf8Strictly(raw);
  assertJsonNesting(text, 'The request body');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw badRequest('invalid_json', `The request body is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw badRequest('invalid_body', 'The request body must be a JSON object');
  }
  return parsed as OpenAIBody;
}

/**
 * Checks the fields gw relies on. `modelSupplied` is true when something other than the body (a config's
 * override_params) provides the model.
 */
export function validateInferenceBody(endpoint: Endpoint, body: OpenAIBody, modelSupplied = false): void {
  if (!modelSupplied && (typeof body.model !== 'string' || body.model.trim() === '')) {
    throw badRequest('missing_model', '`model` is required (a string) unless a config target supplies it through override_params', 'model');
  }
  if (body.stream !== undefined && typeof body.stream !== 'boolean') {
    throw badRequest('invalid_stream', '`stream` must be a boolean', 'stream');
  }
  // The output-token limits gw itself uses (the cost and token estimate reserved before the call) must be numbers it
  // can use exactly, as the Messages and Responses codecs require of theirs; every other number (a `seed`, a tool
  // schema's int64 `maximum`) is the provider's business and goes on as parsed.
  for (const field of OUTPUT_TOKEN_FIELDS) assertStorableNumbers(body[field], field);
  if (endpoint === 'chat') {
    if (!Array.isArray(body.messages) || body.messages.length === 0) {
      throw badRequest('missing_messages', '`messages` is required and must be a non-empty array', 'messages');
    }
    body.messages.forEach((message, index) => {
      if (typeof message !== 'object' || message === null || typeof (message as { role?: unknown }).role !== 'string') {
        throw badRequest('invalid_message', `messages[${index}] must be an object with a string \`role\``, `messages[${index}]`);
      }
    });
  } else if (endpoint === 'completions') {
    if (body.prompt === undefined) throw badRequest('missing_prompt', '`prompt` is required', 'prompt');
  } else if (endpoint === 'embeddings' && body.input === undefined) {
    // The inbound dialects (responses, messages) are checked by their codecs (shared/dialects/).
    throw badRequest('missing_input', '`input` is required', 'input');
  }
  if (endpoint === 'embeddings' && body.stream === true) {
    throw badRequest('invalid_stream', 'Embeddings cannot be streamed', 'stream');
  }
}

/** `_user` of the metadata names the end user for the provider too, unless the body already does. */
export function applyMetadataUser(body: OpenAIBody, metadata: Record<string, string>): OpenAIBody {
  const user = metadata._user;
  if (user === undefined || body.user !== undefined) return body;
  return merged(body, { user });
}

/** The body as text, refusing invalid UTF-8 instead of silently replacing it with U+FFFD. */
function decodeUtf8Strictly(raw: Buffer): string {
  try {
    return strictUtf8.decode(raw);
  } catch {
    throw badRequest('invalid_utf8', 'The request body is not valid UTF-8');
  }
}
