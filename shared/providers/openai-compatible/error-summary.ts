import type { ProviderErrorSummary } from '../types.js';

/**
 * Reads an OpenAI-shaped error body (`{error: {message, type, code, param}}`), tolerating the variants the
 * OpenAI-compatible providers send: `{error: "text"}` (Hugging Face), `{message, code}` (Novita, Snowflake),
 * `{error_code, message}` (Databricks), Cloudflare's API envelope `{success: false, errors: [{code, message}]}` and
 * FastAPI's `{detail}` (AI21), so the provider's own message reaches the caller whichever it is.
 */
export function summariseOpenAIStyleError(status: number, body: unknown): ProviderErrorSummary {
  const envelope = isRecord(body) && Array.isArray(body.errors) && isRecord(body.errors[0]) ? body.errors[0] : undefined;
  const error = isRecord(body) && isRecord(body.error) ? body.error : (envelope ?? (isRecord(body) ? body : undefined));
  const message =
    (error && typeof error.message === 'string' && error.message) ||
    (isRecord(body) && typeof body.error === 'string' && body.error) ||
    detailText(body) ||
    (typeof body === 'string' && body.trim().slice(0, 500)) ||
    `The provider answered with HTTP ${status}`;
  const code = error?.code ?? error?.error_code;
  return {
    message,
    type: error && typeof error.type === 'string' ? error.type : undefined,
    code: typeof code === 'string' || typeof code === 'number' ? String(code) : undefined,
    param: error && typeof error.param === 'string' ? error.param : null,
  };
}

/** FastAPI's `{detail: "text"}`, or its 422 list of problems as their messages. */
function detailText(body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  if (typeof body.detail === 'string') return body.detail;
  if (!Array.isArray(body.detail)) return undefined;
  const messages = body.detail.map((problem) => (isRecord(problem) && typeof problem.msg === 'string' ? problem.msg : undefined)).filter(Boolean);
  return messages.length > 0 ? messages.join('; ').slice(0, 500) : undefined;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
