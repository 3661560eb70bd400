import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import type { MockUpstream } from '../../support/mock-upstream.js';
import { api, expectError } from '../control-plane/identities-support.js';
import { call, createKey, createWorkspace, type CreatedKey } from '../control-plane/policies-support.js';
import { CHAT, createGuardrail, mockTarget, send, toMock, type GuardrailBody } from './guardrails-support.js';

const JWT_SECRET = 'a-shared-secret-of-at-least-32-characters!';
let gateway: TestGateway;
let upstream: MockUpstream;
let otherWorkspace: string;
let otherKey: CreatedKey;
let readOnlyKey: CreatedKey;
let configsOnlyKey: CreatedKey;
useGatewayWithUpstream(openAIMockHandler(), (started) => ({ gateway, upstream } = started), { GW_JWT_SECRET: JWT_SECRET });
// Request logs are written after the response: let them land before the store closes.
afterAll(() => drainAllBackgroundWork());
beforeAll(async () => {
  const { organisationId, workspaceId } = gateway.bootstrap;
  otherWorkspace = await createWorkspace(organisationId, 'guardrails-other');
  otherKey = await createKey({ organisationId, workspaceId: otherWorkspace, scopes: ['guardrails:read', 'guardrails:write', 'configs:write', 'completions:write'] });
  readOnlyKey = await createKey({ organisationId, workspaceId, scopes: ['guardrails:read'] });
  configsOnlyKey = await createKey({ organisationId, workspaceId, scopes: ['configs:read', 'configs:write', 'workspaces:write', 'workspaces:read'] });
});

const blockShell = { name: 'no shell', type: 'request_params_check', config: { tools: { blockedFunctionNames: ['run_shell'] } } };

function jwt(): Promise<string> {
  return new SignJWT({ sub: 'dashboard-user', organisation_id: gateway.bootstrap.organisationId, workspace_id: gateway.bootstrap.workspaceId, scope: 'read list' })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode(JWT_SECRET));
}

