import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IntegrationView } from '../../../shared/control-plane/integrations/schemas.js';
import type { ProviderView } from '../../../shared/control-plane/providers/schemas.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import { startMockUpstream, type MockUpstream } from '../../support/mock-upstream.js';
import { api, expectError, newKey, newWorkspace, otherOrganisation, type Page, type Reply } from './identities-support.js';
import { readOnlyJwt, TEST_JWT_SECRET } from './jwt-support.js';

const CREDENTIAL = 'sk-integration-sentinel-9f1c2e7d';

let gateway: TestGateway;
let upstream: MockUpstream;
let other: { id: string; slug: string };
let otherAdminOnlyWorkspace: { id: string };
let workspaceProviderWriter: string;
let otherWorkspaceProviderWriter: string;
let readOnlyProviders: string;
let noScope: string;
let otherOrgAdmin: string;
const replies: Array<Reply<unknown>> = [];

async function call<Body = unknown>(method: string, path: string, options: Parameters<typeof api>[3] = {}): Promise<Reply<Body>> {
  const reply = await api<Body>(gateway, method, path, options);
  replies.push(reply);
  return reply;
}
const chat = (provider: string, body: Record<string, unknown>, key?: string) =>
  fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gw-api-key': key ?? gateway.apiKey, 'x-gw-provider': provider, authorization: 'Bearer sk-client-should-be-replaced' },
    body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], ...body }),
  });

