import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import { logger } from '../../../shared/observability/logger.js';
import type { AuditLog } from '../../../shared/control-plane/audit-logs/schemas.js';
import { AuditLogRepository, UNKNOWN_ORGANISATION } from '../../../shared/store/audit-log-repository.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { allPages, api, expectError, newKey, newWorkspace, type Page } from './identities-support.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
});
afterAll(async () => {
  await gateway?.close();
});

async function events(query: string, key?: string): Promise<AuditLog[]> {
  return (await allPages<AuditLog>(gateway, `/v1/audit-logs?${query}`, { key }, 100)).items;
}

describe('GET /v1/audit-logs', () => {
  it('files a refused change of another workspace under the caller’s, naming the target (workspaces: failureWorkspace)', async () => {
    const started = new Date().toISOString();
    const target = await newWorkspace(gateway, { name: 'targeted' });
    const outsider = await newKey(gateway, { scopes: ['workspaces:write', 'workspaces:read'] });
    expectError(await api(gateway, 'PATCH', `/v1/workspaces/${target.id}`, { key: outsider.key, body: { name: 'taken over' } }), 404, 'not_found');

    const refused = (await events(`from=${started}&action=workspace.update`)).filter((event) => event.resource_id === target.id);
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ outcome: 'failure', workspace_id: outsider.workspace_id, details: { status: 404, code: 'not_found', target_workspace_id: target.id } });
  });

  it('records every mutation with who, what, when, resource and outcome, never a secret', async () => {
    const started = new Date().toISOString();
    const workspace = await newWorkspace(gateway, { name: 'audited' });
    const key = await newKey(gateway, { workspace_id: workspace.id, scopes: ['api_keys:read'] });
    const rotated = await api<{ key: string }>(gateway, 'POST', `/v1/api-keys/${key.id}/rotate`, { body: {} });
    await api(gateway, 'PATCH', `/v1/api-keys/${key.id}`, { body: { name: 'renamed' } });
    await api(gateway, 'DELETE', `/v1/api-keys/${key.id}`);

    const log = await events(`from=${started}`);
    const mine = log.filter((event) => event.resource_id === key.id || event.resource_id === workspace.id);
    expect(mine.map((event) => event.action)).toEqual(['api_key.revoke', 'api_key.update', 'api_key.rotate', 'api_key.create', 'workspace.create']);
    for (const event of mine) {
      expect(event).toMatchObject({ object: 'audit_log', outcome: 'success', organisation_id: gateway.bootstrap.organisationId, actor: { type: 'api_key' } });
      expect(Date.parse(event.at)).toBeGreaterThanOrEqual(Date.parse(started));
      expect(event.trace_id).toEqual(expect.any(String));
    }
    expect(mine.find((event) => event.action === 'api_key.create')?.workspace_id).toBe(workspace.id);
    const everything = JSON.stringify(log);
    expect(everything).not.toContain(key.key);
    expect(everything).not.toContain(rotated.body.key);
  });

  it('records refused mutations as failures with the error code', async () => {
    await api(gateway, 'POST', '/v1/workspaces', { body: { name: 'dup', slug: 'dup-slug' } });
    expectError(await api(gateway, 'POST', '/v1/workspaces', { body: { name: 'dup', slug: 'dup-slug' } }), 409, 'slug_taken');
    const failures = await events('action=workspace.create&outcome=failure');
    expect(failures[0]).toMatchObject({ outcome: 'failure', details: { status: 409, code: 'slug_taken' } });
  });

  it('records authentication failures: under the organisation for a recognised key, apart for an unknown one', async () => {
    const key = await newKey(gateway, { scopes: ['api_keys:read'] });
    await api(gateway, 'DELETE', `/v1/api-keys/${key.id}`);
    expectError(await api(gateway, 'GET', '/v1/workspaces', { key: key.key }), 401, 'api_key_revoked');
    const failures = await events(`action=authentication.failed&actor_id=${key.id}`);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({
      outcome: 'failure',
      resource_type: 'authentication',
      actor: { type: 'api_key', id: key.id },
      details: { method: 'api_key', code: 'api_key_revoked', http_method: 'GET', path: '/v1/workspaces' },
    });
    expect(JSON.stringify(failures)).not.toContain(key.key);

    // Unknown keys, missing credentials and unconfigured JWTs name no organisation: anyone can send them, so they
    // cost no store write (issue #44) and are counted in gw's own log instead (audit-authentication-failures.test.ts).
    const before = await new AuditLogRepository().list({ organisationId: UNKNOWN_ORGANISATION }, { action: 'authentication.failed' }, 100);
    const warned = vi.spyOn(logger, 'warn');
    try {
      const unknownKey = 'gwk_this_key_was_never_issued_000000';
      expectError(await api(gateway, 'GET', '/v1/workspaces', { key: unknownKey }), 401, 'api_key_invalid');
      expectError(await api(gateway, 'GET', '/v1/workspaces', { key: null }), 401, 'api_key_missing');
      await drainAllBackgroundWork();
      const after = await new AuditLogRepository().list({ organisationId: UNKNOWN_ORGANISATION }, { action: 'authentication.failed' }, 100);
      expect(after.items).toEqual(before.items);
      const codes = warned.mock.calls.filter(([message]) => message === 'authentication failed (anonymous, aggregated)').map(([, fields]) => (fields as unknown as { code: string }).code);
      expect(codes).toEqual(expect.arrayContaining(['api_key_invalid', 'api_key_missing']));
      expect(JSON.stringify(warned.mock.calls)).not.toContain(unknownKey);
    } finally {
      warned.mockRestore();
    }
    expect((await events('action=authentication.failed')).every((event) => event.actor.id === key.id)).toBe(true);
  });

  it('refuses a JWT when none is configured, and counts that in gw’s log without a store write', async () => {
    const warned = vi.spyOn(logger, 'warn');
    try {
      expectError(await api(gateway, 'GET', '/v1/workspaces', { bearer: 'eyJhbGciOiJIUzI1NiJ9.e30.c2lnbmF0dXJl' }), 401, 'jwt_not_configured');
      await drainAllBackgroundWork();
      const aggregated = warned.mock.calls.filter(([message]) => message === 'authentication failed (anonymous, aggregated)').map(([, fields]) => fields as unknown as { code: string; method?: string });
      expect(aggregated.some((fields) => fields.code === 'jwt_not_configured')).toBe(true);
    } finally {
      warned.mockRestore();
    }
  });

  it('filters by action, outcome, resource, actor and time, newest first, page by page', async () => {
    const started = new Date().toISOString();
    const created: string[] = [];
    for (let i = 0; i < 3; i++) created.push((await newKey(gateway, { scopes: ['api_keys:read'], name: `paged ${i}` })).id);
    const creations = await allPages<AuditLog>(gateway, `/v1/audit-logs?action=api_key.create&from=${started}`, {}, 2);
    expect(creations.pages).toBe(2);
    expect(creations.items.map((event) => event.resource_id)).toEqual([...created].reverse());
    expect(creations.items.every((event) => event.action === 'api_key.create')).toBe(true);
    const one = await events(`resource_id=${created[1]}`);
    expect(one.map((event) => event.action)).toEqual(['api_key.create']);
    const byActor = await events(`actor_type=api_key&outcome=success&from=${started}`);
    expect(byActor.length).toBeGreaterThanOrEqual(3);
    const ended = new Date(Date.parse(started) - 1).toISOString();
    expect(await events(`to=${ended}&action=api_key.create&from=${new Date(Date.parse(started) - 60_000).toISOString()}`)).not.toEqual(
      expect.arrayContaining([expect.objectContaining({ resource_id: created[0] })]),
    );
  });

  it('shows a workspace key only the events of its own workspace', async () => {
    const first = await newWorkspace(gateway);
    const second = await newWorkspace(gateway);
    const firstKey = await newKey(gateway, { workspace_id: first.id, scopes: ['audit_logs:read', 'api_keys:write'] });
    const secondKey = await newKey(gateway, { workspace_id: second.id, scopes: ['audit_logs:read'] });
    const made = await newKey(gateway, { name: 'by first', scopes: ['audit_logs:read'] }, firstKey.key);
    const seenByFirst = await events('', firstKey.key);
    expect(seenByFirst.map((event) => event.resource_id)).toContain(made.id);
    expect(seenByFirst.every((event) => event.workspace_id === first.id)).toBe(true);
    const seenBySecond = await events('', secondKey.key);
    expect(seenBySecond.every((event) => event.workspace_id === second.id)).toBe(true);
    expect(seenBySecond.map((event) => event.resource_id)).not.toContain(made.id);
    expectError(await api(gateway, 'GET', `/v1/audit-logs?workspace_id=${first.id}`, { key: secondKey.key }), 404, 'not_found');
    const adminView = await events(`workspace_id=${first.id}`);
    expect(adminView.map((event) => event.resource_id)).toContain(made.id);
  });

  it('answers 400 for bad filters and 403 without audit_logs:read', async () => {
    expectError(await api(gateway, 'GET', '/v1/audit-logs?outcome=maybe'), 400, 'invalid_request', { param: 'outcome' });
    expectError(await api(gateway, 'GET', '/v1/audit-logs?from=yesterday'), 400, 'invalid_request', { param: 'from' });
    expectError(await api(gateway, 'GET', '/v1/audit-logs?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z'), 400, 'invalid_request', { param: 'from' });
    expectError(await api(gateway, 'GET', '/v1/audit-logs?who=me'), 400, 'invalid_request');
    expectError(await api(gateway, 'GET', '/v1/audit-logs?limit=-1'), 400, 'invalid_limit');
    expectError(await api(gateway, 'GET', '/v1/audit-logs?cursor=%7B%7D'), 400, 'invalid_cursor');
    const key = await newKey(gateway, { scopes: ['api_keys:read'] });
    expectError(await api(gateway, 'GET', '/v1/audit-logs', { key: key.key }), 403, 'missing_scope');
    const lister = await newKey(gateway, { scopes: ['audit_logs:list'] });
    expect((await api<Page<AuditLog>>(gateway, 'GET', '/v1/audit-logs', { key: lister.key })).status).toBe(200);
  });
});
