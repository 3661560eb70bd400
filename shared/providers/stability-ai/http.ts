import { isRecord, stringField } from '../common/json-guards.js';
import type { ProviderErrorSummary } from '../types.js';

/** Stability AI's host and auth (`Authorization: Bearer sk-…`), shared by the adapter and the images pass-through. */
export const STABILITY_API_BASE_URL = 'https://api.stability.ai';

/** `x-gw-custom-host` may name the host alone or include `/v2beta`. */
export function stabilityUrl(customHost: string | undefined, path: string): string {
  const base = (customHost ?? STABILITY_API_BASE_URL).replace(/\/+$/, '').replace(/\/v2beta$/, '');
  return `${base}/v2beta/${path}`;
}

/**
 * Stability answers errors as `{"id", "name", "errors": ["prompt: cannot be empty", …]}`: `name` is the code
 * (`bad_request`, `content_moderation`, `payment_required`…), the list the message.
 */
export function summariseStabilityError(status: number, body: unknown): ProviderErrorSummary {
  const record = isRecord(body) ? body : {};
  const errors = Array.isArray(record.errors) ? record.errors.filter((entry): entry is string => typeof entry === 'string') : [];
  const message =
    (errors.length > 0 && errors.join('; ')) ||
    stringField(record, 'message') ||
    (typeof body === 'string' && body.trim().slice(0, 500)) ||
    `Stability AI answered with HTTP ${status}`;
  return { message, code: stringField(record, 'name') ?? `http_${status}`, param: null };
}
