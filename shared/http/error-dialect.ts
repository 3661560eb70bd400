import { errorBody, type GatewayError } from './errors.js';
import { jsonResponse, type NeutralResponse } from './types.js';
import { merged } from '../merged.js';

/**
 * The error shape a client reads. OpenAI-style SDKs read `{error: {message, type, code, param}}` (gw's own shape);
 * Anthropic's SDKs and Claude Code read `{type: "error", error: {type, message}}` and pick their exception class
 * from `error.type`, so an Anthropic client gets Anthropic's types for every status, wherever gw answers it
 * (the Messages routes, and a path gw does not serve at all).
 */
export type ErrorDialect = 'openai' | 'anthropic';

/** Every error `type` Anthropic's API documents; anything else is mapped from the status. */
export const ANTHROPIC_ERROR_TYPES: ReadonlySet<string> = new Set([
  'invalid_request_error', 'authentication_error', 'billing_error', 'permission_error', 'not_found_error', 'request_too_large',
  'rate_limit_error', 'api_error', 'timeout_error', 'overloaded_error',
]);

/** gw's status → the error `type` Anthropic uses for it, so the Anthropic SDKs raise the matching class. */
export function anthropicErrorType(status: number): string {
  if (status === 413) return 'request_too_large';
  if (status === 400 || status === 405 || status === 409 || status === 422) return 'invalid_request_error';
  if (status === 401) return 'authentication_error';
  if (status === 402) return 'billing_error';
  if (status === 403 || status === 412) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  if (status === 408 || status === 504) return 'timeout_error';
  if (status === 529 || status === 503) return 'overloaded_error';
  if (status >= 400 && status < 500) return 'invalid_request_error';
  return 'api_error';
}

/**
 * Which error shape the client that sent these headers reads. Anthropic's SDKs always send `anthropic-version`;
 * Claude Code and other Anthropic clients may send only `x-api-key` with no `Authorization`; the Messages paths
 * are Anthropic's whatever the headers.
 */
export function errorDialectOf(headers: Record<string, string>, path: string): ErrorDialect {
  if (headers['anthropic-version'] !== undefined || headers['anthropic-beta'] !== undefined) return 'anthropic';
  if (/\/messages(\/count_tokens)?\/?$/.test(path)) return 'anthropic';
  if (headers['x-api-key'] !== undefined && headers.authorization === undefined && headers['x-gw-api-key'] === undefined) return 'anthropic';
  return 'openai';
}

/** A failure in Anthropic's shape: a type the provider sent in Anthropic's vocabulary is kept, else the status decides. */
export function anthropicErrorBody(error: GatewayError): Record<string, unknown> {
  const provider = error.providerError as { error?: { type?: unknown } } | undefined;
  const providerType = typeof provider?.error?.type === 'string' ? provider.error.type : undefined;
  const type = providerType !== undefined && ANTHROPIC_ERROR_TYPES.has(providerType) ? providerType : anthropicErrorType(error.status);
  return { type: 'error', error: { type, message: error.message } };
}

/** The error response in the client's dialect; gw's code stays readable in `x-gw-error-code` for Anthropic clients. */
export function dialectErrorResponse(error: GatewayError, dialect: ErrorDialect, headers: Record<string, string> = {}): NeutralResponse {
  if (dialect === 'openai') return jsonResponse(error.status, errorBody(error), merged(error.headers, headers));
  return jsonResponse(error.status, anthropicErrorBody(error), merged(merged(error.headers, headers), { 'x-gw-error-code': error.code }));
}
