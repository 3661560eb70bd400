import { beforeAll, describe, expect, it } from 'vitest';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import type { MockUpstream } from '../../support/mock-upstream.js';
import { api, expectError, newKey, newWorkspace, type Workspace } from '../control-plane/identities-support.js';
import { chat, viaMock } from '../observability/observability-support.js';

/**
 * Privilege inside a workspace (issue #43). A member kept from usage (`membersViewAnalytics: false`):
 *  - cannot see usage through a service key it mints (class: a key never mints one that sees more than itself;
 *    visibility follows the key's maker),
 *  - cannot switch the visibility settings on with `workspaces:write` (class: settings of what members see are
 *    organisation or workspace admins' only),
 *  - does not see `budget.current_usage` of its workspace (class: budget usage hidden like other usage).
 */
let gateway: TestGateway;
let upstream: MockUpstream;
useGatewayWithUpstream(openAIMockHandler(), (started) => ({ gateway, upstream } = started));

let workspace: Workspace;
let memberKey: string;
let workspaceAdminKey: string;
let adminUserId: string;
let memberUserId: string;
const traceId = `member-privilege-${Date.now()}`;
const SCOPES = ['logs:read', 'api_keys:write', 'workspaces:read', 'workspaces:write', 'completions:write'];

async function invite(email: string, role: string): Promise<string> {
  const reply = await api<{ id: string }>(gateway, 'POST', '/v1/admin/users/invites', { body: { email, workspaces: [{ workspace_id: workspace.id, role }] } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body.id;
}

beforeAll(async () => {
  workspace = await newWorkspace(gateway, { budget: { credit_limit: 100 } });
  memberUserId = await invite(`member-${traceId}@example.com`, 'member');
  adminUserId = await invite(`admin-${traceId}@example.com`, 'admin');
  memberKey = (await newKey(gateway, { workspace_id: workspace.id, type: 'user', user_id: memberUserId, scopes: SCOPES })).key;
  workspaceAdminKey = (await newKey(gateway, { workspace_id: workspace.id, type: 'user', user_id: adminUserId, scopes: SCOPES })).key;
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gw-api-key': memberKey, 'x-gw-trace-id': traceId, ...viaMock(upstream.url) },
    body: JSON.stringify(chat),
  });
  expect(response.status).toBe(200);
  await response.text();
  await drainAllBackgroundWork();
  const off = await api<{ settings: Record<string, boolean> }>(gateway, 'PATCH', `/v1/workspaces/${workspace.id}`, { body: { settings: { membersViewAnalytics: false } } });
  expect(off.status, JSON.stringify(off.body)).toBe(200);
});

