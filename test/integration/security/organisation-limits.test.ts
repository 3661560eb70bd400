import { describe, expect, it } from 'vitest';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import type { MockUpstream } from '../../support/mock-upstream.js';
import { api, expectError, newKey, newWorkspace } from '../control-plane/identities-support.js';
import { rateLimitPayload, usageLimitPayload } from '../control-plane/policies-support.js';

/**
 * Limits an organisation admin set stay set (issue #30): a workspace key with providers:write / policies:write
 * may tighten a provider's budget, rate limits, models and `enabled`, or a policy's value, but never lift, raise,
 * widen, re-enable, archive or delete them, nor enable the same integration again beside them.
 */
let gateway: TestGateway;
let upstream: MockUpstream;
useGatewayWithUpstream(openAIMockHandler(), (started) => ({ gateway, upstream } = started));

type Provider = { id: string; slug: string; set_by: string; budget?: { limit_usd: number }; rate_limits: Array<{ value: number }>; models: string[]; enabled: boolean };

async function setUp(): Promise<{ workspaceId: string; writer: string; provider: Provider; integrationId: string }> {
  const workspace = await newWorkspace(gateway);
  const integration = await api<{ id: string }>(gateway, 'POST', '/v1/integrations', {
    body: { name: `openai ${workspace.id.slice(0, 8)}`, provider: 'openai', credential: 'sk-org-credential', custom_host: upstream.url, shared_with_workspaces: [workspace.id] },
  });
  expect(integration.status, JSON.stringify(integration.body)).toBe(201);
  const provider = await api<Provider>(gateway, 'POST', `/v1/providers?workspace_id=${workspace.id}`, {
    body: {
      integration_id: integration.body.id,
      slug: 'team-openai',
      models: ['gpt-4o-mini', 'gpt-4o'],
      budget: { limit_usd: 10, period: 'monthly' },
      rate_limits: [{ type: 'requests', unit: 'rpm', value: 100 }],
    },
  });
  expect(provider.status, JSON.stringify(provider.body)).toBe(201);
  expect(provider.body.set_by).toBe('organisation');
  const writer = (await newKey(gateway, { workspace_id: workspace.id, scopes: ['providers:write', 'providers:read', 'policies:write', 'policies:read', 'completions:write'] })).key;
  return { workspaceId: workspace.id, writer, provider: provider.body, integrationId: integration.body.id };
}

describe('a provider whose limits an organisation admin set', () => {
  it('cannot be loosened by a workspace key: lifted, raised, widened or re-enabled (403 organisation_admin_setting)', async () => {
    const { writer, provider } = await setUp();
    const path = `/v1/providers/${provider.id}`;
    const refusals: Array<[Record<string, unknown>, string]> = [
      [{ budget: null }, 'budget'],
      [{ budget: { limit_usd: 1_000, period: 'monthly' } }, 'budget'],
      [{ budget: { limit_usd: 10, period: 'none' } }, 'budget'],
      [{ rate_limits: [] }, 'rate_limits'],
      [{ rate_limits: [{ type: 'requests', unit: 'rpm', value: 1_000 }] }, 'rate_limits'],
      [{ models: [] }, 'models'],
      [{ models: ['gpt-4o-mini', 'o1'] }, 'models'],
    ];
    for (const [body, param] of refusals) {
      expectError(await api(gateway, 'PATCH', path, { key: writer, body }), 403, 'organisation_admin_setting', { param });
    }
    const unchanged = await api<Provider>(gateway, 'GET', path, { key: writer });
    expect(unchanged.body).toMatchObject({ budget: { limit_usd: 10, period: 'monthly' }, rate_limits: [{ type: 'requests', unit: 'rpm', value: 100 }], models: ['gpt-4o-mini', 'gpt-4o'] });
  });

  it('can be tightened by a workspace key, and once disabled cannot be re-enabled by it', async () => {
    const { writer, provider, workspaceId } = await setUp();
    const path = `/v1/providers/${provider.id}`;
    const tightened = await api<Provider>(gateway, 'PATCH', path, {
      key: writer,
      body: { budget: { limit_usd: 5, period: 'monthly' }, rate_limits: [{ type: 'requests', unit: 'rpm', value: 50 }, { type: 'tokens', unit: 'rpd', value: 10_000 }], models: ['gpt-4o-mini'], name: 'renamed' },
    });
    expect(tightened.status, JSON.stringify(tightened.body)).toBe(200);
    expect(tightened.body).toMatchObject({ set_by: 'organisation', budget: { limit_usd: 5 }, models: ['gpt-4o-mini'] });
    expect((await api(gateway, 'PATCH', path, { key: writer, body: { budget: { limit_usd: 10, period: 'monthly' } } })).status).toBe(403);

    expect((await api(gateway, 'PATCH', path, { key: writer, body: { enabled: false } })).status).toBe(200);
    expectError(await api(gateway, 'PATCH', path, { key: writer, body: { enabled: true } }), 403, 'organisation_admin_setting', { param: 'enabled' });
    // The organisation admin still may.
    expect((await api(gateway, 'PATCH', `${path}?workspace_id=${workspaceId}`, { body: { enabled: true, budget: null } })).status).toBe(200);
  });

  it('cannot be deleted by a workspace key, nor bypassed by enabling the integration a second time', async () => {
    const { writer, provider, integrationId, workspaceId } = await setUp();
    expectError(await api(gateway, 'DELETE', `/v1/providers/${provider.id}`, { key: writer }), 403, 'organisation_admin_setting');
    expectError(await api(gateway, 'POST', '/v1/providers', { key: writer, body: { integration_id: integrationId, slug: 'unlimited' } }), 403, 'organisation_admin_setting', { param: 'integration_id' });
    expect((await api(gateway, 'GET', `/v1/providers/${provider.id}`, { key: writer })).status).toBe(200);
    expect((await api(gateway, 'DELETE', `/v1/providers/${provider.id}?workspace_id=${workspaceId}`)).status).toBe(200);
  });

  it('a provider a workspace key set up itself stays the workspace’s to change', async () => {
    const { writer, integrationId, workspaceId } = await setUp();
    expect((await api(gateway, 'DELETE', `/v1/providers/team-openai?workspace_id=${workspaceId}`)).status).toBe(200);
    const own = await api<Provider>(gateway, 'POST', '/v1/providers', { key: writer, body: { integration_id: integrationId, slug: 'own', budget: { limit_usd: 3, period: 'monthly' } } });
    expect(own.status, JSON.stringify(own.body)).toBe(201);
    expect(own.body.set_by).toBe('workspace');
    expect((await api(gateway, 'PATCH', `/v1/providers/${own.body.id}`, { key: writer, body: { budget: null } })).status).toBe(200);
    expect((await api(gateway, 'DELETE', `/v1/providers/${own.body.id}`, { key: writer })).status).toBe(200);
  });
});

