/**
 * The Messages-API translation as one importable unit, for every provider that serves Claude with Anthropic's
 * wire format (Anthropic itself, Claude on Vertex AI). This file's exports are a contract: keep their names
 * and signatures.
 *
 * - `toAnthropicMessagesBody(input)`: OpenAI chat body → full Messages body (with `model` and `stream`).
 * - `fromAnthropicMessage(input, message)`: Anthropic Message → OpenAI `chat.completion`.
 * - `createAnthropicStreamTranslator(input)`: Anthropic SSE → OpenAI `chat.completion.chunk` events.
 * - `summariseAnthropicError(status, body)`: Anthropic error body → gw's error parts.
 */
export { toAnthropicMessagesBody } from './request-body.js';
export { fromAnthropicMessage } from './response.js';
export { createAnthropicStreamTranslator } from './stream.js';
export { summariseAnthropicError } from './errors.js';
