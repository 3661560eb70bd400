import { describe, expect, it } from 'vitest';
import type { AuditLog } from '../../../shared/control-plane/audit-logs/schemas.js';
import type { IntegrationView } from '../../../shared/control-plane/integrations/schemas.js';
import type { ProviderView } from '../../../shared/control-plane/providers/schemas.js';
import type { TestGateway } from '../../support/gateway.js';
import { useTestGateway } from '../../support/harness.js';
import { api, expectError, newKey, newWorkspace, type Page, type Reply, type Workspace } from './identities-support.js';

/**
 * What the providers' routes answer and audit, pinned: they come from a resource definition
 * (shared/control-plane/providers/resource.ts), and an admin key acting on another workspace with `?workspace_id=`
 * must see its calls answered and filed under that workspace, exactly as the hand-written routes did.
 */

let gateway: TestGateway;
let target: Workspace;
let integration: IntegrationView;
let homeWriter: string;

useTestGateway(async (started) => {
  gateway = started;
  target = await newWorkspace(gateway);
  const shared = await api<IntegrationView>(gateway, 'POST', '/v1/integrations', {
    body: { name: `audit ${target.slug}`, provider: 'openai', shared_with_workspaces: [target.id, gateway.bootstrap.workspaceId] },
  });
  expect(shared.status, JSON.stringify(shared.body)).toBe(201);
  integration = shared.body;
  homeWriter = (await newKey(gateway, { scopes: ['providers:read', 'providers:write'] })).key;
});

const eventsOf = async (resourceId: string): Promise<AuditLog[]> => {
  const reply = await api<Page<AuditLog>>(gateway, 'GET', `/v1/audit-logs?resource_type=provider&resource_id=${resourceId}`);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return [...reply.body.data].sort((a, b) => a.at.localeCompare(b.at) || a.action.localeCompare(b.action));
};

describe('providers: answers and audit events', () => {
  it('an admin key acting on another workspace: answers, scoping and audit events filed under that workspace', async () => {
    const query = `?workspace_id=${target.slug}`;
    const created: Reply<ProviderView> = await api(gateway, 'POST', `/v1/providers${query}`, { body: { integration_id: integration.id, slug: `p-${target.slug}` } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ object: 'provider', workspace_id: target.id, integration_id: integration.id, provider: 'openai' });
    const id = created.body.id;

    // The caller's own workspace does not hold it; the named one does (by id or slug).
    expectError(await api(gateway, 'GET', `/v1/providers/${id}`), 404, 'not_found');
    expectError(await api(gateway, 'GET', `/v1/providers/${id}`, { key: homeWriter }), 404, 'not_found');
    expect((await api<ProviderView>(gateway, 'GET', `/v1/providers/${created.body.slug}${query}`)).body.id).toBe(id);
    expect((await api<Page<ProviderView>>(gateway, 'GET', `/v1/providers${query}`)).body.data.map((item) => item.id)).toEqual([id]);

    const updated = await api<ProviderView>(gateway, 'PATCH', `/v1/providers/${id}${query}`, { body: { name: 'renamed', enabled: false } });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body).toMatchObject({ id, name: 'renamed', enabled: false });
    expectError(await api(gateway, 'PATCH', `/v1/providers/${id}${query}`, { body: {} }), 400, 'invalid_request');

    const deleted = await api(gateway, 'DELETE', `/v1/providers/${id}${query}`);
    expect(deleted.status).toBe(200);
    expect(JSON.stringify(deleted.body)).toBe(JSON.stringify({ object: 'provider', id, deleted: true }));
    expectError(await api(gateway, 'DELETE', `/v1/providers/${id}${query}`), 404, 'not_found');

    const events = await eventsOf(id);
    const summary = events.map(({ action, outcome, workspace_id, details }) => ({ action, outcome, workspace_id, details }));
    expect(summary).toEqual(
      expect.arrayContaining([
        { action: 'provider.create', outcome: 'success', workspace_id: target.id, details: { slug: created.body.slug, integration_id: integration.id } },
        { action: 'provider.update', outcome: 'success', workspace_id: target.id, details: { changed: ['enabled', 'name'] } },
        { action: 'provider.delete', outcome: 'success', workspace_id: target.id, details: { slug: created.body.slug } },
      ]),
    );
    // The refused update and the second delete are audited as failures of the same provider.
    expect(events.filter((event) => event.outcome === 'failure').map((event) => event.action).sort()).toEqual(['provider.delete', 'provider.update']);
    expect(events).toHaveLength(5);
  });

  it('a workspace key: its own workspace only, write scope checked before anything else', async () => {
    const reader = (await newKey(gateway, { scopes: ['providers:read'] })).key;
    expectError(await api(gateway, 'POST', '/v1/providers', { key: reader, body: { integration_id: integration.id } }), 403, 'missing_scope');
    // A workspace key naming another workspace gets a 404, never the other workspace's providers.
    expectError(await api(gateway, 'GET', `/v1/providers?workspace_id=${target.id}`, { key: homeWriter }), 404, 'not_found');
    const own = await api<ProviderView>(gateway, 'POST', '/v1/providers', { key: homeWriter, body: { integration_id: integration.id, slug: `own-${target.slug}` } });
    expect(own.status, JSON.stringify(own.body)).toBe(201);
    expect(own.body).toMatchObject({ workspace_id: gateway.bootstrap.workspaceId, set_by: 'workspace' });
    const [created] = await eventsOf(own.body.id);
    expect(created).toMatchObject({ action: 'provider.create', outcome: 'success', workspace_id: gateway.bootstrap.workspaceId });
  });
});
