import type { ProviderErrorSummary } from '../types.js';

/** Reads an OpenAI-shaped error body (`{error: {message, type, code, param}}`), tolerating the many variants. */
export function summariseOpenAIStyleError(status: number, body: unknown): ProviderErrorSummary {
  const error = isRecord(body) && isRecord(body.error) ? body.error : isRecord(body) ? body : undefined;
  const message =
    (error && typeof error.message === 'string' && error.message) ||
    (isRecord(body) && typeof body.error === 'string' && body.error) ||
    (typeof body === 'string' && body.trim().slice(0, 500)) ||
    `The provider answered with HTTP ${status}`;
  return {
    message,
    type: error && typeof error.type === 'string' ? error.type : undefined,
    code: error && (typeof error.code === 'string' || typeof error.code === 'number') ? String(error.code) : undefined,
    param: error && typeof error.param === 'string' ? error.param : null,
  };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