describe('/v1/guardrails', () => {
  it('creates each type, reads, lists, versions on update and deletes', async () => {
    const created = await createGuardrail(gateway, blockShell);
    expect(created).toMatchObject({ object: 'guardrail', name: 'no shell', type: 'request_params_check', version: 1, workspace_id: gateway.bootstrap.workspaceId, config: blockShell.config });
    expect(created.id).toMatch(/^grd-/);
    await createGuardrail(gateway, { name: 'prefix', type: 'add_prefix', config: { prefix: 'Be safe. ', position: 'first_user' } });
    await createGuardrail(gateway, { name: 'chat only', type: 'allowed_request_types', config: { mode: 'allow', endpoints: ['chat/completions'] } });

    const updated = await call<GuardrailBody>(gateway, 'PUT', `/v1/guardrails/${created.id}`, { body: { name: 'no shell v2', config: { tools: { blockedFunctionNames: ['run_shell', 'rm'] } } } });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body).toMatchObject({ version: 2, name: 'no shell v2', type: 'request_params_check' });
    const first = await call<GuardrailBody>(gateway, 'GET', `/v1/guardrails/${created.id}?version=1`);
    expect(first.body).toMatchObject({ version: 1, name: 'no shell', config: blockShell.config });
    const versions = await call<{ data: Array<{ version: number; object: string }> }>(gateway, 'GET', `/v1/guardrails/${created.id}/versions`);
    expect(versions.body.data.map((version) => [version.object, version.version])).toEqual([
      ['guardrail_version', 2],
      ['guardrail_version', 1],
    ]);
    const list = await call<{ data: GuardrailBody[] }>(gateway, 'GET', '/v1/guardrails?limit=100');
    expect(list.body.data.map((item) => item.id)).toContain(created.id);

    expect((await call(gateway, 'DELETE', `/v1/guardrails/${created.id}`)).body).toEqual({ id: created.id, object: 'guardrail', deleted: true });
    expectError(await api(gateway, 'GET', `/v1/guardrails/${created.id}`), 404, 'not_found');
  });

  it('refuses invalid bodies with 400 naming the path', async () => {
    expectError(await api(gateway, 'POST', '/v1/guardrails', { body: { name: 'x', type: 'regex_match', config: {} } }), 400, 'invalid_request', { param: 'type' });
    expectError(await api(gateway, 'POST', '/v1/guardrails', { body: { name: 'x', type: 'add_prefix', config: {} } }), 400, 'invalid_request', { param: 'config.prefix' });
    expectError(await api(gateway, 'POST', '/v1/guardrails', { body: { name: 'x', type: 'request_params_check', config: { tools: { blockedType: ['function'] } } } }), 400, 'invalid_request', {
      param: 'config.tools',
    });
    expectError(await api(gateway, 'POST', '/v1/guardrails', { body: { name: 'x', type: 'allowed_request_types', config: { mode: 'allow', endpoints: ['images'] } } }), 400, 'invalid_request', {
      param: 'config.endpoints[0]',
    });
    const created = await createGuardrail(gateway, blockShell);
    // A new version is checked against the type: an add_prefix config is not a request_params_check one.
    expectError(await api(gateway, 'PUT', `/v1/guardrails/${created.id}`, { body: { config: { prefix: 'x' } } }), 400, 'invalid_request', { param: 'config' });
    expectError(await api(gateway, 'GET', `/v1/guardrails/${created.id}?version=zero`), 400, 'invalid_version');
  });

  it('needs guardrails scopes: a read-only key reads but cannot write, a key without them gets 403', async () => {
    const created = await createGuardrail(gateway, blockShell);
    expect((await call(gateway, 'GET', `/v1/guardrails/${created.id}`, { key: readOnlyKey.raw })).status).toBe(200);
    expectError(await api(gateway, 'POST', '/v1/guardrails', { key: readOnlyKey.raw, body: blockShell }), 403, 'missing_scope');
    expectError(await api(gateway, 'DELETE', `/v1/guardrails/${created.id}`, { key: readOnlyKey.raw }), 403, 'missing_scope');
    expectError(await api(gateway, 'GET', '/v1/guardrails', { key: configsOnlyKey.raw }), 403, 'missing_scope');
    // The workspace defaults are a guardrail setting too: workspaces:write alone cannot change them.
    expectError(await api(gateway, 'PATCH', `/v1/workspaces/${gateway.bootstrap.workspaceId}`, { key: configsOnlyKey.raw, body: { default_guardrails: [] } }), 403, 'missing_scope');
  });

  it('is confined to its workspace: another workspace gets 404 and cannot name it in a config', async () => {
    const created = await createGuardrail(gateway, blockShell);
    expectError(await api(gateway, 'GET', `/v1/guardrails/${created.id}`, { key: otherKey.raw }), 404, 'not_found');
    expectError(await api(gateway, 'PUT', `/v1/guardrails/${created.id}`, { key: otherKey.raw, body: { config: {} } }), 404, 'not_found');
    expectError(await api(gateway, 'DELETE', `/v1/guardrails/${created.id}`, { key: otherKey.raw }), 404, 'not_found');
    const theirs = await call<{ data: GuardrailBody[] }>(gateway, 'GET', '/v1/guardrails?limit=100', { key: otherKey.raw });
    expect(theirs.body.data).toEqual([]);
    // Saving a config that names it, and sending it inline: an unknown guardrail (AB0118).
    const config = { ...mockTarget(upstream), input_guardrails: [created.id] };
    expectError(await api(gateway, 'POST', '/v1/configs', { key: otherKey.raw, body: { name: 'borrowed', config } }), 400, 'AB0118', { param: 'config.input_guardrails[0]' });
    const inline = await send(gateway, '/v1/chat/completions', CHAT, toMock(upstream, config), otherKey.raw);
    expect(inline.status).toBe(400);
    expect(inline.body.error).toMatchObject({ code: 'AB0118', param: 'config.input_guardrails' });
    // The admin may reach it through ?workspace_id= like every workspace resource.
    expect((await call(gateway, 'GET', `/v1/guardrails?workspace_id=${otherWorkspace}`)).status).toBe(200);
  });

  it('validates references when a config or the workspace defaults are saved, and refuses to delete one in use', async () => {
    const created = await createGuardrail(gateway, blockShell);
    expectError(await api(gateway, 'POST', '/v1/configs', { body: { name: 'bad', config: { ...mockTarget(upstream), targets: undefined, input_guardrails: ['grd-doesnotexist'] } } }), 400, 'AB0118');
    expectError(await api(gateway, 'POST', '/v1/configs', { body: { name: 'bad', config: { ...mockTarget(upstream), input_guardrails: ['not-an-id'] } } }), 400, 'AB0105');
    const saved = await call<{ id: string }>(gateway, 'POST', '/v1/configs', { body: { name: 'guarded', config: { strategy: { mode: 'fallback' }, targets: [{ ...mockTarget(upstream), input_guardrails: [created.id] }] } } });
    expect(saved.status, JSON.stringify(saved.body)).toBe(201);
    expectError(await api(gateway, 'DELETE', `/v1/guardrails/${created.id}`), 409, 'guardrail_in_use', { message: saved.body.id });

    expectError(await api(gateway, 'PATCH', `/v1/workspaces/${gateway.bootstrap.workspaceId}`, { body: { default_guardrails: ['grd-missing'] } }), 400, 'AB0118', { param: 'default_guardrails[0]' });
    expect((await call(gateway, 'DELETE', `/v1/configs/${saved.body.id}`)).status).toBe(200);
    expect((await call(gateway, 'DELETE', `/v1/guardrails/${created.id}`)).status).toBe(200);
  });

  it('shows guardrails and the workspace default_guardrails to a read-only JWT, which cannot change them', async () => {
    const created = await createGuardrail(gateway, { name: 'dashboard default', type: 'add_prefix', config: { prefix: '[dash] ' } });
    const workspaceId = gateway.bootstrap.workspaceId;
    expect((await call(gateway, 'PATCH', `/v1/workspaces/${workspaceId}`, { body: { default_guardrails: [created.id] } })).status).toBe(200);
    try {
      const token = await jwt();
      const workspace = await api<{ default_guardrails: string[] }>(gateway, 'GET', `/v1/workspaces/${workspaceId}`, { bearer: token });
      expect(workspace.status).toBe(200);
      expect(workspace.body.default_guardrails).toEqual([created.id]);
      const listed = await api<{ data: GuardrailBody[] }>(gateway, 'GET', '/v1/guardrails?limit=100', { bearer: token });
      expect(listed.body.data.map((item) => item.id)).toContain(created.id);
      expectError(await api(gateway, 'POST', '/v1/guardrails', { bearer: token, body: blockShell }), 403, 'jwt_read_only');
      // The default applies to the workspace's gateway requests whatever key sends them.
      const sent = await send(gateway, '/v1/chat/completions', CHAT, toMock(upstream));
      expect(sent.status).toBe(200);
      expect((upstream.requests.at(-1)!.json as typeof CHAT).messages[0].content).toBe('[dash] Hello');
    } finally {
      await call(gateway, 'PATCH', `/v1/workspaces/${workspaceId}`, { body: { default_guardrails: [] } });
    }
  });

  it('records every change in the audit log', async () => {
    const created = await createGuardrail(gateway, { name: 'audited', type: 'add_prefix', config: { prefix: 'a' } });
    await call(gateway, 'PUT', `/v1/guardrails/${created.id}`, { body: { config: { prefix: 'b' } } });
    await call(gateway, 'DELETE', `/v1/guardrails/${created.id}`);
    const events = await call<{ data: Array<{ action: string; resource_id?: string; resource_type: string; details?: Record<string, unknown> }> }>(gateway, 'GET', '/v1/audit-logs?limit=100');
    const ours = events.body.data.filter((event) => event.resource_id === created.id);
    expect(ours.map((event) => event.action).sort()).toEqual(['guardrail.create', 'guardrail.delete', 'guardrail.update']);
    const detailsOf = (action: string) => ours.find((event) => event.action === action)?.details;
    expect(ours.every((event) => event.resource_type === 'guardrail')).toBe(true);
    expect(detailsOf('guardrail.create')).toEqual({ name: 'audited', type: 'add_prefix', version: 1 });
    expect(detailsOf('guardrail.update')).toEqual({ version: 2, type: 'add_prefix' });
  });
});
