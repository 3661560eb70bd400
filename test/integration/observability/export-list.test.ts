import { beforeAll, describe, expect, it } from 'vitest';
import type { DataExport } from '../../../shared/control-plane/exports/schemas.js';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import { requestRow } from '../../../shared/observability/engine/columns.js';
import { logEngines } from '../../../shared/observability/engine/select.js';
import type { TestGateway } from '../../support/gateway.js';
import { useTestGateway } from '../../support/harness.js';
import { allPages, api, expectError, newKey, newWorkspace, type Page, type Workspace } from '../control-plane/identities-support.js';
import { logRecord } from './log-engine-support.js';

/**
 * GET /v1/exports: the server keeps each workspace's exports (not the browser tab), newest first and paged with a
 * cursor, each with its status, format, filters, row count and link. The class of defect guarded: a list that
 * crosses tenants (another workspace's exports, or a cursor carried over from another workspace's list) or ignores
 * a weaker key's scopes.
 */
let gateway: TestGateway;
let other: Workspace;
let otherKey: string;

useTestGateway(async (started) => {
  gateway = started;
  other = await newWorkspace(gateway);
  otherKey = (await newKey(gateway, { workspace_id: other.id, scopes: ['logs:read'] })).key;
  const { sink } = await logEngines();
  const at = new Date(Date.now() - 60_000).toISOString();
  sink.append('requests', [
    requestRow(logRecord({ id: 'listed-own-1', created_at: at, organisation_id: gateway.bootstrap.organisationId, workspace_id: gateway.bootstrap.workspaceId, model: 'gpt-4o-mini' })),
    requestRow(logRecord({ id: 'listed-other-1', created_at: at, organisation_id: gateway.bootstrap.organisationId, workspace_id: other.id, model: 'gpt-4o-mini' })),
  ]);
  await sink.flush();
});

async function createExport(body: Record<string, unknown>, key?: string): Promise<DataExport> {
  const created = await api<DataExport>(gateway, 'POST', '/v1/exports', { body, key });
  expect(created.status, JSON.stringify(created.body)).toBe(202);
  return created.body;
}

/** Newest first; exports created in the same millisecond come in descending id order (the list's sort key). */
const newestFirst = (exports: DataExport[]) => [...exports].sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id)).map((job) => job.id);

describe('GET /v1/exports', () => {
  let own: DataExport[];
  let theirs: DataExport;

  beforeAll(async () => {
    own = [];
    for (const format of ['jsonl', 'csv', 'parquet']) own.push(await createExport({ format, model: 'gpt-4o-mini' }));
    theirs = await createExport({ format: 'csv' }, otherKey);
    await drainAllBackgroundWork();
  });

  it('lists the workspace’s exports newest first, across pages, each with status, format, filters, row count and link', async () => {
    const { items, pages } = await allPages<DataExport>(gateway, '/v1/exports', {}, 2);
    expect(pages).toBe(2);
    expect(items.map((job) => job.id)).toEqual(newestFirst(own));
    for (const job of items) {
      const created = own.find((made) => made.id === job.id)!;
      expect(job).toMatchObject({ object: 'export', status: 'completed', format: created.format, filters: { model: 'gpt-4o-mini' }, row_count: 1, workspace_id: gateway.bootstrap.workspaceId });
      expect(job.download_url).toContain(`/v1/exports/${job.id}/download`);
    }
    // The link works, and the file is in the row's format.
    const csv = items.find((job) => job.format === 'csv')!;
    const file = await fetch(csv.download_url!, { headers: { 'x-gw-api-key': gateway.apiKey } });
    expect(file.headers.get('content-type')).toBe('text/csv');
    expect(await file.text()).toContain('listed-own-1');
  });

  it('never lists another workspace’s exports: each key sees its own; an admin names the other workspace to see it', async () => {
    const mine = await api<Page<DataExport>>(gateway, 'GET', '/v1/exports?limit=100');
    expect(mine.body.data.map((job) => job.id)).not.toContain(theirs.id);
    const seenByThem = await api<Page<DataExport>>(gateway, 'GET', '/v1/exports', { key: otherKey });
    expect(seenByThem.body.data.map((job) => job.id)).toEqual([theirs.id]);
    expect(seenByThem.body.data[0]).toMatchObject({ status: 'completed', format: 'csv', row_count: 1, workspace_id: other.id });
    const named = await api<Page<DataExport>>(gateway, 'GET', `/v1/exports?workspace_id=${other.id}`);
    expect(named.body.data.map((job) => job.id)).toEqual([theirs.id]);
  });

  it('refuses a workspace key naming another workspace, and a cursor from another workspace’s list', async () => {
    expectError(await api(gateway, 'GET', `/v1/exports?workspace_id=${gateway.bootstrap.workspaceId}`, { key: otherKey }), 404, 'not_found', { param: 'workspace_id' });
    const first = await api<Page<DataExport>>(gateway, 'GET', '/v1/exports?limit=1');
    expect(first.body.next_cursor).not.toBeNull();
    expectError(await api(gateway, 'GET', `/v1/exports?cursor=${first.body.next_cursor}`, { key: otherKey }), 400, 'invalid_cursor', { param: 'cursor' });
  });

  it('respects a weaker key’s scopes: no logs:read, no list', async () => {
    const weak = (await newKey(gateway, { workspace_id: gateway.bootstrap.workspaceId, scopes: ['completions:write'] })).key;
    const refused = await api(gateway, 'GET', '/v1/exports', { key: weak });
    expectError(refused, 403, 'missing_scope');
    expect(JSON.stringify(refused.body)).not.toContain(own[0].id);
  });

  it('answers bad paging input with a 400 naming the parameter', async () => {
    expectError(await api(gateway, 'GET', '/v1/exports?limit=0'), 400, 'invalid_limit', { param: 'limit' });
    expectError(await api(gateway, 'GET', '/v1/exports?cursor=not-a-cursor'), 400, 'invalid_cursor', { param: 'cursor' });
    const unknown = await api(gateway, 'GET', '/v1/exports?status=completed');
    expect(unknown.status).toBe(400);
  });
});
