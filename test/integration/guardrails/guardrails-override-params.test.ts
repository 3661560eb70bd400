import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import type { MockUpstream } from '../../support/mock-upstream.js';
import { call, createKey, createWorkspace, type CreatedKey } from '../control-plane/policies-support.js';
import { CHAT, createGuardrail, expectDenied, mockTarget, send, setWorkspaceDefaults, type GuardrailBody } from './guardrails-support.js';

// Guardrails judge the request that goes upstream: a config's override_params (inline, saved, or on one target
// of a tree) are merged before the workspace's guardrails run, so a key with nothing but completions:write
// cannot carry a blocked tool, key or value past them by writing it into a config.
let gateway: TestGateway;
let upstream: MockUpstream;
useGatewayWithUpstream(openAIMockHandler(), (started) => ({ gateway, upstream } = started));
afterAll(() => drainAllBackgroundWork());

let completionsOnly: CreatedKey;
let admin: CreatedKey;
const guardrails: Record<string, GuardrailBody> = {};

/** The eight rules of request_params_check, one guardrail each, in the order they run as workspace defaults. */
const RULES: Array<{ rule: string; config: Record<string, unknown>; override: Record<string, unknown>; code: string; param: string }> = [
  { rule: 'blockedTypes', config: { tools: { blockedTypes: ['custom'] } }, override: { tools: [{ type: 'custom', custom: { name: 'lookup' } }] }, code: 'guardrail_tool_type_blocked', param: 'tools[0].type' },
  { rule: 'allowedTypes', config: { tools: { allowedTypes: ['function', 'custom'] } }, override: { tools: [{ type: 'web_search_preview' }] }, code: 'guardrail_tool_type_not_allowed', param: 'tools[0].type' },
  {
    rule: 'blockedFunctionNames',
    config: { tools: { blockedFunctionNames: ['run_shell'] } },
    override: { tools: [{ type: 'function', function: { name: 'run_shell', parameters: { type: 'object' } } }] },
    code: 'guardrail_function_name_blocked',
    param: 'tools[0]',
  },
  {
    rule: 'allowedFunctionNames',
    config: { tools: { allowedFunctionNames: ['lookup'] } },
    override: { tools: [{ type: 'function', function: { name: 'delete_all', parameters: { type: 'object' } } }] },
    code: 'guardrail_function_name_not_allowed',
    param: 'tools[0]',
  },
  { rule: 'blockedKeys', config: { params: { blockedKeys: ['logit_bias'] } }, override: { logit_bias: { '50256': -100 } }, code: 'guardrail_param_blocked', param: 'logit_bias' },
  { rule: 'allowedKeys', config: { params: { allowedKeys: ['model', 'messages', 'tools', 'logit_bias', 'temperature'] } }, override: { seed: 7 }, code: 'guardrail_param_not_allowed', param: 'seed' },
  { rule: 'blockedValues', config: { params: { values: { temperature: { blockedValues: [2] } } } }, override: { temperature: 2 }, code: 'guardrail_param_value_blocked', param: 'temperature' },
  { rule: 'allowedValues (model allow list)', config: { params: { values: { model: { allowedValues: ['gpt-4o-mini'] } } } }, override: { model: 'gpt-4o' }, code: 'guardrail_param_value_not_allowed', param: 'model' },
];

beforeAll(async () => {
  const { organisationId } = gateway.bootstrap;
  const workspaceId = await createWorkspace(organisationId, 'guardrails-override-params');
  completionsOnly = await createKey({ organisationId, workspaceId, scopes: ['completions:write'] });
  admin = await createKey({ organisationId, workspaceId, kind: 'admin' });
  for (const { rule, config } of RULES) guardrails[rule] = await createGuardrail(gateway, { name: `only ${rule}`, type: 'request_params_check', config }, admin.raw);
  await setWorkspaceDefaults(gateway, workspaceId, RULES.map(({ rule }) => guardrails[rule].id));
});

async function savedConfig(config: Record<string, unknown>): Promise<string> {
  const saved = await call<{ id: string }>(gateway, 'POST', '/v1/configs', { body: { name: `cfg-${Math.random().toString(36).slice(2)}`, config }, key: admin.raw });
  expect(saved.status, JSON.stringify(saved.body)).toBe(201);
  return saved.body.id;
}

const chat = (headers: Record<string, string>) => send(gateway, '/v1/chat/completions', CHAT, headers, completionsOnly.raw);

