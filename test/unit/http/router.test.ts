import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../shared/http/errors.js';
import { Router } from '../../../shared/http/router.js';
import { jsonResponse } from '../../../shared/http/types.js';

const ok = async () => jsonResponse(200, { ok: true });

describe('Router', () => {
  const router = new Router().on('GET', '/v1/prompts/{promptId}', ok).on('DELETE', '/v1/prompts/{promptId}', ok).on('POST', '/v1/prompts/{promptId}/render', ok);

  it('matches a pattern and decodes its parameters', () => {
    const match = router.match('get', '/v1/prompts/p%201');
    expect(match.params).toEqual({ promptId: 'p 1' });
  });

  it('refuses malformed percent-encoding and over-long segments with 400 invalid_path, on any path', () => {
    for (const path of ['/v1/prompts/%ff', '/v1/prompts/%E0%A4%A', '/v1/prompts/%', '/v1/nothing/%ff', `/v1/prompts/${'p'.repeat(257)}`]) {
      const error = catchError(() => router.match('GET', path));
      expect({ status: error.status, code: error.code }).toEqual({ status: 400, code: 'invalid_path' });
    }
    expect(router.match('GET', `/v1/prompts/${'p'.repeat(256)}`).params.promptId).toHaveLength(256);
  });

  it('matches literal segments as sent: an escaped literal is not the route', () => {
    expect(catchError(() => router.match('GET', '/v1/%70rompts/abc')).status).toBe(404);
  });

  it('answers 405 with the allowed methods when only the method is wrong', () => {
    const error = catchError(() => router.match('PUT', '/v1/prompts/abc'));
    expect(error.status).toBe(405);
    expect(error.headers.allow).toBe('DELETE, GET');
    expect(error.code).toBe('method_not_allowed');
  });

  it('answers 404 for a path no pattern matches', () => {
    const error = catchError(() => router.match('GET', '/v1/prompts/abc/unknown'));
    expect(error.status).toBe(404);
    expect(error.code).toBe('route_not_found');
  });
});

function catchError(run: () => unknown): GatewayError {
  try {
    run();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected a GatewayError');
}
