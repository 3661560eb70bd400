import { ANTHROPIC_ERROR_TYPES, anthropicErrorType } from '../../http/error-dialect.js';
import { isRecord } from '../../providers/common/json-guards.js';

export { anthropicErrorBody, anthropicErrorType } from '../../http/error-dialect.js';

/** gw's own error types that name an Anthropic type of the same meaning (the rest map from the status). */
const GW_TYPE_TO_ANTHROPIC: Readonly<Record<string, string>> = {
  rate_limit_error: 'rate_limit_error',
  timeout_error: 'timeout_error',
  authentication_error: 'authentication_error',
  permission_error: 'permission_error',
  budget_exceeded_error: 'permission_error',
  invalid_request_error: 'invalid_request_error',
};

/**
 * gw's stream error body (`{error:{message,type,code,…}}`) → Anthropic's `error` event payload. A type the provider
 * sent in Anthropic's vocabulary is kept (e.g. `overloaded_error`); otherwise gw's type, or its status, decides.
 */
export function anthropicStreamError(body: Record<string, unknown>): Record<string, unknown> {
  const error = isRecord(body.error) ? body.error : {};
  const provider = isRecord(error.provider_error) && isRecord(error.provider_error.error) ? error.provider_error.error : undefined;
  const providerType = typeof provider?.type === 'string' && ANTHROPIC_ERROR_TYPES.has(provider.type) ? provider.type : undefined;
  const status = typeof body.status === 'number' ? body.status : typeof error.status === 'number' ? error.status : undefined;
  const type = providerType ?? GW_TYPE_TO_ANTHROPIC[String(error.type)] ?? (status !== undefined ? anthropicErrorType(status) : 'api_error');
  return { type: 'error', error: { type, message: typeof error.message === 'string' ? error.message : 'The stream failed' } };
}
