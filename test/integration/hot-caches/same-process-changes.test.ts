import { describe, expect, it } from 'vitest';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import type { MockUpstream } from '../../support/mock-upstream.js';
import { startTestMcpServer } from '../../support/mcp-server.js';
import { api } from '../control-plane/identities-support.js';
import { chat, createPolicy, viaMock } from '../enforcement/enforcement-support.js';

// The default (long) cache lifetimes, written out: every change below must count on the very next request of
// this process because the control plane dropped the cached entry, not because an entry ran out.
let gateway: TestGateway;
let upstream: MockUpstream;
useGatewayWithUpstream(openAIMockHandler(), (started) => ({ gateway, upstream } = started), {
  GW_VIRTUAL_KEY_CACHE_TTL_MS: '30000',
  GW_CONFIG_CACHE_TTL_MS: '30000',
  GW_POLICY_CACHE_TTL_MS: '300000',
});

const CREDENTIAL_A = 'sk-same-process-credential-a';
const CREDENTIAL_B = 'sk-same-process-credential-b';
const lastUpstream = () => upstream.requests.at(-1)!;
const modelSent = () => (lastUpstream().json as { model: string }).model;
const inline = (model: string) => ({ provider: 'openai', api_key: CREDENTIAL_A, custom_host: upstream.url, override_params: { model } });

async function change(method: string, path: string, body?: unknown): Promise<{ id: string }> {
  const reply = await api<{ id: string }>(gateway, method, path, body === undefined ? {} : { body });
  expect(reply.status, JSON.stringify(reply.body)).toBeLessThan(300);
  return reply.body;
}

describe('a change through the control plane counts at once in the same process', () => {
  it('a virtual key: a new credential is sent on the next request; a deleted key is refused on the next one', async () => {
    const key = await change('POST', '/v1/virtual-keys', { provider: 'openai', credential: CREDENTIAL_A, custom_host: upstream.url });
    expect((await chat(gateway, { 'x-gw-virtual-key': key.id })).status).toBe(200);
    expect(lastUpstream().headers.authorization).toBe(`Bearer ${CREDENTIAL_A}`);

    await change('PATCH', `/v1/virtual-keys/${key.id}`, { credential: CREDENTIAL_B });
    expect((await chat(gateway, { 'x-gw-virtual-key': key.id })).status).toBe(200);
    expect(lastUpstream().headers.authorization).toBe(`Bearer ${CREDENTIAL_B}`);

    await change('DELETE', `/v1/virtual-keys/${key.id}`);
    const calls = upstream.requests.length;
    const refused = await chat(gateway, { 'x-gw-virtual-key': key.id });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error: { code: 'virtual_key_not_found', param: 'x-gw-virtual-key' } });
    expect(upstream.requests.length).toBe(calls);
  });

  it('a saved config: an update runs on the next request; a deleted one is refused on the next one', async () => {
    const saved = await change('POST', '/v1/configs', { name: 'same process', config: inline('config-v1') });
    expect((await chat(gateway, { 'x-gw-config': saved.id })).status).toBe(200);
    expect(modelSent()).toBe('config-v1');

    await change('PUT', `/v1/configs/${saved.id}`, { config: inline('config-v2') });
    expect((await chat(gateway, { 'x-gw-config': saved.id })).status).toBe(200);
    expect(modelSent()).toBe('config-v2');

    await change('DELETE', `/v1/configs/${saved.id}`);
    const refused = await chat(gateway, { 'x-gw-config': saved.id });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error: { param: 'x-gw-config' } });
  });

  it('a deployment: an update runs on the next request, also under a new slug; a deleted one is refused on the next one', async () => {
    const deployment = await change('POST', '/v1/deployments', { name: 'same process', type: 'production', config: inline('deployment-v1') });
    expect((await chat(gateway, { 'x-gw-deployment': 'same-process' })).status).toBe(200);
    expect(modelSent()).toBe('deployment-v1');

    await change('PATCH', `/v1/deployments/${deployment.id}`, { config: inline('deployment-v2') });
    expect((await chat(gateway, { 'x-gw-deployment': 'same-process' })).status).toBe(200);
    expect(modelSent()).toBe('deployment-v2');

    await change('PATCH', `/v1/deployments/${deployment.id}`, { slug: 'renamed-same-process' });
    expect((await chat(gateway, { 'x-gw-deployment': 'same-process' })).status).toBe(404);
    expect((await chat(gateway, { 'x-gw-deployment': 'renamed-same-process' })).status).toBe(200);

    await change('DELETE', `/v1/deployments/${deployment.id}`);
    expect((await chat(gateway, { 'x-gw-deployment': 'renamed-same-process' })).status).toBe(404);
  });

  it('an MCP server: a new credential is sent on the next MCP request (the record is read per request)', async () => {
    const tools = await startTestMcpServer({ token: CREDENTIAL_B });
    try {
      const server = await change('POST', '/v1/mcp-servers', { name: 'same process tools', url: tools.url, auth: { type: 'bearer', token: CREDENTIAL_A } });
      const initialize = () =>
        fetch(`${gateway.url}/v1/mcp/${server.id}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-gw-api-key': gateway.apiKey },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'same-process', version: '1' } } }),
        }).then((response) => response.text());
      const sentBy = async (send: () => Promise<unknown>) => {
        const from = tools.received.length;
        await send();
        return tools.received.slice(from).map((request) => request.headers.authorization);
      };
      expect(await sentBy(initialize)).toEqual([`Bearer ${CREDENTIAL_A}`]);
      await change('PATCH', `/v1/mcp-servers/${server.id}`, { auth: { type: 'bearer', token: CREDENTIAL_B } });
      expect(await sentBy(initialize)).toEqual([`Bearer ${CREDENTIAL_B}`]);
    } finally {
      await tools.close();
    }
  });

  it('a policy: a new one is enforced on the next request, an update and an archive count on the next one too', async () => {
    const headers = viaMock(upstream, { _user: 'same-process' });
    // Warms this workspace's snapshot (no policy for this user yet).
    expect((await chat(gateway, headers)).status).toBe(200);

    const policy = await createPolicy(gateway, 'rate-limits', {
      name: 'same process',
      conditions: [{ key: 'metadata._user', value: 'same-process' }],
      group_by: [{ key: 'api_key' }],
      type: 'requests',
      unit: 'rpd',
      value: 1,
    });
    expect((await chat(gateway, headers)).status).toBe(200);
    expect((await chat(gateway, headers)).status).toBe(429);

    await change('PUT', `/v1/policies/rate-limits/${policy.id}`, { value: 2 });
    expect((await chat(gateway, headers)).status).toBe(200);
    expect((await chat(gateway, headers)).status).toBe(429);

    await change('POST', `/v1/policies/rate-limits/${policy.id}/archive`);
    expect((await chat(gateway, headers)).status).toBe(200);
  });
});
