import { afterAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import { GuardrailRepository } from '../../../shared/store/guardrail-repository.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import type { MockUpstream } from '../../support/mock-upstream.js';
import { api, expectError } from '../control-plane/identities-support.js';
import { CHAT, mockTarget, send, toMock } from './guardrails-support.js';

// GUARDRAILS_ENABLED=OFF: the routes answer 404 feature_disabled and the gateway runs no guardrail.
let gateway: TestGateway;
let upstream: MockUpstream;
useGatewayWithUpstream(openAIMockHandler(), (started) => ({ gateway, upstream } = started), { GUARDRAILS_ENABLED: 'OFF' });
afterAll(() => drainAllBackgroundWork());

describe('GUARDRAILS_ENABLED=OFF', () => {
  it('turns every /v1/guardrails route off with 404 feature_disabled', async () => {
    expectError(await api(gateway, 'POST', '/v1/guardrails', { body: { name: 'x', type: 'add_prefix', config: { prefix: 'x' } } }), 404, 'feature_disabled', { message: /GUARDRAILS_ENABLED/ });
    expectError(await api(gateway, 'GET', '/v1/guardrails'), 404, 'feature_disabled');
    expectError(await api(gateway, 'GET', '/v1/guardrails/grd-x'), 404, 'feature_disabled');
    expectError(await api(gateway, 'GET', '/v1/guardrails/grd-x/versions'), 404, 'feature_disabled');
    expectError(await api(gateway, 'PUT', '/v1/guardrails/grd-x', { body: { config: {} } }), 404, 'feature_disabled');
    expectError(await api(gateway, 'DELETE', '/v1/guardrails/grd-x'), 404, 'feature_disabled');
    expectError(await api(gateway, 'PATCH', `/v1/workspaces/${gateway.bootstrap.workspaceId}`, { body: { default_guardrails: [] } }), 404, 'feature_disabled');
  });

  it('runs no guardrail on gateway requests, stored ones included', async () => {
    // A guardrail stored before the flag went off, named by a config.
    const now = new Date().toISOString();
    const stored = await new GuardrailRepository().create({
      id: `grd-${randomUUID().slice(0, 8)}`,
      workspace_id: gateway.bootstrap.workspaceId,
      name: 'stored prefix',
      type: 'add_prefix',
      config: { prefix: '[never] ' },
      created_at: now,
    });
    const sent = await send(gateway, '/v1/chat/completions', CHAT, toMock(upstream, { ...mockTarget(upstream), input_guardrails: [stored.id] }));
    expect(sent.status).toBe(200);
    expect((upstream.requests.at(-1)!.json as typeof CHAT).messages).toEqual([{ role: 'user', content: 'Hello' }]);
  });
});
