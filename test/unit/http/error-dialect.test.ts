import { describe, expect, it } from 'vitest';
import { anthropicStreamError } from '../../../shared/dialects/anthropic-messages/errors.js';
import { ANTHROPIC_ERROR_TYPES, anthropicErrorBody, anthropicErrorType, errorDialectOf } from '../../../shared/http/error-dialect.js';
import { GatewayError } from '../../../shared/http/errors.js';

describe('errors to Anthropic clients use Anthropic’s error types', () => {
  it('every status gw answers maps to a type Anthropic documents', () => {
    const expected: Record<number, string> = {
      400: 'invalid_request_error', 401: 'authentication_error', 403: 'permission_error', 404: 'not_found_error', 405: 'invalid_request_error',
      408: 'timeout_error', 409: 'invalid_request_error', 412: 'permission_error', 413: 'request_too_large', 429: 'rate_limit_error',
      500: 'api_error', 502: 'api_error', 503: 'overloaded_error', 504: 'timeout_error', 529: 'overloaded_error',
    };
    for (const [status, type] of Object.entries(expected)) expect(anthropicErrorType(Number(status)), status).toBe(type);
    for (let status = 400; status < 600; status++) expect(ANTHROPIC_ERROR_TYPES.has(anthropicErrorType(status)), String(status)).toBe(true);
  });

  it('a translated provider’s own type (OpenAI’s server_error) is not passed on as if it were Anthropic’s; an Anthropic type is kept', () => {
    const openaiFailure = new GatewayError(500, 'upstream_error', 'boom', { providerError: { error: { type: 'server_error', message: 'boom' } } });
    expect(anthropicErrorBody(openaiFailure)).toEqual({ type: 'error', error: { type: 'api_error', message: 'boom' } });
    const overloaded = new GatewayError(529, 'upstream_error', 'busy', { providerError: { type: 'error', error: { type: 'overloaded_error', message: 'busy' } } });
    expect(anthropicErrorBody(overloaded)).toMatchObject({ error: { type: 'overloaded_error' } });
  });

  it('a stream that fails mid-way gets an Anthropic type from gw’s error, not always api_error', () => {
    expect(anthropicStreamError({ error: { message: 'slow down', type: 'rate_limit_error', code: 'rate_limited' } })).toEqual({ type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } });
    expect(anthropicStreamError({ error: { message: 'idle', type: 'timeout_error', code: 'upstream_idle_timeout' } })).toMatchObject({ error: { type: 'timeout_error' } });
    expect(anthropicStreamError({ error: { message: 'x', type: 'upstream_error', provider_error: { error: { type: 'server_error' } } } })).toMatchObject({ error: { type: 'api_error' } });
  });

  it('tells an Anthropic client by its headers or the Messages path', () => {
    expect(errorDialectOf({ 'anthropic-version': '2023-06-01' }, '/v1/v1/messages')).toBe('anthropic');
    expect(errorDialectOf({}, '/messages')).toBe('anthropic');
    expect(errorDialectOf({ 'x-api-key': 'k' }, '/v1/v1/complete')).toBe('anthropic');
    expect(errorDialectOf({ authorization: 'Bearer k' }, '/chat/completions')).toBe('openai');
  });
});
