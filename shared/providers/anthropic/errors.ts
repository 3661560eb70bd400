import { isRecord, recordField, stringField } from '../common/json-guards.js';
import type { ProviderErrorSummary } from '../types.js';

/** The HTTP status Anthropic uses for each error type, for errors that arrive inside a 200 stream. */
const STATUS_BY_ERROR_TYPE: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

/**
 * Anthropic's error body `{type:'error', error:{type, message}, request_id}` → gw's error parts. The error type
 * (e.g. `overloaded_error`) becomes the code, so callers can tell a 529 overload from a 429 rate limit; a body
 * that is not Anthropic's (a proxy's HTML page, say) still yields a readable message.
 */
export function summariseAnthropicError(status: number, body: unknown): ProviderErrorSummary {
  const error = isRecord(body) ? recordField(body, 'error') : undefined;
  const type = error ? stringField(error, 'type') : undefined;
  const message =
    (error && stringField(error, 'message')) ||
    (typeof body === 'string' && body.trim() !== '' && body.trim().slice(0, 500)) ||
    `Anthropic answered with HTTP ${status}`;
  return { message, type, code: type, param: null };
}

/** The status an in-stream error event stands for: its type's usual status, else 502 (a bad upstream). */
export function statusForAnthropicError(body: unknown): number {
  const error = isRecord(body) ? recordField(body, 'error') : undefined;
  const type = error ? stringField(error, 'type') : undefined;
  return (type && STATUS_BY_ERROR_TYPE[type]) || 502;
}
