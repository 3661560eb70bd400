import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import type { MockUpstream } from '../../support/mock-upstream.js';
import { adminKeyId, createPolicy, rateCounter } from '../enforcement/enforcement-support.js';
import { call, createKey, createWorkspace, type CreatedKey } from '../control-plane/policies-support.js';
import { CHAT, createGuardrail, expectDenied, mockTarget, send, setWorkspaceDefaults, toMock, type GuardrailBody } from './guardrails-support.js';

let gateway: TestGateway;
let upstream: MockUpstream;
let noShell: GuardrailBody;
let noTemperature: GuardrailBody;
let safePrefix: GuardrailBody;
let chatOnly: GuardrailBody;
useGatewayWithUpstream(openAIMockHandler(), (started) => ({ gateway, upstream } = started));
// Request logs are written after the response: let them land before the store closes.
afterAll(() => drainAllBackgroundWork());
beforeAll(async () => {
  noShell = await createGuardrail(gateway, { name: 'no shell', type: 'request_params_check', config: { tools: { blockedFunctionNames: ['run_shell'] } } });
  noTemperature = await createGuardrail(gateway, { name: 'no temperature', type: 'request_params_check', config: { params: { blockedKeys: ['temperature'] } } });
  safePrefix = await createGuardrail(gateway, { name: 'safety prefix', type: 'add_prefix', config: { prefix: '[safe] ' } });
  chatOnly = await createGuardrail(gateway, { name: 'chat only', type: 'allowed_request_types', config: { mode: 'allow', endpoints: ['chat/completions'] } });
});

const shellTool = { type: 'function', function: { name: 'run_shell', parameters: { type: 'object', properties: {} } } };
const guarded = (ids: string[], extra: Record<string, unknown> = {}) => toMock(upstream, { ...mockTarget(upstream), input_guardrails: ids, ...extra });
const lastUpstreamBody = () => upstream.requests.at(-1)!.json as Record<string, unknown>;

