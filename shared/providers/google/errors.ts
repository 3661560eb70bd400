import type { ProviderErrorSummary } from '../types.js';

/**
 * Google's error body, `{"error": {"code": 400, "message": "…", "status": "INVALID_ARGUMENT"}}` (sometimes
 * wrapped in an array by the streaming endpoint) → gw's error parts. The gRPC status name becomes the code in
 * gw's lower-case style (`invalid_argument`, `resource_exhausted`, …).
 */
export function summariseGoogleError(status: number, body: unknown): ProviderErrorSummary {
  const root = Array.isArray(body) ? body[0] : body;
  const error = isRecord(root) && isRecord(root.error) ? root.error : undefined;
  const message =
    (error && typeof error.message === 'string' && error.message) ||
    (typeof root === 'string' && root.trim().slice(0, 500)) ||
    `Google answered with HTTP ${status}`;
  const code = error && typeof error.status === 'string' && error.status !== '' ? error.status.toLowerCase() : undefined;
  return { message, code, param: null };
}

/** The HTTP status an in-stream error stands for (Gemini puts it in `error.code`). */
export function googleErrorStatus(body: unknown): number | undefined {
  const root = Array.isArray(body) ? body[0] : body;
  const code = isRecord(root) && isRecord(root.error) ? root.error.code : undefined;
  return typeof code === 'number' && code >= 400 && code <= 599 ? code : undefined;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
