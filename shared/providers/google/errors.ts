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
  const summary: ProviderErrorSummary = { message, code, param: null };
  const retryAfterSeconds = retryDelaySeconds(error?.details);
  if (retryAfterSeconds !== undefined) summary.retryAfterSeconds = retryAfterSeconds;
  return summary;
}

/**
 * Google says when to retry a RESOURCE_EXHAUSTED in the body, not in a header: a `google.rpc.RetryInfo`
 * detail with `retryDelay` as a protobuf Duration string ("37s", "0.5s"). Whole seconds, rounded up, so the
 * gateway's retries and the SDKs' own backoff (both read `retry-after`) wait long enough.
 */
export function retryDelaySeconds(details: unknown): number | undefined {
  if (!Array.isArray(details)) return undefined;
  for (const detail of details) {
    if (!isRecord(detail) || typeof detail['@type'] !== 'string' || !detail['@type'].endsWith('google.rpc.RetryInfo')) continue;
    const match = typeof detail.retryDelay === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(detail.retryDelay) : null;
    if (match) return Math.max(1, Math.ceil(Number(match[1])));
  }
  return undefined;
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
