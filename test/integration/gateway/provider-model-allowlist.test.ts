import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import type { MockUpstream } from '../../support/mock-upstream.js';
import { api, newKey } from '../control-plane/identities-support.js';

// A workspace provider's model allow list applies to the model each target sends, after override_params: a
// config (inline or saved) cannot use the provider's stored credential for a model outside the list.
let gateway: TestGateway;
let upstream: MockUpstream;
let completionsOnly: string;
useGatewayWithUpstream(openAIMockHandler(), (started) => ({ gateway, upstream } = started));
afterAll(() => drainAllBackgroundWork());

beforeAll(async () => {
  const integration = await api(gateway, 'POST', '/v1/integrations', {
    body: { name: 'allowlisted', provider: 'openai', credential: 'sk-stored-allowlist-0001', custom_host: upstream.url, shared_with_workspaces: [gateway.bootstrap.workspaceId] },
  });
  expect(integration.status, JSON.stringify(integration.body)).toBe(201);
  const provider = await api(gateway, 'POST', '/v1/providers', { body: { integration_id: 'allowlisted', slug: 'mini-only', models: ['gpt-4o-mini'], rate_limits: [{ type: 'requests', unit: 'rpd', value: 3 }] } });
  expect(provider.status, JSON.stringify(provider.body)).toBe(201);
  completionsOnly = (await newKey(gateway, { scopes: ['completions:write'] })).key;
});

async function chat(body: Record<string, unknown>, config?: unknown): Promise<{ status: number; body: { error?: { code: string; param: string | null; message: string } } }> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-gw-api-key': completionsOnly, 'x-gw-provider': '@mini-only' };
  if (config !== undefined) headers['x-gw-config'] = typeof config === 'string' ? config : JSON.stringify(config);
  const response = await fetch(`${gateway.url}/v1/chat/completions`, { method: 'POST', headers, body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], ...body }) });
  return { status: response.status, body: (await response.json()) as never };
}

describe('the model allow list of x-gw-provider: @slug', () => {
  it('is checked on the model after override_params: inline, saved, on a strategy and on one fallback target', async () => {
    const before = upstream.requests.length;
    for (const model of ['gpt-4o', 'o1']) {
      const inline = await chat({ model: 'gpt-4o-mini' }, { override_params: { model } });
      expect(inline.status, JSON.stringify(inline.body)).toBe(400);
      expect(inline.body.error).toMatchObject({ code: 'model_not_allowed', param: 'config.override_params.model' });
      expect(inline.body.error!.message).toContain(`'${model}'`);

      const saved = await api<{ id: string }>(gateway, 'POST', '/v1/configs', { body: { name: `override-${model}`, config: { provider: 'openai', override_params: { model } } } });
      expect(saved.status, JSON.stringify(saved.body)).toBe(201);
      expect((await chat({ model: 'gpt-4o-mini' }, saved.body.id)).body.error).toMatchObject({ code: 'model_not_allowed' });

      const onStrategy = { strategy: { mode: 'fallback' }, override_params: { model }, targets: [{}, {}] };
      expect((await chat({ model: 'gpt-4o-mini' }, onStrategy)).body.error).toMatchObject({ code: 'model_not_allowed', param: 'config.targets[0].override_params.model' });
      const oneTarget = { strategy: { mode: 'fallback' }, targets: [{}, { override_params: { model } }] };
      expect((await chat({ model: 'gpt-4o-mini' }, oneTarget)).body.error).toMatchObject({ code: 'model_not_allowed', param: 'config.targets[1].override_params.model' });
    }
    // A body model outside the list is refused as before; a model only the config supplies is checked too.
    expect((await chat({ model: 'gpt-4o' })).body.error).toMatchObject({ code: 'model_not_allowed', param: 'model' });
    expect((await chat({}, { override_params: { model: 'gpt-4o' } })).body.error).toMatchObject({ code: 'model_not_allowed' });
    expect(upstream.requests.length).toBe(before);
  });

  it('lets an allowed model through, the body\'s or the config\'s, and a refusal takes no request slot', async () => {
    const allowed = await chat({}, { override_params: { model: 'gpt-4o-mini' } });
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
    expect(upstream.requests.at(-1)!.json).toMatchObject({ model: 'gpt-4o-mini' });
    expect(upstream.requests.at(-1)!.headers.authorization).toBe('Bearer sk-stored-allowlist-0001');
    // The provider allows 3 requests a day: one used above, the refusals of the first test took none.
    expect((await chat({ model: 'gpt-4o-mini' })).status).toBe(200);
    expect((await chat({ model: 'gpt-4o-mini' })).status).toBe(200);
    expect((await chat({ model: 'gpt-4o-mini' })).status).toBe(429);
  });
});