describe('a member kept from usage', () => {
  it('cannot read cost through a service key it minted (visibility follows the key’s maker)', async () => {
    const minted = await newKey(gateway, { name: 'member-made service key', scopes: ['logs:read', 'api_keys:write'] }, memberKey);
    expect(minted.type).toBe('service');
    expectError(await api(gateway, 'GET', '/v1/analytics', { key: minted.key }), 403, 'analytics_not_visible');
    const logs = await api<{ data: Array<{ usage: unknown; cost: unknown }> }>(gateway, 'GET', `/v1/logs?trace_id=${traceId}`, { key: minted.key });
    expect(logs.status).toBe(200);
    expect(logs.body.data).toHaveLength(1);
    expect(logs.body.data[0]).toMatchObject({ usage: null, cost: null });
    // The same through every other read path of a log: one log by id, its trace, the trace list and the spans.
    const logId = (logs.body.data[0] as unknown as { id: string }).id;
    expect((await api(gateway, 'GET', `/v1/logs/${logId}`, { key: minted.key })).body).toMatchObject({ usage: null, cost: null });
    const trace = await api<{ cost: unknown; requests: Array<{ cost: unknown; usage: unknown }> }>(gateway, 'GET', `/v1/traces/${traceId}`, { key: minted.key });
    expect(trace.status, JSON.stringify(trace.body)).toBe(200);
    expect(JSON.stringify(trace.body)).not.toMatch(/"(cost|total_tokens|prompt_tokens)":\s*[0-9]/);
    const traces = await api(gateway, 'GET', `/v1/traces?trace_id=${traceId}`, { key: minted.key });
    expect(traces.status).toBe(200);
    expect(JSON.stringify(traces.body)).not.toMatch(/"(cost|total_tokens|prompt_tokens)":\s*[0-9]/);
    // A CSV export it makes leaves the usage columns out, as the member's own would.
    const exported = await api<{ id: string }>(gateway, 'POST', '/v1/exports', { key: minted.key, body: { trace_id: traceId, format: 'csv' } });
    expect(exported.status, JSON.stringify(exported.body)).toBe(202);
    await drainAllBackgroundWork();
    const job = await api<{ status: string; download_url: string }>(gateway, 'GET', `/v1/exports/${exported.body.id}`, { key: minted.key });
    expect(job.body.status).toBe('completed');
    const csv = await (await fetch(job.body.download_url, { headers: { 'x-gw-api-key': minted.key } })).text();
    const [header, ...rows] = csv.trim().split('\n');
    expect(rows).toHaveLength(1);
    expect(header.split(',')).toContain('trace_id');
    for (const column of ['cost', 'prompt_tokens', 'completion_tokens', 'total_tokens']) expect(header.split(',')).not.toContain(column);
    // And a key that key mints in turn inherits the same maker.
    const second = await newKey(gateway, { name: 'second generation', scopes: ['logs:read'] }, minted.key);
    expectError(await api(gateway, 'GET', '/v1/analytics', { key: second.key }), 403, 'analytics_not_visible');
  });

  it('key minting through rotation: cannot rotate a service key an admin made and read cost with its new secret', async () => {
    const minted = await newKey(gateway, { name: 'member-made rotator', scopes: ['logs:read', 'api_keys:write'] }, memberKey);
    for (const maker of [undefined, workspaceAdminKey]) {
      const adminMade = await newKey(gateway, { workspace_id: workspace.id, name: 'admin-made reader', scopes: ['logs:read'] }, maker);
      for (const rotator of [memberKey, minted.key]) {
        const rotated = await api<{ key?: string }>(gateway, 'POST', `/v1/api-keys/${adminMade.id}/rotate`, { key: rotator, body: {} });
        expectError(rotated, 403, 'key_sees_more_than_caller');
        expect(rotated.body.key).toBeUndefined();
      }
      // The admin's key still works with its old secret: nothing was rotated.
      expect((await api(gateway, 'GET', '/v1/analytics', { key: adminMade.key })).status).toBe(200);
    }
    // A key the member made itself sees what the member sees: rotating it hands out nothing more.
    const own = await newKey(gateway, { name: 'member-made reader', scopes: ['logs:read'] }, memberKey);
    const rotated = await api<{ key: string }>(gateway, 'POST', `/v1/api-keys/${own.id}/rotate`, { key: minted.key, body: {} });
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    expectError(await api(gateway, 'GET', '/v1/analytics', { key: rotated.body.key }), 403, 'analytics_not_visible');
  });

  it('key minting through scopes and kind: a key cannot grant, or add by PATCH, scopes it lacks, nor mint an organisation key', async () => {
    const narrow = await newKey(gateway, { name: 'narrow', scopes: ['api_keys:write', 'completions:write'] }, memberKey);
    expectError(await api(gateway, 'POST', '/v1/api-keys', { key: narrow.key, body: { name: 'wider', scopes: ['logs:read'] } }), 403, 'scope_not_grantable');
    const child = await newKey(gateway, { name: 'child', scopes: ['completions:write'] }, narrow.key);
    expectError(await api(gateway, 'PATCH', `/v1/api-keys/${child.id}`, { key: narrow.key, body: { scopes: ['completions:write', 'logs:read'] } }), 403, 'scope_not_grantable');
    const read = await api<{ scopes: string[] }>(gateway, 'GET', `/v1/api-keys/${child.id}`);
    expect(read.body.scopes).toEqual(['completions:write']);
    const organisationKey = await api(gateway, 'POST', '/v1/api-keys', { key: memberKey, body: { name: 'org', kind: 'admin', scopes: ['logs:read'] } });
    expect(organisationKey.status).toBe(403);
  });

  it('still lets a service key made by a workspace admin or an organisation admin see usage', async () => {
    const byAdmin = await newKey(gateway, { name: 'admin-made', scopes: ['logs:read'] }, workspaceAdminKey);
    expect((await api(gateway, 'GET', '/v1/analytics', { key: byAdmin.key })).status).toBe(200);
    const byOrganisation = await newKey(gateway, { workspace_id: workspace.id, name: 'org-made', scopes: ['logs:read'] });
    expect((await api(gateway, 'GET', '/v1/analytics', { key: byOrganisation.key })).status).toBe(200);
  });

  it('visibility settings: cannot change membersViewAnalytics, managersViewAnalytics or log_request_bodies with workspaces:write; a workspace admin can', async () => {
    for (const settings of [{ membersViewAnalytics: true }, { managersViewAnalytics: false }, { log_request_bodies: false }]) {
      const reply = await api(gateway, 'PATCH', `/v1/workspaces/${workspace.id}`, { key: memberKey, body: { settings } });
      expectError(reply, 403, 'workspace_admin_setting', { param: `settings.${Object.keys(settings)[0]}` });
    }
    const minted = await newKey(gateway, { name: 'member-made writer', scopes: ['workspaces:write'] }, memberKey);
    expectError(await api(gateway, 'PATCH', `/v1/workspaces/${workspace.id}`, { key: minted.key, body: { settings: { membersViewAnalytics: true } } }), 403, 'workspace_admin_setting');
    // PATCH is the one route that writes a workspace's settings: no PUT stands beside it.
    expect((await api(gateway, 'PUT', `/v1/workspaces/${workspace.id}`, { key: memberKey, body: { name: 'put', settings: { membersViewAnalytics: true } } })).status).toBe(405);
    const read = await api<{ settings: Record<string, boolean> }>(gateway, 'GET', `/v1/workspaces/${workspace.id}`);
    expect(read.body.settings).toMatchObject({ membersViewAnalytics: false, log_request_bodies: true });
    // Other fields stay the member's to change; the admin may change the setting.
    expect((await api(gateway, 'PATCH', `/v1/workspaces/${workspace.id}`, { key: memberKey, body: { description: 'renamed by a member' } })).status).toBe(200);
    const byAdmin = await api<{ settings: Record<string, boolean> }>(gateway, 'PATCH', `/v1/workspaces/${workspace.id}`, { key: workspaceAdminKey, body: { settings: { managersViewAnalytics: true } } });
    expect(byAdmin.status, JSON.stringify(byAdmin.body)).toBe(200);
  });

  it('does not see budget.current_usage of its workspace; admins do', async () => {
    const asMember = await api<{ budget: { current_usage: unknown; credit_limit: unknown } }>(gateway, 'GET', `/v1/workspaces/${workspace.id}`, { key: memberKey });
    expect(asMember.status).toBe(200);
    expect(asMember.body.budget).toMatchObject({ current_usage: null, credit_limit: 100 });
    const listed = await api<{ data: Array<{ budget: { current_usage: unknown } }> }>(gateway, 'GET', '/v1/workspaces', { key: memberKey });
    expect(listed.body.data[0].budget.current_usage).toBeNull();
    const patched = await api<{ budget: { current_usage: unknown } }>(gateway, 'PATCH', `/v1/workspaces/${workspace.id}`, { key: memberKey, body: { description: 'again' } });
    expect(patched.body.budget.current_usage).toBeNull();
    for (const key of [workspaceAdminKey, undefined]) {
      const seen = await api<{ budget: { current_usage: unknown } }>(gateway, 'GET', `/v1/workspaces/${workspace.id}`, { key });
      expect(typeof seen.body.budget.current_usage).toBe('number');
    }
  });

  it('key minting on behalf: a manager kept from usage cannot make a user key for someone who sees usage', async () => {
    expect((await api(gateway, 'PATCH', `/v1/workspaces/${workspace.id}`, { body: { settings: { managersViewAnalytics: false } } })).status).toBe(200);
    const managerKey = (await newKey(gateway, { workspace_id: workspace.id, type: 'user', user_id: await invite(`manager-${traceId}@example.com`, 'manager'), scopes: SCOPES })).key;
    const forAdmin = await api<{ key?: string }>(gateway, 'POST', '/v1/api-keys', { key: managerKey, body: { name: 'for the admin', user_id: adminUserId, scopes: ['logs:read'] } });
    expectError(forAdmin, 403, 'key_sees_more_than_caller');
    expect(forAdmin.body.key).toBeUndefined();
    // For a member, who sees no more than the manager, it may.
    const forMember = await newKey(gateway, { name: 'for the member', user_id: memberUserId, scopes: ['logs:read'] }, managerKey);
    expectError(await api(gateway, 'GET', '/v1/analytics', { key: forMember.key }), 403, 'analytics_not_visible');
    expect((await api(gateway, 'PATCH', `/v1/workspaces/${workspace.id}`, { body: { settings: { managersViewAnalytics: true } } })).status).toBe(200);
  });
});
