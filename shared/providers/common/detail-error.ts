import { isRecord } from './json-guards.js';
import type { ProviderErrorSummary } from '../types.js';

/**
 * gw's error summary of a FastAPI-style error answer, `{"detail": "…"}` (a list of problems for a 422), as Voyage AI
 * and Jina AI send them: the detail as the message, the code from the HTTP status.
 */
export function summariseDetailError(providerName: string, status: number, body: unknown): ProviderErrorSummary {
  const detail = isRecord(body) ? body.detail : undefined;
  const message =
    (typeof detail === 'string' && detail) ||
    (detail !== undefined && JSON.stringify(detail).slice(0, 500)) ||
    (typeof body === 'string' && body.trim().slice(0, 500)) ||
    `${providerName} answered with HTTP ${status}`;
  return { message, code: status === 401 ? 'invalid_api_key' : status === 402 ? 'payment_required' : status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request', param: null };
}
