import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { api, expectError, newKey, newWorkspace } from './identities-support.js';
import { rateLimitPayload, usageLimitPayload } from './policies-support.js';

let gateway: TestGateway;
let virtualKeyId: string;
let otherWorkspaceVirtualKeyId: string;

beforeAll(async () => {
  gateway = await startTestGateway();
  const mine = await api<{ id: string }>(gateway, 'POST', '/v1/virtual-keys', { body: { provider: 'openai', credential: 'sk-policy-ref' } });
  virtualKeyId = mine.body.id;
  const other = await newWorkspace(gateway);
  const otherWriter = (await newKey(gateway, { workspace_id: other.id, scopes: ['virtual_keys:write'] })).key;
  otherWorkspaceVirtualKeyId = (await api<{ id: string }>(gateway, 'POST', '/v1/virtual-keys', { key: otherWriter, body: { provider: 'openai', credential: 'sk-other' } })).body.id;
});
afterAll(async () => {
  await gateway?.close();
});

describe('policies validate virtual_key references strictly', () => {
  for (const [kind, path, payload] of [
    ['rate-limit', '/v1/policies/rate-limits', rateLimitPayload],
    ['usage-limit', '/v1/policies/usage-limits', usageLimitPayload],
  ] as const) {
    it(`${kind}: a virtual key of the workspace is accepted; an unknown one or another workspace’s is 400`, async () => {
      const accepted = await api(gateway, 'POST', path, { body: payload({ conditions: [{ key: 'virtual_key', value: virtualKeyId }] }) });
      expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
      for (const value of ['no-such-virtual-key', otherWorkspaceVirtualKeyId]) {
        const refused = await api(gateway, 'POST', path, { body: payload({ conditions: [{ key: 'virtual_key', value }] }) });
        expectError(refused, 400, 'invalid_condition_value', { param: 'conditions[0].value' });
      }
    });
  }
});
