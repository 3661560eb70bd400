import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { api, expectError } from './identities-support.js';

// A workspace setting typed wrong is refused with the error shape, never stored as "none": typing "abc" as the
// default key expiry once saved null (no expiry) and answered 200 (issue #46).

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startTestGateway();
});
afterAll(async () => {
  await gateway?.close();
});

const patch = (body: unknown) => api<{ api_key_settings: Record<string, unknown> }>(gateway, 'PATCH', `/v1/workspaces/${gateway.bootstrap.workspaceId}`, { body });

describe('PATCH /v1/workspaces/{id} api_key_settings: bad values are refused, not cleared', () => {
  it('refuses a non-number expiry, max and key count with 400 naming the field, and keeps what was stored', async () => {
    const set = await patch({ api_key_settings: { default_expiry_days: 30, max_expiry_days: 90, max_api_keys: 50 } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    for (const [name, value] of [
      ['default_expiry_days', 'abc'],
      ['default_expiry_days', ''],
      ['default_expiry_days', 1.5],
      ['default_expiry_days', 0],
      ['max_expiry_days', '90'],
      ['max_api_keys', 'many'],
    ] as const) {
      const reply = await patch({ api_key_settings: { [name]: value } });
      expectError(reply, 400, 'invalid_request');
      expect(JSON.stringify(reply.body)).toContain(name);
    }
    const after = await api<{ api_key_settings: Record<string, unknown> }>(gateway, 'GET', `/v1/workspaces/${gateway.bootstrap.workspaceId}`);
    expect(after.body.api_key_settings).toMatchObject({ default_expiry_days: 30, max_expiry_days: 90, max_api_keys: 50 });
  });

  it('still clears a setting with an explicit null', async () => {
    const cleared = await patch({ api_key_settings: { default_expiry_days: null } });
    expect(cleared.status, JSON.stringify(cleared.body)).toBe(200);
    expect(cleared.body.api_key_settings).toMatchObject({ default_expiry_days: null, max_expiry_days: 90 });
  });
});
