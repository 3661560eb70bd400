import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { call, expectedError, rateLimitPayload, usageLimitPayload } from './policies-support.js';

// USAGE_LIMITS_ENABLED=OFF switches off usage-limit policies only; rate limits keep working.
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway({ USAGE_LIMITS_ENABLED: 'OFF' });
});
afterAll(async () => {
  await gateway?.close();
});

describe('USAGE_LIMITS_ENABLED=OFF', () => {
  it.each([
    ['POST', '/v1/policies/usage-limits', usageLimitPayload()],
    ['GET', '/v1/policies/usage-limits', undefined],
    ['GET', '/v1/policies/usage-limits/0190f5a8-9c1e-7b2a-8c3d-4e5f60718293', undefined],
  ])('%s %s answers 404 feature_disabled naming USAGE_LIMITS_ENABLED', async (method, path, body) => {
    const response = await call(gateway, method, path, { body });
    expect(response.status).toBe(404);
    expect(response.body).toEqual(expectedError('feature_disabled', 'not_found_error', null, 'USAGE_LIMITS_ENABLED'));
  });

  it('still serves rate-limit policies and the entities list', async () => {
    const created = await call<{ id: string }>(gateway, 'POST', '/v1/policies/rate-limits', { body: rateLimitPayload() });
    expect(created.status).toBe(201);
    expect((await call(gateway, 'GET', `/v1/policies/rate-limits/${created.body.id}`)).status).toBe(200);
    expect((await call(gateway, 'GET', '/v1/policies/entities')).status).toBe(200);
  });
});
