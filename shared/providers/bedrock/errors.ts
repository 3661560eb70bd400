import type { ProviderErrorSummary, UpstreamHeaders } from '../types.js';
import { asRecord, isRecord, stringOf } from './json.js';

/**
 * The status each Bedrock exception stands for. The error's name (the `x-amzn-errortype` header, or a
 * `__type` / `code` in the body) decides, not the HTTP status: a quota error must be a retryable 429, never a
 * validation 400, and a model that is still loading a retryable 503.
 */
const STATUS_BY_EXCEPTION: Record<string, number> = {
  ThrottlingException: 429,
  ServiceQuotaExceededException: 429,
  TooManyRequestsException: 429,
  ModelNotReadyException: 503,
  ServiceUnavailableException: 503,
  InternalServerException: 500,
  ModelTimeoutException: 408,
  ModelErrorException: 424,
  ValidationException: 400,
  AccessDeniedException: 403,
  UnrecognizedClientException: 403,
  InvalidSignatureException: 403,
  ResourceNotFoundException: 404,
};

/**
 * Bedrock error bodies are `{"message": "…"}` (some front ends write `Message`); the error's name travels in
 * the `x-amzn-errortype` header (`ThrottlingException:http://internal.amazon.com/…`), or in a `__type` / `code`
 * body field, and is otherwise inferred from the status the way AWS documents it.
 */
export function summariseBedrockError(status: number, providerBody: unknown, headers: UpstreamHeaders = {}): ProviderErrorSummary {
  const body = asRecord(providerBody);
  const message =
    stringOf(body.message) ??
    stringOf(body.Message) ??
    (typeof providerBody === 'string' && providerBody.trim() !== '' ? providerBody.trim().slice(0, 500) : undefined) ??
    `Bedrock answered with HTTP ${status}`;
  const header = headers['x-amzn-errortype'];
  const named = (typeof header === 'string' && header !== '' ? header : undefined) ?? stringOf(body.__type) ?? stringOf(body.code) ?? stringOf(body.Code);
  // `com.amazon.coral.service#UnrecognizedClientException` / `ThrottlingException:http://…` → the bare name.
  const code = named ? named.slice(named.lastIndexOf('#') + 1).split(':')[0] : exceptionForStatus(status, message);
  const meant = STATUS_BY_EXCEPTION[code] ?? status;
  const summary: ProviderErrorSummary = { message, type: errorTypeOf(meant), code, param: null };
  if (meant !== status) summary.status = meant;
  return summary;
}

function exceptionForStatus(status: number, message: string): string {
  const lower = message.toLowerCase();
  switch (status) {
    case 400:
      return 'ValidationException';
    case 403:
      if (lower.includes('signature')) return 'InvalidSignatureException';
      if (lower.includes('security token')) return 'UnrecognizedClientException';
      return 'AccessDeniedException';
    case 404:
      return 'ResourceNotFoundException';
    case 408:
      return 'ModelTimeoutException';
    case 424:
      return 'ModelErrorException';
    case 429:
      return lower.includes('not ready') ? 'ModelNotReadyException' : 'ThrottlingException';
    case 500:
      return 'InternalServerException';
    case 503:
      return 'ServiceUnavailableException';
    default:
      return status >= 500 ? 'InternalServerException' : 'BedrockError';
  }
}

function errorTypeOf(status: number): string {
  if (status === 400 || status === 404) return 'invalid_request_error';
  if (status === 401 || status === 403) return 'authentication_error';
  if (status === 429) return 'rate_limit_error';
  return 'api_error';
}

/** The HTTP status each ConverseStream exception event stands for (as the Converse API reference lists them). */
const STREAM_EXCEPTION_STATUS: Record<string, number> = {
  validationException: 400,
  throttlingException: 429,
  serviceUnavailableException: 503,
  internalServerException: 500,
  modelStreamErrorException: 424,
  modelTimeoutException: 408,
};

/** An exception event in a 200 stream, as the status, message and code gw reports. */
export function summariseStreamException(exceptionType: string, payload: unknown): { status: number; error: ProviderErrorSummary } {
  const body = isRecord(payload) ? payload : {};
  return {
    status: STREAM_EXCEPTION_STATUS[exceptionType] ?? 502,
    error: {
      message: stringOf(body.message) ?? stringOf(body.Message) ?? `Bedrock sent ${exceptionType} in the stream`,
      type: 'upstream_error',
      code: exceptionType,
      param: null,
    },
  };
}