describe('override_params are judged by the guardrails', () => {
  it('a clean request and harmless override_params pass every rule', async () => {
    expect((await chat({ 'x-gw-config': JSON.stringify(mockTarget(upstream, { override_params: { temperature: 0.5 } })) })).status).toBe(200);
    expect(upstream.requests.at(-1)!.json).toMatchObject({ model: 'gpt-4o-mini', temperature: 0.5 });
  });

  for (const { rule, override, code, param } of RULES) {
    it(`${rule}: inline config, saved config and one target of a fallback are all refused, nothing forwarded`, async () => {
      const before = upstream.requests.length;
      const guardrail = guardrails[rule];

      const inline = await chat({ 'x-gw-config': JSON.stringify(mockTarget(upstream, { override_params: override })) });
      expectDenied(inline, code, guardrail, `config.override_params.${param}`);

      const saved = await chat({ 'x-gw-config': await savedConfig(mockTarget(upstream, { override_params: override })) });
      expectDenied(saved, code, guardrail, `config.override_params.${param}`);

      // Override params on a strategy node reach every target below it.
      const onStrategy = { strategy: { mode: 'fallback' }, override_params: override, targets: [mockTarget(upstream), mockTarget(upstream)] };
      expectDenied(await chat({ 'x-gw-config': JSON.stringify(onStrategy) }), code, guardrail, `config.targets[0].override_params.${param}`);

      // One target of a fallback carries them: the request is refused, not silently routed around that target.
      const oneTarget = { strategy: { mode: 'fallback' }, targets: [mockTarget(upstream), mockTarget(upstream, { override_params: override })] };
      const refused = await chat({ 'x-gw-config': JSON.stringify(oneTarget) });
      expectDenied(refused, code, guardrail, `config.targets[1].override_params.${param}`);
      expect(refused.body.error!.message).toContain('override_params of config.targets[1]');
      const inSaved = await chat({ 'x-gw-config': await savedConfig({ strategy: { mode: 'loadbalance' }, targets: [mockTarget(upstream), mockTarget(upstream, { override_params: override })] }) });
      expectDenied(inSaved, code, guardrail, `config.targets[1].override_params.${param}`);

      expect(upstream.requests.length).toBe(before);
    });
  }

  it('the `user` gw fills in from x-gw-metadata._user is judged too, and a passing one still reaches the provider', async () => {
    const before = upstream.requests.length;
    const config = JSON.stringify(mockTarget(upstream));
    // The allowedKeys rule of the workspace names no `user`: the key the provider would receive is refused.
    const denied = await chat({ 'x-gw-config': config, 'x-gw-metadata': JSON.stringify({ _user: 'alice' }) });
    expectDenied(denied, 'guardrail_param_not_allowed', guardrails.allowedKeys, 'user');
    expect(upstream.requests.length).toBe(before);

    // In a workspace without those defaults, a transforming guardrail keeps the metadata user on the way out.
    const { organisationId } = gateway.bootstrap;
    const otherWorkspace = await createWorkspace(organisationId, 'guardrails-metadata-user');
    const key = await createKey({ organisationId, workspaceId: otherWorkspace, scopes: ['completions:write'] });
    const own = await createGuardrail(gateway, { name: 'prefix', type: 'add_prefix', config: { prefix: '[u] ' } }, (await createKey({ organisationId, workspaceId: otherWorkspace, kind: 'admin' })).raw);
    const passed = await send(gateway, '/v1/chat/completions', CHAT, { 'x-gw-config': JSON.stringify(mockTarget(upstream, { input_guardrails: [own.id] })), 'x-gw-metadata': JSON.stringify({ _user: 'alice' }) }, key.raw);
    expect(passed.status, JSON.stringify(passed.body)).toBe(200);
    expect(upstream.requests.at(-1)!.json).toMatchObject({ user: 'alice', messages: [{ role: 'user', content: '[u] Hello' }] });
  });

  it('a transforming guardrail changes the request as sent: a prefix reaches messages supplied by override_params', async () => {
    const prefix = await createGuardrail(gateway, { name: 'prefix', type: 'add_prefix', config: { prefix: '[p] ' } }, admin.raw);
    const messages = [{ role: 'user', content: 'from the config' }];
    const config = { strategy: { mode: 'fallback' }, input_guardrails: [prefix.id], targets: [mockTarget(upstream, { override_params: { messages } }), mockTarget(upstream)] };
    const sent = await chat({ 'x-gw-config': JSON.stringify(config) });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    expect(upstream.requests.at(-1)!.json).toMatchObject({ messages: [{ role: 'user', content: '[p] from the config' }] });
  });
});