beforeAll(async () => {
  upstream = await startMockUpstream(openAIMockHandler());
  gateway = await startTestGateway({ GW_JWT_SECRET: TEST_JWT_SECRET });
  other = await newWorkspace(gateway);
  otherAdminOnlyWorkspace = await newWorkspace(gateway);
  workspaceProviderWriter = (await newKey(gateway, { scopes: ['providers:read', 'providers:write', 'integrations:read', 'integrations:write', 'completions:write'] })).key;
  otherWorkspaceProviderWriter = (await newKey(gateway, { workspace_id: other.id, scopes: ['providers:read', 'providers:write', 'integrations:read', 'completions:write'] })).key;
  readOnlyProviders = (await newKey(gateway, { scopes: ['providers:read', 'integrations:read'] })).key;
  noScope = (await newKey(gateway, { scopes: ['configs:read'] })).key;
  otherOrgAdmin = (await otherOrganisation()).adminKey;
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

describe('/v1/integrations', () => {
  it('creates (credential masked, never returned), lists by tags, updates, rotates and deletes; audited', async () => {
    const created = await call<IntegrationView>('POST', '/v1/integrations', {
      body: { name: 'OpenAI Prod', provider: 'openai', credential: CREDENTIAL, custom_host: upstream.url, tags: { env: 'prod', team: 'ml' }, shared_with_workspaces: [gateway.bootstrap.workspaceId] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ object: 'integration', slug: 'openai-prod', provider: 'openai', credential: { stored: true, masked: '****2e7d' }, tags: { env: 'prod', team: 'ml' } });
    const dev = await call<IntegrationView>('POST', '/v1/integrations', { body: { name: 'dev', provider: 'anthropic', tags: { env: 'dev' }, shared_with_workspaces: 'all' } });
    expect(dev.status).toBe(201);

    const prod = await call<Page<IntegrationView>>('GET', '/v1/integrations?tags=env:prod');
    expect(prod.body.data.map((item) => item.slug)).toEqual(['openai-prod']);
    const both = await call<Page<IntegrationView>>('GET', '/v1/integrations?tags=env:prod,team:ml');
    expect(both.body.data).toHaveLength(1);
    expect((await call<Page<IntegrationView>>('GET', '/v1/integrations?tags=env:prod,team:web')).body.data).toHaveLength(0);
    expectError(await call('GET', '/v1/integrations?tags=nocolon'), 400, 'invalid_request', { param: 'tags' });

    const renamed = await call<IntegrationView>('PATCH', `/v1/integrations/${dev.body.id}`, { body: { name: 'dev 2', credential: 'sk-rotated-credential-0000' } });
    expect(renamed.body).toMatchObject({ name: 'dev 2', credential: { stored: true, masked: '****0000' } });
    expect((await call('DELETE', `/v1/integrations/${dev.body.slug}`)).status).toBe(200);
    expectError(await call('GET', `/v1/integrations/${dev.body.id}`), 404, 'not_found');

    const audit = await call<Page<{ action: string; outcome: string; details: unknown }>>('GET', `/v1/audit-logs?resource_id=${dev.body.id}`);
    expect(audit.body.data.map((event) => event.action).sort()).toEqual(['integration.create', 'integration.delete', 'integration.update']);
    expect(JSON.stringify(audit.body)).not.toContain('sk-rotated');
  });

  it('validates: name and slug ≤ 255, known provider, tags shape, unknown workspace; 409 on a taken slug', async () => {
    expectError(await call('POST', '/v1/integrations', { body: { name: 'n'.repeat(256), provider: 'openai' } }), 400, 'invalid_request', { param: 'name' });
    expectError(await call('POST', '/v1/integrations', { body: { name: 'x', slug: 's'.repeat(256), provider: 'openai' } }), 400, 'invalid_request', { param: 'slug' });
    expectError(await call('POST', '/v1/integrations', { body: { name: 'x', provider: 'no-such-provider' } }), 400, 'unknown_provider');
    expectError(await call('POST', '/v1/integrations', { body: { name: 'x', provider: 'openai', tags: { 'bad key:': 'v' } } }), 400, 'invalid_request');
    expectError(await call('POST', '/v1/integrations', { body: { name: 'x', provider: 'openai', shared_with_workspaces: ['nope'] } }), 404, 'not_found', { param: 'shared_with_workspaces[0]' });
    expectError(await call('POST', '/v1/integrations', { body: { name: 'OpenAI Prod', provider: 'openai' } }), 409, 'slug_taken');
    expectError(await call('POST', '/v1/integrations', { body: '{"credential": "sk-leak' }), 400, 'invalid_json');
  });

  it('derives a slug from a name without letters or digits as integration-<random>, never as another resource’s', async () => {
    const created = await call<IntegrationView>('POST', '/v1/integrations', { body: { name: '日本 ✓', provider: 'openai' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.slug).toMatch(/^integration-[0-9a-f]{8}$/);
    expect((await call('DELETE', `/v1/integrations/${created.body.slug}`)).status).toBe(200);
  });

  it('permissions: workspace keys cannot write (admin only), keys without the scope get 403, a JWT only reads', async () => {
    expectError(await call('POST', '/v1/integrations', { key: workspaceProviderWriter, body: { name: 'ws', provider: 'openai' } }), 403, 'admin_required');
    expectError(await call('GET', '/v1/integrations', { key: noScope }), 403, 'missing_scope');
    const jwt = await readOnlyJwt(gateway);
    expect((await call('GET', '/v1/integrations', { bearer: jwt })).status).toBe(200);
    expectError(await call('POST', '/v1/integrations', { bearer: jwt, body: { name: 'jwt', provider: 'openai' } }), 403, 'jwt_read_only');
  });

  it('scoping: a workspace key sees only integrations shared with it; another organisation sees none', async () => {
    const visible = await call<Page<IntegrationView>>('GET', '/v1/integrations?limit=100', { key: otherWorkspaceProviderWriter });
    expect(visible.body.data.map((item) => item.slug)).not.toContain('openai-prod');
    expectError(await call('GET', '/v1/integrations/openai-prod', { key: otherWorkspaceProviderWriter }), 404, 'not_found');
    expectError(await call('GET', '/v1/integrations/openai-prod', { key: otherOrgAdmin }), 404, 'not_found');
  });
});

describe('/v1/providers and x-gw-provider: @slug', () => {
  it('enables a shared integration, lists by tags, and injects the stored credential upstream', async () => {
    const created = await call<ProviderView>('POST', '/v1/providers', {
      key: workspaceProviderWriter,
      body: { integration_id: 'openai-prod', slug: 'team-openai', models: ['gpt-4o-mini', 'gpt-4o'], tags: { cost_center: 'r-and-d' } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ object: 'provider', provider: 'openai', slug: 'team-openai', enabled: true, workspace_id: gateway.bootstrap.workspaceId });
    expect((await call<Page<ProviderView>>('GET', '/v1/providers?tags=cost_center:r-and-d', { key: readOnlyProviders })).body.data).toHaveLength(1);
    expect((await call<Page<ProviderView>>('GET', '/v1/providers?tags=cost_center:other', { key: readOnlyProviders })).body.data).toHaveLength(0);

    const start = upstream.requests.length;
    const response = await chat('@team-openai', { model: 'gpt-4o-mini' }, workspaceProviderWriter);
    expect(response.status, await response.clone().text()).toBe(200);
    expect(response.headers.get('x-gw-provider')).toBe('openai');
    expect(upstream.requests[start].headers.authorization).toBe(`Bearer ${CREDENTIAL}`);
  });

  it('refuses a model outside the allowlist with a 400 naming it; unknown and disabled providers with 400', async () => {
    const refused = await chat('@team-openai', { model: 'o1-pro' });
    expect(refused.status).toBe(400);
    const body = (await refused.json()) as { error: { code: string; message: string; param: string } };
    expect(body.error).toMatchObject({ code: 'model_not_allowed', param: 'model' });
    expect(body.error.message).toContain("'o1-pro'");
    expect((await chat('@no-such-provider', { model: 'gpt-4o' })).status).toBe(400);
    await call('PATCH', '/v1/providers/team-openai', { body: { enabled: false } });
    const disabled = await chat('@team-openai', { model: 'gpt-4o' });
    expect(((await disabled.json()) as { error: { code: string } }).error.code).toBe('provider_disabled');
    await call('PATCH', '/v1/providers/team-openai', { body: { enabled: true } });
  });

  // 200 requests through the whole pipeline: on a machine shared with other runs this can pass 20 s.
  it('enforces the provider’s request rate limit atomically under 200 concurrent requests', { timeout: 120_000 }, async () => {
    const limited = await call<ProviderView>('POST', '/v1/providers', { body: { integration_id: 'openai-prod', slug: 'limited-openai', rate_limits: [{ type: 'requests', unit: 'rpd', value: 5 }] } });
    expect(limited.status, JSON.stringify(limited.body)).toBe(201);
    const statuses = await Promise.all(Array.from({ length: 200 }, () => chat('@limited-openai', { model: 'gpt-4o' }).then(async (response) => (await response.arrayBuffer(), response.status))));
    expect(statuses.filter((status) => status === 200)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(195);
  });

  it('refuses once the provider budget is spent (412)', async () => {
    const budgeted = await call<ProviderView>('POST', '/v1/providers', { body: { integration_id: 'openai-prod', slug: 'tiny-budget', budget: { limit_usd: 0.000001, period: 'none' } } });
    expect(budgeted.status).toBe(201);
    expect((await chat('@tiny-budget', { model: 'gpt-4o' })).status).toBe(200);
    let status = 200;
    // The charge is written after the response; the next requests see it once it has landed.
    for (let attempt = 0; attempt < 50 && status === 200; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const response = await chat('@tiny-budget', { model: 'gpt-4o' });
      status = response.status;
      await response.arrayBuffer();
    }
    expect(status).toBe(412);
  });

  it('validation and scoping: integration not shared → 404, bad limits → 400, another workspace cannot see or use the provider', async () => {
    expectError(await call('POST', '/v1/providers', { key: otherWorkspaceProviderWriter, body: { integration_id: 'openai-prod' } }), 404, 'not_found', { param: 'integration_id' });
    expectError(await call('POST', '/v1/providers', { body: { integration_id: 'openai-prod', slug: 'x', rate_limits: [{ type: 'requests', unit: 'rps', value: 1 }] } }), 400, 'invalid_request');
    expectError(await call('POST', '/v1/providers', { body: { integration_id: 'openai-prod', name: 'n'.repeat(256) } }), 400, 'invalid_request', { param: 'name' });
    expectError(await call('POST', '/v1/providers', { body: { integration_id: 'openai-prod', slug: 'team-openai' } }), 409, 'slug_taken');
    expectError(await call('GET', '/v1/providers/team-openai', { key: otherWorkspaceProviderWriter }), 404, 'not_found');
    expectError(await call('GET', `/v1/providers/team-openai?workspace_id=${otherAdminOnlyWorkspace.id}`), 404, 'not_found');
    expectError(await call('GET', '/v1/providers/team-openai', { key: otherOrgAdmin }), 404, 'not_found');
    const elsewhere = await chat('@team-openai', { model: 'gpt-4o' }, otherWorkspaceProviderWriter);
    expect(((await elsewhere.json()) as { error: { code: string } }).error.code).toBe('provider_not_found');
  });

  it('permissions: read-only key cannot write, no scope → 403, JWT cannot write', async () => {
    expectError(await call('POST', '/v1/providers', { key: readOnlyProviders, body: { integration_id: 'openai-prod' } }), 403, 'missing_scope');
    expectError(await call('GET', '/v1/providers', { key: noScope }), 403, 'missing_scope');
    expectError(await call('DELETE', '/v1/providers/team-openai', { bearer: await readOnlyJwt(gateway) }), 403, 'jwt_read_only');
    // An organisation admin key set `enabled` on it above: its limits are the organisation's now (issue #30).
    expectError(await call('DELETE', '/v1/providers/team-openai', { key: workspaceProviderWriter }), 403, 'organisation_admin_setting');
    expect((await call('DELETE', '/v1/providers/team-openai')).status).toBe(200);
  });

  it('a provider stops working when its integration is unshared or deleted (400 integration_unavailable)', async () => {
    const integration = await call<IntegrationView>('POST', '/v1/integrations', { body: { name: 'short lived', provider: 'openai', credential: CREDENTIAL, custom_host: upstream.url, shared_with_workspaces: 'all' } });
    expect((await call('POST', '/v1/providers', { body: { integration_id: integration.body.id, slug: 'short-lived' } })).status).toBe(201);
    expect((await chat('@short-lived', { model: 'gpt-4o' })).status).toBe(200);
    await call('PATCH', `/v1/integrations/${integration.body.id}`, { body: { shared_with_workspaces: [other.id] } });
    const unshared = await chat('@short-lived', { model: 'gpt-4o' });
    expect(((await unshared.json()) as { error: { code: string } }).error.code).toBe('integration_unavailable');
    await call('PATCH', `/v1/integrations/${integration.body.id}`, { body: { shared_with_workspaces: 'all' } });
    expect((await chat('@short-lived', { model: 'gpt-4o' })).status).toBe(200);
    await call('DELETE', `/v1/integrations/${integration.body.id}`);
    const deleted = await chat('@short-lived', { model: 'gpt-4o' });
    expect(((await deleted.json()) as { error: { code: string } }).error.code).toBe('integration_unavailable');
  });

  it('no reply ever carried the credential', () => {
    for (const reply of replies) expect(JSON.stringify(reply.body)).not.toContain(CREDENTIAL);
  });
});
