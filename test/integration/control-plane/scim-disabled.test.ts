import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { ERROR, scim, USER } from './scim-support.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway({ SCIM_ENABLED: 'OFF' });
});
afterAll(async () => {
  await gateway?.close();
});

describe('SCIM_ENABLED=OFF', () => {
  it('answers every SCIM route with 404 feature_disabled, in SCIM’s error schema', async () => {
    for (const [method, path, body] of [
      ['GET', '/Users', undefined],
      ['POST', '/Users', { schemas: [USER], userName: 'a@b.example' }],
      ['GET', '/ServiceProviderConfig', undefined],
    ] as const) {
      const reply = await scim(gateway, method, path, body);
      expect(reply.status).toBe(404);
      expect(reply.body).toMatchObject({ schemas: [ERROR], status: '404', code: 'feature_disabled', detail: expect.stringContaining('SCIM_ENABLED') });
    }
  });
});
