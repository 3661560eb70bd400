import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Analytics } from '../../../shared/control-plane/analytics/schemas.js';
import { MAX_ANALYTICS_GROUPS } from '../../../shared/observability/engine/analytics-queries.js';
import type { RequestLog } from '../../../shared/control-plane/logs/schemas.js';
import type { Trace, TraceSummary } from '../../../shared/control-plane/traces/schemas.js';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import { settings } from '../../../shared/settings.js';
import { requestRow } from '../../../shared/observability/engine/columns.js';
import { logEngines } from '../../../shared/observability/engine/select.js';
import type { RequestLogRecord } from '../../../shared/observability/log-record.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import type { MockUpstream } from '../../support/mock-upstream.js';
import { allPages, api, expectError, newKey, newWorkspace, type Page, type Workspace } from '../control-plane/identities-support.js';
import { chat, logsWhere, viaMock } from './observability-support.js';

const JWT_SECRET = 'an-observability-test-secret-of-32-chars!';
let gateway: TestGateway;
let upstream: MockUpstream;
useGatewayWithUpstream(
  (request) => ((request.json as { model?: string } | undefined)?.model === 'gpt-fail' ? { status: 500, json: { error: { message: 'boom' } } } : openAIMockHandler()(request)),
  (started) => ({ gateway, upstream } = started),
  { GW_JWT_SECRET: JWT_SECRET },
);

const run = randomUUID().slice(0, 8);
let other: Workspace;
let otherKey: string;
let weakKeyId: string;
let weakKey: string;
let virtualKeyId: string;
const traces: string[] = [];

async function call(model: string, metadata: Record<string, string>, headers: Record<string, string> = {}, apiKey = gateway.apiKey): Promise<string> {
  const traceId = `read-${run}-${traces.length}`;
  traces.push(traceId);
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gw-api-key': apiKey, 'x-gw-trace-id': traceId, 'x-gw-metadata': JSON.stringify({ run, ...metadata }), ...viaMock(upstream.url), ...headers },
    body: JSON.stringify({ ...chat, model }),
  });
  await response.text();
  return traceId;
}

beforeAll(async () => {
  other = await newWorkspace(gateway);
  otherKey = (await newKey(gateway, { workspace_id: other.id, scopes: ['completions:write', 'logs:read'] })).key;
  const weak = await newKey(gateway, { scopes: ['completions:write'] });
  weakKeyId = weak.id;
  weakKey = weak.key;
  const virtualKey = await api<{ id: string }>(gateway, 'POST', '/v1/virtual-keys', { body: { provider: 'openai', credential: 'sk-virtual-credential-0000000000', custom_host: upstream.url } });
  expect(virtualKey.status, JSON.stringify(virtualKey.body)).toBe(201);
  virtualKeyId = virtualKey.body.id;
  await call('gpt-4o-mini', { _user: 'alice', team: 'red' });
  await call('gpt-4o', { _user: 'bob' });
  await call('gpt-4o-mini', { _user: 'alice' }, {}, weakKey);
  await call('gpt-4o-mini', { _user: 'dave' }, { 'x-gw-provider': '', 'x-gw-custom-host': '', authorization: '', 'x-gw-virtual-key': virtualKeyId });
  await call('gpt-fail', { _user: 'carol' });
  await call('gpt-4o-mini', { _user: 'alice' }, {}, otherKey);
  await drainAllBackgroundWork();
});

const ids = (records: RequestLog[]) => records.map((record) => record.trace_id);