describe('a policy an organisation admin created', () => {
  for (const [kind, path, payload] of [
    ['rate limit', '/v1/policies/rate-limits', rateLimitPayload],
    ['usage limit', '/v1/policies/usage-limits', usageLimitPayload],
  ] as const) {
    it(`(${kind}) cannot be raised, changed or archived by a workspace key; a lower value passes`, async () => {
      const { writer, workspaceId } = await setUp();
      const created = await api<{ id: string }>(gateway, 'POST', path, { body: payload({ workspace_id: workspaceId }) });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const policy = `${path}/${created.body.id}`;
      expect((await api<{ set_by: string }>(gateway, 'GET', policy, { key: writer })).body.set_by).toBe('organisation');

      expectError(await api(gateway, 'PUT', policy, { key: writer, body: { value: 6_000 } }), 403, 'organisation_admin_setting', { param: 'value' });
      expectError(await api(gateway, 'PUT', policy, { key: writer, body: { conditions: [{ key: 'model', value: 'nothing-matches' }] } }), 403, 'organisation_admin_setting', { param: 'conditions' });
      expectError(await api(gateway, 'PUT', policy, { key: writer, body: { unit: kind === 'rate limit' ? 'rpd' : 'rpm' } }), 403, 'organisation_admin_setting', { param: 'unit' });
      expectError(await api(gateway, 'POST', `${policy}/archive`, { key: writer }), 403, 'organisation_admin_setting');
      if (kind === 'usage limit') {
        expectError(await api(gateway, 'PUT', policy, { key: writer, body: { credit_limit: { type: 'cost', value: 250 } } }), 403, 'organisation_admin_setting', { param: 'credit_limit' });
        expect((await api(gateway, 'PUT', policy, { key: writer, body: { credit_limit: { type: 'cost', value: 5 } } })).status).toBe(200);
      }
      const lowered = await api<{ value: number; status: string }>(gateway, 'PUT', policy, { key: writer, body: { value: 10 } });
      expect(lowered.status, JSON.stringify(lowered.body)).toBe(200);
      expect(lowered.body).toMatchObject({ value: 10, status: 'active' });
      // The organisation admin still may.
      expect((await api(gateway, 'POST', `${policy}/archive`)).status).toBe(200);
    });
  }

  it('a policy a workspace key created stays the workspace’s to change and archive', async () => {
    const { writer } = await setUp();
    const created = await api<{ id: string }>(gateway, 'POST', '/v1/policies/rate-limits', { key: writer, body: rateLimitPayload() });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const policy = `/v1/policies/rate-limits/${created.body.id}`;
    expect((await api<{ set_by: string }>(gateway, 'GET', policy, { key: writer })).body.set_by).toBe('workspace');
    expect((await api(gateway, 'PUT', policy, { key: writer, body: { value: 6_000 } })).status).toBe(200);
    expect((await api(gateway, 'POST', `${policy}/archive`, { key: writer })).status).toBe(200);
  });
});
