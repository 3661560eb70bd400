import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeyAuthenticator } from '../../../shared/auth/authenticate.js';
import { ConfigResolver } from '../../../shared/gateway/config/resolve-config.js';
import { applyGuardrails } from '../../../shared/gateway/guardrail-stage.js';
import { buildGatewayContext } from '../../../shared/gateway/inference.js';
import type { NeutralRequest } from '../../../shared/http/types.js';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import { savedConfigSource } from '../../../shared/store/config-repository.js';
import { GuardrailRepository } from '../../../shared/store/guardrail-repository.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { createGuardrail, type GuardrailBody } from './guardrails-support.js';

// The stage on a real context (real authentication, config resolution and store): what it records on the trace
// and the context, and that a warm request reads nothing from the store.
let gateway: TestGateway;
let prefix: GuardrailBody;
let noTools: GuardrailBody;
beforeAll(async () => {
  gateway = await startTestGateway();
  deps = { authenticator: new ApiKeyAuthenticator(), configs: new ConfigResolver(savedConfigSource()) };
  prefix = await createGuardrail(gateway, { name: 'prefix', type: 'add_prefix', config: { prefix: '> ' } });
  noTools = await createGuardrail(gateway, { name: 'no tools', type: 'request_params_check', config: { tools: { allowedTypes: [] } } });
});
afterAll(async () => {
  await drainAllBackgroundWork();
  await gateway?.close();
});

// Created after the gateway started: repositories read the settings it prepares.
let deps: { authenticator: ApiKeyAuthenticator; configs: ConfigResolver };

async function contextFor(body: Record<string, unknown>, guardrails: string[]) {
  const request: NeutralRequest = {
    method: 'POST',
    path: '/v1/chat/completions',
    headers: { 'x-gw-api-key': gateway.apiKey, 'x-gw-config': JSON.stringify({ provider: 'openai', api_key: 'sk-x', input_guardrails: guardrails }) },
    query: {},
    body: Buffer.from(JSON.stringify(body)),
  } as NeutralRequest;
  return buildGatewayContext(request, 'chat', 'trace-guardrail-stage', deps);
}

describe('the guardrail stage', () => {
  it('records a span per check under a guardrails span, and a summary on the context', async () => {
    const context = await contextFor({ model: 'm', messages: [{ role: 'user', content: 'Hi' }] }, [prefix.id, noTools.id]);
    await applyGuardrails(context);
    expect(context.body.messages).toEqual([{ role: 'user', content: '> Hi' }]);
    expect(context.guardrails).toEqual({
      verdict: 'transformed',
      checks: [
        { id: prefix.id, name: 'prefix', type: 'add_prefix', action: 'transform', code: undefined },
        { id: noTools.id, name: 'no tools', type: 'request_params_check', action: 'pass', code: undefined },
      ],
      denied_by: undefined,
    });
    const stage = context.spans!.find((span) => span.name === 'guardrails')!;
    expect(stage).toMatchObject({ status: 'ok', attributes: { verdict: 'transformed', guardrails: 2 } });
    const checks = context.spans!.filter((span) => span.parent_span_id === stage.span_id);
    expect(checks.map((span) => [span.name, span.attributes.guardrail_id, span.attributes.action])).toEqual([
      ['guardrail.add_prefix', prefix.id, 'transform'],
      ['guardrail.request_params_check', noTools.id, 'pass'],
    ]);
  });

  it('marks a denial on the trace and throws the 400', async () => {
    const context = await contextFor({ model: 'm', messages: [{ role: 'user', content: 'Hi' }], tools: [{ type: 'function', function: { name: 'f' } }] }, [prefix.id, noTools.id]);
    await expect(applyGuardrails(context)).rejects.toMatchObject({ status: 400, type: 'guardrail_violation', code: 'guardrail_tool_type_not_allowed', param: 'tools[0].type' });
    expect(context.guardrails).toMatchObject({ verdict: 'denied', denied_by: noTools.id });
    const denied = context.spans!.find((span) => span.name === 'guardrail.request_params_check')!;
    expect(denied).toMatchObject({ status: 'error', attributes: { action: 'deny', code: 'guardrail_tool_type_not_allowed' } });
    expect(context.spans!.find((span) => span.name === 'guardrails')).toMatchObject({ status: 'error' });
  });

  it('costs no store call when warm', async () => {
    const context = await contextFor({ model: 'm', messages: [{ role: 'user', content: 'Hi' }] }, [prefix.id]);
    await applyGuardrails(context);
    const calls: string[] = [];
    const original = { get: GuardrailRepository.prototype.get, defaults: GuardrailRepository.prototype.workspaceDefaults };
    GuardrailRepository.prototype.get = function (...args) {
      calls.push('get');
      return original.get.apply(this, args);
    };
    GuardrailRepository.prototype.workspaceDefaults = function (...args) {
      calls.push('defaults');
      return original.defaults.apply(this, args);
    };
    try {
      const warm = await contextFor({ model: 'm', messages: [{ role: 'user', content: 'Hi' }] }, [prefix.id]);
      await applyGuardrails(warm);
      expect(warm.body.messages).toEqual([{ role: 'user', content: '> Hi' }]);
    } finally {
      GuardrailRepository.prototype.get = original.get;
      GuardrailRepository.prototype.workspaceDefaults = original.defaults;
    }
    expect(calls).toEqual([]);
  });
});