describe('guardrails on gateway requests', () => {
  it('request_params_check denies with 400 guardrail_violation and forwards nothing; a passing request goes through', async () => {
    const before = upstream.requests.length;
    const denied = await send(gateway, '/v1/chat/completions', { ...CHAT, tools: [shellTool] }, guarded([noShell.id]));
    expectDenied(denied, 'guardrail_function_name_blocked', noShell, 'tools[0]');
    expect(upstream.requests.length).toBe(before);
    const passed = await send(gateway, '/v1/chat/completions', CHAT, guarded([noShell.id]));
    expect(passed.status).toBe(200);
    expect(upstream.requests.length).toBe(before + 1);
  });

  it('add_prefix: the provider receives the prefixed chat message and completions prompt', async () => {
    const conversation = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'one' }, { role: 'assistant', content: 'ok' }, { role: 'user', content: [{ type: 'text', text: 'two' }] }] };
    expect((await send(gateway, '/v1/chat/completions', conversation, guarded([safePrefix.id]))).status).toBe(200);
    expect(lastUpstreamBody().messages).toEqual([{ role: 'user', content: 'one' }, { role: 'assistant', content: 'ok' }, { role: 'user', content: [{ type: 'text', text: '[safe] two' }] }]);
    expect((await send(gateway, '/v1/completions', { model: 'gpt-3.5-turbo-instruct', prompt: 'Say hi' }, guarded([safePrefix.id]))).status).toBe(200);
    expect(upstream.requests.at(-1)!.path).toMatch(/\/completions$/);
    expect(lastUpstreamBody().prompt).toBe('[safe] Say hi');
    // Streamed requests are prefixed the same way.
    const streamed = await send(gateway, '/v1/chat/completions', { ...CHAT, stream: true }, guarded([safePrefix.id]));
    expect(streamed.status).toBe(200);
    expect(lastUpstreamBody().messages).toEqual([{ role: 'user', content: '[safe] Hello' }]);
  });

  it('allowed_request_types: an embeddings request is denied where only chat is allowed', async () => {
    const denied = await send(gateway, '/v1/embeddings', { model: 'text-embedding-3-small', input: 'x' }, guarded([chatOnly.id]));
    expectDenied(denied, 'guardrail_request_type_not_allowed', chatOnly, null);
    expect((await send(gateway, '/v1/chat/completions', CHAT, guarded([chatOnly.id]))).status).toBe(200);
  });

  it('runs several guardrails in order: transforms first, then the first denial wins', async () => {
    const both = guarded([safePrefix.id, chatOnly.id, noTemperature.id]);
    expect((await send(gateway, '/v1/chat/completions', CHAT, both)).status).toBe(200);
    expect(lastUpstreamBody().messages).toEqual([{ role: 'user', content: '[safe] Hello' }]);
    expectDenied(await send(gateway, '/v1/chat/completions', { ...CHAT, temperature: 0.5 }, both), 'guardrail_param_blocked', noTemperature, 'temperature');
    expectDenied(await send(gateway, '/v1/embeddings', { model: 'e', input: 'x' }, both), 'guardrail_request_type_not_allowed', chatOnly);
  });

  it('inherits down nested targets: a parent guards every target below it, a child adds its own', async () => {
    // config (no temperature) → fallback [ strict: + no shell, + prefix ; relaxed ]
    const config = {
      input_guardrails: [noTemperature.id],
      strategy: { mode: 'fallback' },
      targets: [
        { strategy: { mode: 'single' }, input_guardrails: [noShell.id], targets: [{ ...mockTarget(upstream), name: 'strict', input_guardrails: [safePrefix.id] }] },
        { ...mockTarget(upstream), name: 'relaxed' },
      ],
    };
    const headers = toMock(upstream, config);
    const plain = await fetch(`${gateway.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-gw-api-key': gateway.apiKey, ...headers }, body: JSON.stringify(CHAT) });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('x-gw-last-used-option-index')).toBe('config.targets[0].targets[0]');
    await plain.text();
    // Two levels down the strict leaf still runs its ancestors' guardrails and its own prefix.
    expect(lastUpstreamBody().messages).toEqual([{ role: 'user', content: '[safe] Hello' }]);

    // The shell tool is refused only on the strict branch: the fallback serves it from the relaxed target, unprefixed.
    const withShell = await fetch(`${gateway.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-gw-api-key': gateway.apiKey, ...headers }, body: JSON.stringify({ ...CHAT, tools: [shellTool] }) });
    expect(withShell.status).toBe(200);
    expect(withShell.headers.get('x-gw-last-used-option-index')).toBe('config.targets[1]');
    await withShell.text();
    expect(lastUpstreamBody().messages).toEqual([{ role: 'user', content: 'Hello' }]);

    // The root's guardrail guards every target: nothing may take the request.
    const before = upstream.requests.length;
    expectDenied(await send(gateway, '/v1/chat/completions', { ...CHAT, temperature: 1 }, headers), 'guardrail_param_blocked', noTemperature);
    expect(upstream.requests.length).toBe(before);
  });

  it('saved configs carry their guardrails, and an unknown id sent inline is AB0118', async () => {
    const saved = await call<{ id: string }>(gateway, 'POST', '/v1/configs', { body: { name: 'guarded', config: { ...mockTarget(upstream), input_guardrails: [noShell.id] } } });
    expect(saved.status, JSON.stringify(saved.body)).toBe(201);
    expectDenied(await send(gateway, '/v1/chat/completions', { ...CHAT, tools: [shellTool] }, { 'x-gw-config': saved.body.id }), 'guardrail_function_name_blocked', noShell);
    const unknown = await send(gateway, '/v1/chat/completions', CHAT, guarded(['grd-nosuchguardrail']));
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'AB0118', param: 'config.input_guardrails' });
    // A pinned version runs exactly that version.
    const pinned = await send(gateway, '/v1/chat/completions', { ...CHAT, tools: [shellTool] }, guarded([`${noShell.id}@1`]));
    expectDenied(pinned, 'guardrail_function_name_blocked', noShell);
  });
});

