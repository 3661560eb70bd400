import { afterEach, describe, expect, it, vi } from 'vitest';
import { secretStore } from '../../../shared/store/secrets/secret-store-factory.js';
import { SecretStoreError } from '../../../shared/store/secrets/secret-store.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import type { MockUpstream } from '../../support/mock-upstream.js';
import { api } from '../control-plane/identities-support.js';

/**
 * A secret store that cannot answer is a 503 `secret_store_unavailable` on every path that needs it (saved
 * configs as well as virtual keys), never a 500, and the answer names neither the secret nor the store's reason.
 * The gateway runs in this process, so its secret store can be made to fail.
 */
let gateway: TestGateway;
let upstream: MockUpstream;
useGatewayWithUpstream(openAIMockHandler(), (started) => ({ gateway, upstream } = started));
afterEach(() => vi.restoreAllMocks());

const REASON = 'Secrets Manager get of gw/config-secrets/ws/cfg failed: ThrottlingException';
const outage = (operation: 'get' | 'put') => vi.spyOn(secretStore(), operation).mockRejectedValue(new SecretStoreError(REASON, operation));

function expectUnavailable(reply: { status: number; body: unknown }): void {
  expect(reply.status).toBe(503);
  expect(reply.body).toMatchObject({ status: 'failure', error: { code: 'secret_store_unavailable' } });
  expect(JSON.stringify(reply.body)).not.toMatch(/Throttling|config-secrets/);
}

async function savedConfigWithCredential(name: string): Promise<string> {
  const body = { name, config: { provider: 'openai', api_key: 'sk-saved-credential-0001', custom_host: upstream.url } };
  const created = await api<{ id: string }>(gateway, 'POST', '/v1/configs', { body });
  expect(created.status).toBe(201);
  return created.body.id;
}

describe('a secret store outage', () => {
  it('is a 503 when the gateway reads a saved config’s credential', async () => {
    const configId = await savedConfigWithCredential('outage-read');
    outage('get');
    const response = await gateway.post('/v1/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }, { 'x-gw-config': configId });
    expectUnavailable({ status: response.status, body: await response.json() });
  });

  it('is a 503 when an update must read the stored credential it keeps', async () => {
    const configId = await savedConfigWithCredential('outage-update');
    const current = await api<{ config: Record<string, unknown> }>(gateway, 'GET', `/v1/configs/${configId}`);
    outage('get');
    // The masked api_key comes back as read: keeping it means reading the stored value.
    const updated = await api(gateway, 'PUT', `/v1/configs/${configId}`, { body: { config: { ...current.body.config, retry: { attempts: 2 } } } });
    expectUnavailable(updated);
  });

  it('is a 503 on create, and nothing is half saved', async () => {
    outage('put');
    const created = await api(gateway, 'POST', '/v1/configs', { body: { name: 'outage-create', config: { provider: 'openai', api_key: 'sk-never-stored-0002' } } });
    expectUnavailable(created);
    vi.restoreAllMocks();
    const listed = await api<{ data: Array<{ name: string }> }>(gateway, 'GET', '/v1/configs');
    expect(listed.body.data.map((config) => config.name)).not.toContain('outage-create');
  });
});
