import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { call, expectedError, rateLimitPayload, usageLimitPayload } from './policies-support.js';

// Settings are read once per process, so POLICY_ENABLED=OFF has this file to itself.
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway({ POLICY_ENABLED: 'OFF' });
});
afterAll(async () => {
  await gateway?.close();
});

const ID = '0190f5a8-9c1e-7b2a-8c3d-4e5f60718293';
const ROUTES: Array<[string, string, unknown?]> = [
  ['POST', '/v1/policies/rate-limits', rateLimitPayload()],
  ['GET', '/v1/policies/rate-limits'],
  ['GET', `/v1/policies/rate-limits/${ID}`],
  ['PUT', `/v1/policies/rate-limits/${ID}`, { value: 1 }],
  ['POST', `/v1/policies/rate-limits/${ID}/archive`],
  ['POST', '/v1/policies/usage-limits', usageLimitPayload()],
  ['GET', '/v1/policies/usage-limits'],
  ['GET', `/v1/policies/usage-limits/${ID}`],
  ['PUT', `/v1/policies/usage-limits/${ID}`, { value: 1 }],
  ['POST', `/v1/policies/usage-limits/${ID}/archive`],
  ['GET', '/v1/policies/entities'],
];

describe('POLICY_ENABLED=OFF', () => {
  it.each(ROUTES)('%s %s answers 404 feature_disabled naming the flag', async (method, path, body) => {
    const response = await call(gateway, method, path, { body });
    expect(response.status).toBe(404);
    expect(response.body).toEqual(expectedError('feature_disabled', 'not_found_error', null, 'POLICY_ENABLED'));
  });

  it('still authenticates first: no key is a 401, not a hint about the feature', async () => {
    const response = await call(gateway, 'GET', '/v1/policies/rate-limits', { key: null });
    expect(response.status).toBe(401);
    expect(response.body).toEqual(expectedError('api_key_missing', 'authentication_error', null, 'x-gw-api-key'));
  });

  it('keeps invalid bodies from mattering: the flag answers before validation', async () => {
    const response = await call(gateway, 'POST', '/v1/policies/rate-limits', { body: { conditions: [] } });
    expect(response.status).toBe(404);
    expect(response.body).toEqual(expectedError('feature_disabled', 'not_found_error', null, 'set POLICY_ENABLED'));
  });
});
