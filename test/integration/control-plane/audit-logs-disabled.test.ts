import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditLogRepository } from '../../../shared/store/audit-log-repository.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { api, expectError, newKey, newWorkspace } from './identities-support.js';

let gateway: TestGateway;

beforeAll(async () => {
  // Settings are read once per process: this file runs with the audit log switched off.
  gateway = await startTestGateway({ AUDIT_LOGS_ENABLED: 'OFF' });
});
afterAll(async () => {
  await gateway?.close();
});

describe('AUDIT_LOGS_ENABLED=OFF', () => {
  it('answers GET /v1/audit-logs with a 404 that names the flag', async () => {
    expectError(await api(gateway, 'GET', '/v1/audit-logs'), 404, 'feature_disabled', { message: /AUDIT_LOGS_ENABLED/ });
  });

  it('still authenticates first: no key is a 401, not the feature 404', async () => {
    expectError(await api(gateway, 'GET', '/v1/audit-logs', { key: null }), 401, 'api_key_missing');
  });

  it('keeps the other routes working and writes no audit events', async () => {
    const workspace = await newWorkspace(gateway);
    const key = await newKey(gateway, { workspace_id: workspace.id, scopes: ['api_keys:read'] });
    expect((await api(gateway, 'GET', '/v1/api-keys', { key: key.key })).status).toBe(200);
    const stored = await new AuditLogRepository().list({ organisationId: gateway.bootstrap.organisationId }, {}, 100);
    expect(stored.items).toEqual([]);
  });
});
