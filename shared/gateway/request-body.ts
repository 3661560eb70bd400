import { GatewayError, badRequest } from '../http/errors.js';
import type { Endpoint, OpenAIBody } from '../providers/types.js';

/** Deepest JSON nesting (objects and arrays) a request body may have. */
export const MAX_JSON_NESTING = 64;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** Parses the JSON body of an inference call and checks what gw itself needs of it. */
export function parseInferenceBody(raw: Buffer, maxBytes: number): OpenAIBody {
  if (raw.length > maxBytes) {
    throw new GatewayError(413, 'body_too_large', `The request body is ${raw.length} bytes; the limit is ${maxBytes} bytes`);
  }
  if (raw.length === 0) throw badRequest('invalid_body', 'The request body is empty; send a JSON object');
  const text = decodeUtf8Strictly(raw);
  // Checked before parsing: JSON.parse and every walker after it recurse, so a body nested thousands deep
  // would overflow the stack (a 500) instead of being refused.
  const depth = jsonNestingDepth(text);
  if (depth > MAX_JSON_NESTING) {
    throw badRequest('json_too_deep', `The request body nests JSON ${depth > 10_000 ? 'more than 10000' : depth} levels deep; the limit is ${MAX_JSON_NESTING}`);
  }
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
  return { ...body, user };
}

/** The body as text, refusing invalid UTF-8 instead of silently replacing it with U+FFFD. */
function decodeUtf8Strictly(raw: Buffer): string {
  try {
    return strictUtf8.decode(raw);
  } catch {
    throw badRequest('invalid_utf8', 'The request body is not valid UTF-8');
  }
}

/**
 * How deep objects and arrays nest in a JSON text, counted without parsing (brackets inside strings are
 * skipped). Stops counting once past the limit by a wide margin: the answer is a refusal either way.
 */
export function jsonNestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c) index++; // backslash: skip the escaped character
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) {
      inString = true;
    } else if (code === 0x7b || code === 0x5b) {
      depth++;
      if (depth > deepest) deepest = depth;
      if (deepest > 10_001) return deepest;
    } else if (code === 0x7d || code === 0x5d) {
      depth--;
    }
  }
  return deepest;
}
