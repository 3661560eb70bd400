import type { GatewayError } from '../../http/errors.js';
import { isRecord } from '../../providers/common/json-guards.js';

/** gw's status → the error `type` Anthropic uses for it, so the Anthropic SDKs raise the matching class. */
export function anthropicErrorType(status: number): string {
  if (status === 400 || status === 413 || status === 405 || status === 409) return status === 413 ? 'request_too_large' : 'invalid_request_error';
  if (status === 401) return 'authentication_error';
  if (status === 403 || status === 412) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  if (status === 408 || status === 504) return 'timeout_error';
  if (status === 529 || status === 503) return 'overloaded_error';
  return 'api_error';
}

/**
 * A failure in Anthropic's error shape. An error the provider itself sent in Anthropic's shape keeps its type
 * (e.g. `overloaded_error`); gw's own code stays readable in the message.
 */
export function anthropicErrorBody(error: GatewayError): Record<string, unknown> {
  const provider = error.providerError;
  const providerType = isRecord(provider) && isRecord(provider.error) && typeof provider.error.type === 'string' ? provider.error.type : undefined;
  return { type: 'error', error: { type: providerType ?? anthropicErrorType(error.status), message: error.message } };
}

/** gw's stream error body (`{error:{message,code,…}}`) → Anthropic's `error` event payload. */
export function anthropicStreamError(body: Record<string, unknown>): Record<string, unknown> {
  const error = isRecord(body.error) ? body.error : {};
  const provider = isRecord(error.provider_error) && isRecord(error.provider_error.error) ? error.provider_error.error : undefined;
  const type = typeof provider?.type === 'string' ? provider.type : 'api_error';
  return { type: 'error', error: { type, message: typeof error.message === 'string' ? error.message : 'The stream failed' } };
}