describe('GET /v1/logs filters, each a condition of one engine query', () => {
  it('finds a user’s requests by user= and by metadata._user=, newest first, only in the caller’s workspace', async () => {
    const byUser = await logsWhere(gateway, `user=alice&metadata.run=${run}`);
    expect(ids(byUser)).toEqual([traces[2], traces[0]]);
    expect(ids(await logsWhere(gateway, 'metadata._user=alice'))).toEqual(expect.arrayContaining([traces[2], traces[0]]));
    expect(ids(await logsWhere(gateway, 'metadata._user=alice')).includes(traces[5])).toBe(false);
    expect(ids(await logsWhere(gateway, `metadata.team=red&metadata.run=${run}`))).toEqual([traces[0]]);
  });

  it('filters by model, provider, api key, virtual key, status, trace and time', async () => {
    expect(ids(await logsWhere(gateway, `model=gpt-4o&metadata.run=${run}`))).toEqual([traces[1]]);
    expect(ids(await logsWhere(gateway, `api_key_id=${weakKeyId}`))).toEqual([traces[2]]);
    expect(ids(await logsWhere(gateway, `virtual_key_id=${virtualKeyId}`))).toEqual([traces[3]]);
    expect(ids(await logsWhere(gateway, `provider=openai&metadata.run=${run}`))).toHaveLength(5);
    const failed = await logsWhere(gateway, `status=error&metadata.run=${run}`);
    expect(ids(failed)).toEqual([traces[4]]);
    expect(ids(await logsWhere(gateway, `status=${failed[0].status}&metadata.run=${run}`))).toEqual([traces[4]]);
    expect(ids(await logsWhere(gateway, `trace_id=${traces[1]}`))).toEqual([traces[1]]);
    const all = await logsWhere(gateway, `metadata.run=${run}`);
    const oldest = all.at(-1)!.created_at;
    expect(ids(await logsWhere(gateway, `metadata.run=${run}&to=${encodeURIComponent(oldest)}`))).toEqual([traces[0]]);
    expect(await logsWhere(gateway, `metadata.run=${run}&from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).toEqual([]);
    expect(await logsWhere(gateway, `metadata.run=${run}&cache_status=HIT`)).toEqual([]);
  });

  it('status=200, status=error, cache_status=DISABLED: common values filter like any other', async () => {
    const succeeded = ids((await allPages<RequestLog>(gateway, '/v1/logs?status=200', {}, 2)).items);
    expect(succeeded.filter((id) => traces.includes(id))).toEqual([traces[3], traces[2], traces[1], traces[0]]);
    const uncached = ids((await allPages<RequestLog>(gateway, `/v1/logs?cache_status=DISABLED&status=200`, {}, 2)).items);
    expect(uncached.filter((id) => traces.includes(id))).toEqual([traces[3], traces[2], traces[1], traces[0]]);
  });

  it('says how fresh its data is in a header', async () => {
    const reply = await fetch(`${gateway.url}/v1/logs?limit=1`, { headers: { 'x-gw-api-key': gateway.apiKey } });
    expect(reply.status).toBe(200);
    const freshness = Number(reply.headers.get('x-gw-data-freshness-ms'));
    expect(freshness).toBeGreaterThan(0);
    expect(freshness).toBeLessThanOrEqual(1_000);
  });

  it('pages through every filter the same way: no repeats, nothing lost', async () => {
    const everything = ids(await logsWhere(gateway, `metadata.run=${run}`));
    expect(everything).toHaveLength(5);
    expect(ids((await allPages<RequestLog>(gateway, `/v1/logs?metadata.run=${run}`, {}, 2)).items)).toEqual(everything);
    expect(ids((await allPages<RequestLog>(gateway, `/v1/logs?provider=openai&metadata.run=${run}`, {}, 2)).items)).toEqual(everything);
    const timeline = ids((await allPages<RequestLog>(gateway, '/v1/logs', {}, 2)).items);
    expect(timeline.filter((id) => everything.includes(id))).toEqual(everything);
  });

  it('refuses bad filters and foreign cursors with the error shape', async () => {
    expectError(await api(gateway, 'GET', '/v1/logs?status=abc'), 400, 'invalid_request', { param: 'status' });
    expectError(await api(gateway, 'GET', '/v1/logs?from=yesterday'), 400, 'invalid_request', { param: 'from' });
    expectError(await api(gateway, 'GET', '/v1/logs?colour=blue'), 400, 'invalid_request');
    expectError(await api(gateway, 'GET', '/v1/logs?cursor=not-a-cursor'), 400, 'invalid_cursor');
    const page = await api<Page<RequestLog>>(gateway, 'GET', `/v1/logs?metadata.run=${run}&limit=1`);
    expectError(await api(gateway, 'GET', `/v1/logs?model=gpt-4o&cursor=${page.body.next_cursor}`), 400, 'invalid_cursor');
  });

  it('needs logs:read (a weaker key of the same workspace gets 403), and another workspace sees nothing of the first', async () => {
    expectError(await api(gateway, 'GET', '/v1/logs', { key: weakKey }), 403, 'missing_scope');
    const theirs = await logsWhere(gateway, '', otherKey);
    expect(ids(theirs)).toEqual([traces[5]]);
    const mine = (await logsWhere(gateway, `trace_id=${traces[0]}`))[0];
    expectError(await api(gateway, 'GET', `/v1/logs/${mine.id}`, { key: otherKey }), 404, 'not_found');
    expectError(await api(gateway, 'GET', `/v1/traces/${traces[0]}`, { key: otherKey }), 404, 'not_found');
    expect((await api<Page<unknown>>(gateway, 'GET', `/v1/spans?trace_id=${traces[0]}`, { key: otherKey })).body.data).toEqual([]);
    expectError(await api(gateway, 'GET', `/v1/logs?workspace_id=${gateway.bootstrap.workspaceId}`, { key: otherKey }), 404, 'not_found');
    expect(ids(await logsWhere(gateway, `workspace_id=${other.id}`))).toEqual([traces[5]]);
  });

  it('lets a JWT with the read grant list logs, traces and analytics of its workspace, and nothing more', async () => {
    const token = await new SignJWT({ sub: `reader-${run}`, organisation_id: gateway.bootstrap.organisationId, workspace_id: gateway.bootstrap.workspaceId, scope: 'read' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(JWT_SECRET));
    const logs = await api<Page<RequestLog>>(gateway, 'GET', `/v1/logs?user=alice&metadata.run=${run}`, { bearer: token });
    expect(logs.status, JSON.stringify(logs.body)).toBe(200);
    expect(ids(logs.body.data)).toEqual([traces[2], traces[0]]);
    expect((await api(gateway, 'GET', `/v1/traces/${traces[0]}`, { bearer: token })).status).toBe(200);
    expect((await api(gateway, 'GET', '/v1/analytics?group_by=model', { bearer: token })).status).toBe(200);
    expectError(await api(gateway, 'POST', '/v1/exports', { bearer: token, body: {} }), 403, 'jwt_read_only');
    const listOnly = await new SignJWT({ sub: `lister-${run}`, organisation_id: gateway.bootstrap.organisationId, workspace_id: gateway.bootstrap.workspaceId, scope: 'list' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(JWT_SECRET));
    expectError(await api(gateway, 'GET', '/v1/logs', { bearer: listOnly }), 403, 'missing_scope');
  });

  it('hides records older than LOG_RETENTION_DISPLAY even before retention deletes them', async () => {
    const old = new Date(Date.now() - (settings().LOG_RETENTION_DISPLAY + 1) * 86_400_000).toISOString();
    const [recent] = await logsWhere(gateway, `trace_id=${traces[0]}`);
    const id = `old-${run}`;
    const record = { ...recent, id, request_id: id, trace_id: `old-trace-${run}`, created_at: old, organisation_id: gateway.bootstrap.organisationId, spans: [] } as unknown as RequestLogRecord;
    const { sink } = await logEngines();
    sink.append('requests', [requestRow(record)]);
    await sink.flush();
    expect(await logsWhere(gateway, `trace_id=old-trace-${run}`)).toEqual([]);
    expect(await logsWhere(gateway, `trace_id=old-trace-${run}&from=${encodeURIComponent(old)}`)).toEqual([]);
    expectError(await api(gateway, 'GET', `/v1/logs/${id}`), 404, 'not_found');
  });
});

describe('traces and spans', () => {
  it('answers a trace with its requests and spans, and lists trace summaries', async () => {
    const extra = await call('gpt-4o', { _user: 'erin' }, { 'x-gw-trace-id': traces[1] });
    traces.pop();
    expect(extra).toBeDefined();
    await drainAllBackgroundWork();
    const trace = await api<Trace>(gateway, 'GET', `/v1/traces/${traces[1]}`);
    expect(trace.status).toBe(200);
    expect(trace.body).toMatchObject({ object: 'trace', trace_id: traces[1] });
    expect(trace.body.requests).toHaveLength(2);
    expect(trace.body.spans.filter((span) => span.kind === 'attempt')).toHaveLength(2);
    expect(trace.body.spans.every((span) => span.trace_id === traces[1])).toBe(true);
    const spans = await api<Page<Trace['spans'][number]>>(gateway, 'GET', `/v1/spans?trace_id=${traces[1]}`);
    expect(spans.body.data).toEqual(trace.body.spans);
    expectError(await api(gateway, 'GET', '/v1/spans'), 400, 'invalid_request', { param: 'trace_id' });
    const summaries = await allPages<TraceSummary>(gateway, `/v1/traces?metadata.run=${run}`, {}, 2);
    const listed = summaries.items.map((summary) => summary.trace_id);
    expect(new Set(listed).size).toBe(listed.length);
    expect(listed).toEqual(expect.arrayContaining(traces.slice(0, 5)));
    expect(summaries.items.find((summary) => summary.trace_id === traces[1])).toMatchObject({ requests: 2, errors: 0, models: ['gpt-4o'] });
  });
});

describe('GET /v1/analytics computed by the engine', () => {
  it('equals the sum of the logs, per model, user, api key and workspace, hourly and daily', async () => {
    await drainAllBackgroundWork();
    const logs = await logsWhere(gateway, 'limit=100');
    for (const groupBy of ['model', 'api_key', 'metadata._user', 'provider']) {
      const analytics = await api<Analytics>(gateway, 'GET', `/v1/analytics?group_by=${groupBy}&interval=hour`);
      expect(analytics.status, JSON.stringify(analytics.body)).toBe(200);
      const keyOf = (log: RequestLog) => (groupBy === 'model' ? log.model : groupBy === 'api_key' ? log.api_key_id : groupBy === 'provider' ? log.provider : log.metadata._user);
      const expected = new Map<string, { requests: number; errors: number; prompt_tokens: number; completion_tokens: number; cost: number }>();
      for (const log of logs) {
        const key = keyOf(log);
        if (!key) continue;
        const sums = expected.get(key) ?? { requests: 0, errors: 0, prompt_tokens: 0, completion_tokens: 0, cost: 0 };
        sums.requests += 1;
        sums.errors += log.status >= 400 ? 1 : 0;
        sums.prompt_tokens += log.usage?.prompt_tokens ?? 0;
        sums.completion_tokens += log.usage?.completion_tokens ?? 0;
        sums.cost += log.cost ?? 0;
        expected.set(key, sums);
      }
      const rows = Object.fromEntries(analytics.body.rows.map((row) => [row.key, { requests: row.requests, errors: row.errors, prompt_tokens: row.prompt_tokens, completion_tokens: row.completion_tokens, cost: row.cost }]));
      const wanted = Object.fromEntries([...expected.entries()].map(([key, sums]) => [key, { ...sums, cost: Math.round(sums.cost * 1e10) / 1e10 }]));
      expect(rows, groupBy).toEqual(wanted);
      const seriesTotal = analytics.body.series.reduce((sum, point) => sum + point.requests, 0);
      expect(seriesTotal).toBe(analytics.body.rows.reduce((sum, row) => sum + row.requests, 0));
      for (const row of analytics.body.rows) expect(row.latency_p95_ms!).toBeGreaterThanOrEqual(row.latency_p50_ms!);
    }
    const daily = await api<Analytics>(gateway, 'GET', '/v1/analytics?group_by=model&interval=day');
    expect(daily.body.rows.reduce((sum, row) => sum + row.requests, 0)).toBe(logs.length);
  });

  it('stays exact under 200 concurrent requests: every log record counted once', async () => {
    const burst = randomUUID().slice(0, 8);
    const send = () =>
      fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-gw-api-key': gateway.apiKey, 'x-gw-metadata': JSON.stringify({ burst }), ...viaMock(upstream.url) },
        body: JSON.stringify(chat),
      }).then((response) => response.text().then(() => response.status));
    const statuses = await Promise.all(Array.from({ length: 200 }, send));
    expect(statuses.every((status) => status === 200)).toBe(true);
    await drainAllBackgroundWork();
    const logged = await allPages<RequestLog>(gateway, `/v1/logs?metadata.burst=${burst}`, {}, 100);
    expect(logged.items).toHaveLength(200);
    expect(new Set(logged.items.map((log) => log.id)).size).toBe(200);
    const analytics = await api<Analytics>(gateway, 'GET', '/v1/analytics?group_by=metadata.burst&interval=hour');
    const row = analytics.body.rows.find((entry) => entry.key === burst)!;
    expect(row).toMatchObject({ requests: 200, errors: 0, prompt_tokens: 200 * 9, completion_tokens: 200 * 12 });
    expect(row.cost).toBeCloseTo(logged.items.reduce((sum, log) => sum + (log.cost ?? 0), 0), 9);
    // 200 requests on a machine shared with other test runs: allowed more than the default 20 s.
  }, 120_000);

  it('groups by workspace over the organisation for admin keys, and only the own workspace for others', async () => {
    const admin = await api<Analytics>(gateway, 'GET', '/v1/analytics?group_by=workspace');
    expect(admin.body.rows.map((row) => row.key)).toEqual(expect.arrayContaining([gateway.bootstrap.workspaceId, other.id]));
    const theirs = await api<Analytics>(gateway, 'GET', '/v1/analytics?group_by=workspace', { key: otherKey });
    expect(theirs.body.rows.map((row) => row.key)).toEqual([other.id]);
    expect(theirs.body.rows[0].requests).toBe(1);
    const theirModels = await api<Analytics>(gateway, 'GET', '/v1/analytics?group_by=metadata._user', { key: otherKey });
    expect(theirModels.body.rows).toEqual([expect.objectContaining({ key: 'alice', requests: 1 })]);
    expectError(await api(gateway, 'GET', `/v1/analytics?workspace_id=${gateway.bootstrap.workspaceId}`, { key: otherKey }), 404, 'not_found');
    expectError(await api(gateway, 'GET', '/v1/analytics?group_by=colour'), 400, 'invalid_request', { param: 'group_by' });
    expectError(await api(gateway, 'GET', '/v1/analytics', { key: weakKey }), 403, 'missing_scope');
  });

  it('refuses an uncapped analytics answer with a clear error (too many groups, too many points) instead of megabytes or a cut answer', async () => {
    const [recent] = await logsWhere(gateway, `trace_id=${traces[0]}`);
    const { sink } = await logEngines();
    const at = (hour: number) => new Date(Date.now() - hour * 3_600_000 - 60_000).toISOString();
    const seed = (key: string, records: Array<{ value: string; hour: number }>) => {
      sink.append('requests', records.map(({ value, hour }, index) => {
        const id = `cap-${key}-${run}-${index}`;
        return requestRow({ ...recent, id, request_id: id, created_at: at(hour), organisation_id: gateway.bootstrap.organisationId, metadata: { [key]: value }, spans: [] } as unknown as RequestLogRecord);
      }));
    };
    // 501 users in one hour: one group too many.
    seed(`fan${run}`, Array.from({ length: MAX_ANALYTICS_GROUPS + 1 }, (_, i) => ({ value: `user-${i}`, hour: 1 })));
    // 101 users over 50 hours, hourly: 5,050 points, over the cap; daily it is a few hundred.
    seed(`spread${run}`, Array.from({ length: 101 * 50 }, (_, i) => ({ value: `user-${i % 101}`, hour: Math.floor(i / 101) })));
    await sink.flush();
    const from = encodeURIComponent(new Date(Date.now() - 52 * 3_600_000).toISOString());
    expectError(await api(gateway, 'GET', `/v1/analytics?group_by=metadata.fan${run}&from=${from}`), 400, 'too_many_groups', { param: 'group_by' });
    expectError(await api(gateway, 'GET', `/v1/analytics?group_by=metadata.spread${run}&interval=hour&from=${from}`), 400, 'too_many_points', { param: 'interval' });
    const daily = await api<Analytics>(gateway, 'GET', `/v1/analytics?group_by=metadata.spread${run}&interval=day&from=${from}`);
    expect(daily.status, JSON.stringify(daily.body)).toBe(200);
    expect(daily.body.rows.reduce((sum, row) => sum + row.requests, 0)).toBeGreaterThanOrEqual(101 * 50);
  }, 60_000);

  it('bounds the range by METRICS_RETENTION_DISPLAY', async () => {
    const from = new Date(Date.now() - 5 * 365 * 86_400_000).toISOString();
    const reply = await api<Analytics>(gateway, 'GET', `/v1/analytics?from=${encodeURIComponent(from)}`);
    expect(Date.parse(reply.body.from)).toBeGreaterThanOrEqual(Date.now() - settings().METRICS_RETENTION_DISPLAY * 86_400_000 - 60_000);
  });

  it('lets members and managers read analytics unless the workspace settings say no', async () => {
    const workspace = await newWorkspace(gateway);
    const invite = async (email: string, role: string) => {
      const reply = await api<{ id: string }>(gateway, 'POST', '/v1/admin/users/invites', { body: { email, workspaces: [{ workspace_id: workspace.id, role }] } });
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      return reply.body.id;
    };
    const memberKey = (await newKey(gateway, { workspace_id: workspace.id, user_id: await invite(`member-${run}@example.com`, 'member'), scopes: ['logs:read'] })).key;
    const managerKey = (await newKey(gateway, { workspace_id: workspace.id, user_id: await invite(`manager-${run}@example.com`, 'manager'), scopes: ['logs:read'] })).key;
    const serviceKey = (await newKey(gateway, { workspace_id: workspace.id, scopes: ['logs:read'] })).key;
    const status = async (key: string) => (await api(gateway, 'GET', '/v1/analytics', { key })).status;
    expect([await status(memberKey), await status(managerKey)]).toEqual([200, 200]);
    const off = await api<Workspace & { settings: Record<string, boolean> }>(gateway, 'PATCH', `/v1/workspaces/${workspace.id}`, { body: { settings: { membersViewAnalytics: false } } });
    expect(off.body.settings).toEqual({ log_request_bodies: true, membersViewAnalytics: false, managersViewAnalytics: true, unpriced_models: 'reserve' });
    expectError(await api(gateway, 'GET', '/v1/analytics', { key: memberKey }), 403, 'analytics_not_visible');
    expect(await status(managerKey)).toBe(200);
    await api(gateway, 'PATCH', `/v1/workspaces/${workspace.id}`, { body: { settings: { managersViewAnalytics: false } } });
    expectError(await api(gateway, 'GET', '/v1/analytics', { key: managerKey }), 403, 'analytics_not_visible');
    expect(await status(serviceKey)).toBe(200);
    expect((await api(gateway, 'GET', `/v1/analytics?workspace_id=${workspace.id}`)).status).toBe(200);
  });
});

describe('filter values the engine must take whole (issue #32: one answer on DuckDB and on Athena)', () => {
  it('matches a metadata value of 512 quotes (over Athena\'s 1,024 characters per parameter once quoted) and one holding a NUL', async () => {
    const marker = `whole-${run}`;
    for (const value of ["'".repeat(512), 'a\u0000b']) {
      const response = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-gw-api-key': gateway.apiKey, 'x-gw-metadata': JSON.stringify({ marker, value }), ...viaMock(upstream.url) },
        body: JSON.stringify(chat),
      });
      expect(response.status, await response.text()).toBe(200);
    }
    await drainAllBackgroundWork();
    for (const value of ["'".repeat(512), 'a\u0000b']) {
      const found = await logsWhere(gateway, `metadata.marker=${marker}&metadata.value=${encodeURIComponent(value)}`);
      expect(found.map((record) => record.metadata)).toEqual([{ marker, value }]);
    }
  });
});
