import { jsonResponse, type NeutralResponse } from './types.js';
import { merged } from '../merged.js';

/** OpenAI-compatible error `type` values, so SDKs classify gw's errors like the provider's own. */
export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'rate_limit_error'
  | 'budget_exceeded_error'
  | 'timeout_error'
  | 'upstream_error'
  /** A guardrail of the workspace or the config denied the request (shared/guardrails). */
  | 'guardrail_violation'
  | 'api_error';

export interface GatewayErrorOptions {
  type?: ErrorType;
  param?: string | null;
  headers?: Record<string, string>;
  /** The provider's original error body, kept verbatim under `error.provider_error`. */
  providerError?: unknown;
  /** True when the failure came from the provider or the way to it (status, network, timeout), not from gw. */
  upstream?: boolean;
  cause?: unknown;
}

const DEFAULT_TYPE_BY_STATUS: Record<number, ErrorType> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  405: 'invalid_request_error',
  408: 'timeout_error',
  409: 'invalid_request_error',
  412: 'budget_exceeded_error',
  413: 'invalid_request_error',
  429: 'rate_limit_error',
};

/**
 * The one error type of gw. Anything thrown that is not a GatewayError is a bug and becomes a generic 500,
 * so internals never reach a client.
 */
export class GatewayError extends Error {
  readonly status: number;
  readonly code: string;
  readonly type: ErrorType;
  readonly param: string | null;
  readonly headers: Record<string, string>;
  readonly providerError: unknown;
  readonly upstream: boolean;

  constructor(status: number, code: string, message: string, options: GatewayErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = 'GatewayError';
    this.status = status;
    this.code = code;
    this.type = options.type ?? DEFAULT_TYPE_BY_STATUS[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
    this.param = options.param ?? null;
    this.headers = options.headers ?? {};
    this.providerError = options.providerError;
    this.upstream = options.upstream ?? false;
  }

  /** The same error with extra response headers (e.g. gw's own headers added on the way out). */
  withHeaders(headers: Record<string, string>): GatewayError {
    return new GatewayError(this.status, this.code, this.message, {
      type: this.type,
      param: this.param,
      providerError: this.providerError,
      upstream: this.upstream,
      headers: merged(headers, this.headers),
      cause: this.cause,
    });
  }
}

export interface ErrorBody {
  error: { message: string; type: string; code: string; param: string | null; provider_error?: unknown };
  status: 'failure';
}

export function errorBody(error: GatewayError): ErrorBody {
  const body: ErrorBody = {
    error: { message: error.message, type: error.type, code: error.code, param: error.param },
    status: 'failure',
  };
  if (error.providerError !== undefined) body.error.provider_error = error.providerError;
  return body;
}

/** Turns anything thrown into the single error shape; unknown errors say nothing about internals. */
/**
 * A dependency gw cannot do without (the secret store) failed. Its message is for gw's logs (it may name what
 * failed); the client gets a 503 with `code` and `publicMessage` only, wherever the error surfaces, so no
 * caller has to remember to translate it.
 */
export class DependencyUnavailableError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly publicMessage: string,
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
    this.name = 'DependencyUnavailableError';
  }
}

export function toGatewayError(thrown: unknown): GatewayError {
  if (thrown instanceof GatewayError) return thrown;
  if (thrown instanceof DependencyUnavailableError) return new GatewayError(503, thrown.code, thrown.publicMessage, { cause: thrown });
  return new GatewayError(500, 'internal_error', 'gw hit an internal error; quote the x-gw-trace-id header when reporting it', {
    type: 'api_error',
    cause: thrown,
  });
}

export function errorResponse(error: GatewayError, headers: Record<string, string> = {}): NeutralResponse {
  return jsonResponse(error.status, errorBody(error), merged(error.headers, headers));
}

export const badRequest = (code: string, message: string, param: string | null = null) =>
  new GatewayError(400, code, message, { param });
