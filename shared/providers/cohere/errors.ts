import { isRecord } from '../common/json-guards.js';
import type { ProviderErrorSummary } from '../types.js';

/**
 * Cohere's error body is `{"id": "…", "message": "…"}` (no type or code field), so the code is derived from the
 * HTTP status the way Cohere's API reference lists them (400 invalid request, 401 unauthorised, 429 rate limit…).
 */
export function summariseCohereError(status: number, body: unknown): ProviderErrorSummary {
  const message =
    (isRecord(body) && typeof body.message === 'string' && body.message) ||
    (typeof body === 'string' && body.trim().slice(0, 500)) ||
    `Cohere answered with HTTP ${status}`;
  return { message, code: CODES[status] ?? `http_${status}`, param: null };
}

const CODES: Record<number, string> = {
  400: 'invalid_request',
  401: 'invalid_api_key',
  402: 'payment_required',
  404: 'not_found',
  422: 'unprocessable_entity',
  429: 'rate_limit_exceeded',
  499: 'request_cancelled',
  500: 'server_error',
  503: 'service_unavailable',
  504: 'gateway_timeout',
};