describe('workspace default_guardrails', () => {
  let workspaceId: string;
  let workspaceKey: CreatedKey;
  let adminOfWorkspace: CreatedKey;
  let prefix: GuardrailBody;
  let noStream: GuardrailBody;

  beforeAll(async () => {
    const { organisationId } = gateway.bootstrap;
    workspaceId = await createWorkspace(organisationId, 'guardrail-defaults');
    workspaceKey = await createKey({ organisationId, workspaceId, scopes: ['completions:write'] });
    adminOfWorkspace = await createKey({ organisationId, workspaceId, kind: 'admin' });
    prefix = await createGuardrail(gateway, { name: 'house prefix', type: 'add_prefix', config: { prefix: '[house] ', position: 'first_user' } }, adminOfWorkspace.raw);
    noStream = await createGuardrail(gateway, { name: 'no streaming', type: 'request_params_check', config: { params: { values: { stream: { blockedValues: [true] } } } } }, adminOfWorkspace.raw);
    await setWorkspaceDefaults(gateway, workspaceId, [prefix.id, noStream.id]);
  });

  it('apply to every request of the workspace, whatever the key, before a config\'s own', async () => {
    for (const key of [workspaceKey.raw, adminOfWorkspace.raw]) {
      const sent = await send(gateway, '/v1/chat/completions', CHAT, toMock(upstream), key);
      expect(sent.status).toBe(200);
      expect(lastUpstreamBody().messages).toEqual([{ role: 'user', content: '[house] Hello' }]);
      expectDenied(await send(gateway, '/v1/chat/completions', { ...CHAT, stream: true }, toMock(upstream), key), 'guardrail_param_value_blocked', noStream, 'stream');
    }
    // Under a config with a prefix of its own: the default runs first, the config's second.
    const own = await createGuardrail(gateway, { name: 'config prefix', type: 'add_prefix', config: { prefix: '[cfg] ' } }, adminOfWorkspace.raw);
    const sent = await send(gateway, '/v1/chat/completions', CHAT, toMock(upstream, { ...mockTarget(upstream), input_guardrails: [own.id] }), workspaceKey.raw);
    expect(sent.status).toBe(200);
    expect(lastUpstreamBody().messages).toEqual([{ role: 'user', content: '[cfg] [house] Hello' }]);
  });

  it('do not touch another workspace', async () => {
    expect((await send(gateway, '/v1/chat/completions', { ...CHAT, stream: true }, toMock(upstream))).status).toBe(200);
    expect(lastUpstreamBody().messages).toEqual([{ role: 'user', content: 'Hello' }]);
  });

  it('take effect at once when changed, and a guardrail in the defaults cannot be deleted', async () => {
    const refused = await call(gateway, 'DELETE', `/v1/guardrails/${prefix.id}`, { key: adminOfWorkspace.raw });
    expect(refused.status).toBe(409);
    await setWorkspaceDefaults(gateway, workspaceId, []);
    expect((await send(gateway, '/v1/chat/completions', CHAT, toMock(upstream), workspaceKey.raw)).status).toBe(200);
    expect(lastUpstreamBody().messages).toEqual([{ role: 'user', content: 'Hello' }]);
    await setWorkspaceDefaults(gateway, workspaceId, [prefix.id]);
  });
});

describe('a denied request consumes nothing', () => {
  it('leaves a request-limit policy untouched: the full budget remains for allowed requests', async () => {
    const model = 'guarded-budget-model';
    const policy = await createPolicy(gateway, 'rate-limits', { conditions: [{ key: 'model', value: model }], group_by: [{ key: 'api_key' }], type: 'requests', unit: 'rpd', value: 3, name: 'three a day' });
    const headers = guarded([noTemperature.id]);
    const denied = await Promise.all(Array.from({ length: 200 }, () => send(gateway, '/v1/chat/completions', { ...CHAT, model, temperature: 1 }, headers)));
    expect(denied.every((answer) => answer.status === 400 && answer.body.error?.type === 'guardrail_violation')).toBe(true);
    const allowed = [];
    for (let index = 0; index < 3; index++) allowed.push((await send(gateway, '/v1/chat/completions', { ...CHAT, model }, headers)).status);
    expect(allowed).toEqual([200, 200, 200]);
    expect((await send(gateway, '/v1/chat/completions', { ...CHAT, model }, headers)).status).toBe(429);
    expect(await rateCounter(policy, { api_key: await adminKeyId(gateway), model })).toBe(3);
  });
});
