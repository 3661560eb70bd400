import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RequestLog } from '../../../shared/control-plane/logs/schemas.js';
import { requestRow } from '../../../shared/observability/engine/columns.js';
import { logEngines } from '../../../shared/observability/engine/select.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import { allPages, api, expectError, newKey, newWorkspace, type Page } from '../control-plane/identities-support.js';
import { logRecord } from './log-engine-support.js';

// GET /v1/logs `sort` and `order` over HTTP: "the most expensive request of the last hour" is the first row of one
// call, however many newer ones there are; paging a sorted list with the API's own cursor returns every row once;
// the cursor belongs to its sort; and a caller who may not see cost may not sort by it either.

let gateway: TestGateway;
useGatewayWithUpstream(openAIMockHandler(), (started) => ({ gateway } = started));

const run = randomUUID().slice(0, 8);
const COUNT = 240;
/** Cost of the i-th request (oldest first): the 30th newest is the costliest, the 210th newest the second. */
const costOf = (index: number) => (index === COUNT - 30 ? 9.5 : index === COUNT - 210 ? 7.25 : index % 7 === 0 ? null : Number(((index % 13) * 0.001).toFixed(6)));

beforeAll(async () => {
  const now = Date.now();
  const records = Array.from({ length: COUNT }, (_, index) => {
    const id = `sort-${run}-${String(index).padStart(3, '0')}`;
    return logRecord({
      id,
      // One request a second, the newest a minute ago: all inside the last hour.
      created_at: new Date(now - 60_000 - (COUNT - 1 - index) * 1_000).toISOString(),
      organisation_id: gateway.bootstrap.organisationId,
      workspace_id: gateway.bootstrap.workspaceId,
      cost: costOf(index),
      latency_ms: 50 + (index % 17) * 10,
      metadata: { run },
    });
  });
  const { sink } = await logEngines();
  sink.append('requests', records.map(requestRow));
  await sink.flush();
});

const ids = (rows: RequestLog[]) => rows.map((row) => row.id);
const hourAgo = () => encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString());

describe('GET /v1/logs sort and order', () => {
  it('answers the costliest request of the last hour first, wherever it is in time', async () => {
    const reply = await api<Page<RequestLog>>(gateway, 'GET', `/v1/logs?metadata.run=${run}&from=${hourAgo()}&sort=cost&limit=2`);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.data.map((row) => row.cost)).toEqual([9.5, 7.25]);
    expect(reply.body.has_more).toBe(true);
  });

  it('pages a sorted list with next_cursor: every row once, in order, unpriced ones last', async () => {
    const { items } = await allPages<RequestLog>(gateway, `/v1/logs?metadata.run=${run}&sort=cost&order=desc`, {}, 37);
    expect(items).toHaveLength(COUNT);
    expect(new Set(ids(items)).size).toBe(COUNT);
    const costs = items.map((row) => row.cost);
    const priced = costs.filter((cost): cost is number => cost !== null);
    expect(priced).toEqual([...priced].sort((a, b) => b - a));
    expect(costs.slice(priced.length).every((cost) => cost === null)).toBe(true);
    const ascending = await allPages<RequestLog>(gateway, `/v1/logs?metadata.run=${run}&sort=latency_ms&order=asc`, {}, 100);
    const latencies = ascending.items.map((row) => row.latency_ms);
    expect(latencies).toEqual([...latencies].sort((a, b) => a - b));
    expect(ascending.items).toHaveLength(COUNT);
  });

  it('filters by status class: every seeded request is a 2xx, none a 5xx', async () => {
    expect((await allPages<RequestLog>(gateway, `/v1/logs?metadata.run=${run}&status=2xx`, {}, 100)).items).toHaveLength(COUNT);
    expect((await api<Page<RequestLog>>(gateway, 'GET', `/v1/logs?metadata.run=${run}&status=5xx`)).body.data).toEqual([]);
  });

  it('pages newest first to the 210th newest request', async () => {
    const { items } = await allPages<RequestLog>(gateway, `/v1/logs?metadata.run=${run}`, {}, 50);
    expect(items[209].id).toBe(`sort-${run}-${String(COUNT - 210).padStart(3, '0')}`);
    expect(items[209].cost).toBe(7.25);
  });

  it('refuses an unknown sort or order, and a cursor made for another sort, with the error shape', async () => {
    expectError(await api(gateway, 'GET', '/v1/logs?sort=colour'), 400, 'invalid_request', { param: 'sort' });
    expectError(await api(gateway, 'GET', '/v1/logs?status=9xx'), 400, 'invalid_request', { param: 'status' });
    expectError(await api(gateway, 'GET', '/v1/logs?sort=cost&order=up'), 400, 'invalid_request', { param: 'order' });
    const byCost = await api<Page<RequestLog>>(gateway, 'GET', `/v1/logs?metadata.run=${run}&sort=cost&limit=1`);
    expectError(await api(gateway, 'GET', `/v1/logs?metadata.run=${run}&limit=1&cursor=${byCost.body.next_cursor}`), 400, 'invalid_cursor');
    expectError(await api(gateway, 'GET', `/v1/logs?metadata.run=${run}&sort=cost&order=asc&limit=1&cursor=${byCost.body.next_cursor}`), 400, 'invalid_cursor');
    const byTime = await api<Page<RequestLog>>(gateway, 'GET', `/v1/logs?metadata.run=${run}&limit=1`);
    expectError(await api(gateway, 'GET', `/v1/logs?metadata.run=${run}&sort=cost&limit=1&cursor=${byTime.body.next_cursor}`), 400, 'invalid_cursor');
  });

  it('lets only a caller who may see cost sort by cost or tokens (a member of a workspace that hides usage: 403)', async () => {
    const workspace = await newWorkspace(gateway);
    const invite = await api<{ id: string }>(gateway, 'POST', '/v1/admin/users/invites', { body: { email: `sorter-${run}@example.com`, workspaces: [{ workspace_id: workspace.id, role: 'member' }] } });
    expect(invite.status, JSON.stringify(invite.body)).toBe(201);
    const member = (await newKey(gateway, { workspace_id: workspace.id, type: 'user', user_id: invite.body.id, scopes: ['logs:read'] })).key;
    const off = await api(gateway, 'PATCH', `/v1/workspaces/${workspace.id}`, { body: { settings: { membersViewAnalytics: false } } });
    expect(off.status).toBe(200);
    expectError(await api(gateway, 'GET', '/v1/logs?sort=cost', { key: member }), 403, 'analytics_not_visible');
    expectError(await api(gateway, 'GET', '/v1/logs?sort=total_tokens&order=asc', { key: member }), 403, 'analytics_not_visible');
    expect((await api(gateway, 'GET', '/v1/logs?sort=latency_ms', { key: member })).status).toBe(200);
  });
});
