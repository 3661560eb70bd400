import { describe, expect, it } from 'vitest';
import type { ApiKeyAuthenticator } from '../../../shared/auth/authenticate.js';
import { createGatewayApp } from '../../../shared/gateway/app.js';

describe('a gw bug', () => {
  it('becomes a 500 with a generic message and the trace id, never the internals', async () => {
    const brokenAuthenticator = {
      authenticate: async () => {
        throw new Error('connection string postgres://admin:hunter2@db failed');
      },
    } as unknown as ApiKeyAuthenticator;
    const app = createGatewayApp(brokenAuthenticator);
    const response = await app({
      method: 'POST',
      path: '/v1/chat/completions',
      headers: { 'x-gw-trace-id': 'trace-500' },
      query: {},
      body: Buffer.from('{}'),
    });
    expect(response.status).toBe(500);
    expect(response.headers['x-gw-trace-id']).toBe('trace-500');
    const body = JSON.parse(String(response.body));
    expect(body).toEqual({
      error: { message: expect.stringContaining('x-gw-trace-id'), type: 'api_error', code: 'internal_error', param: null },
      status: 'failure',
    });
    expect(String(response.body)).not.toContain('hunter2');
  });
});
