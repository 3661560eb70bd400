import { beforeAll, describe, expect, it } from 'vitest';
import type { DataExport } from '../../../shared/control-plane/exports/schemas.js';
import type { RequestLog } from '../../../shared/control-plane/logs/schemas.js';
import type { Trace, TraceSummary } from '../../../shared/control-plane/traces/schemas.js';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import type { MockUpstream } from '../../support/mock-upstream.js';
import { api, newKey, newWorkspace, type Page, type Workspace } from '../control-plane/identities-support.js';
import { chat, viaMock } from '../observability/observability-support.js';

/**
 * `membersViewAnalytics=false` (and `managersViewAnalytics=false`) hide tokens and cost from those callers in
 * logs, traces, spans and exports too, not only in analytics (issue #30). Organisation admins, workspace admins
 * and service keys still see them.
 */
let gateway: TestGateway;
let upstream: MockUpstream;
useGatewayWithUpstream(openAIMockHandler(), (started) => ({ gateway, upstream } = started));

let workspace: Workspace;
let memberKey: string;
let workspaceAdminKey: string;
let serviceKey: string;
const traceId = `usage-visibility-${Date.now()}`;

async function invite(email: string, role: string): Promise<string> {
  const reply = await api<{ id: string }>(gateway, 'POST', '/v1/admin/users/invites', { body: { email, workspaces: [{ workspace_id: workspace.id, role }] } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body.id;
}

beforeAll(async () => {
  workspace = await newWorkspace(gateway);
  const scopes = ['logs:read', 'completions:write'];
  memberKey = (await newKey(gateway, { workspace_id: workspace.id, type: 'user', user_id: await invite(`member-${traceId}@example.com`, 'member'), scopes })).key;
  workspaceAdminKey = (await newKey(gateway, { workspace_id: workspace.id, type: 'user', user_id: await invite(`admin-${traceId}@example.com`, 'admin'), scopes })).key;
  serviceKey = (await newKey(gateway, { workspace_id: workspace.id, scopes })).key;
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gw-api-key': memberKey, 'x-gw-trace-id': traceId, ...viaMock(upstream.url) },
    body: JSON.stringify(chat),
  });
  expect(response.status).toBe(200);
  await response.text();
  await drainAllBackgroundWork();
  const off = await api<{ settings: Record<string, boolean> }>(gateway, 'PATCH', `/v1/workspaces/${workspace.id}`, { body: { settings: { membersViewAnalytics: false } } });
  expect(off.body.settings.membersViewAnalytics).toBe(false);
});

async function read<Body>(path: string, key: string | undefined): Promise<Body> {
  const reply = await api<Body>(gateway, 'GET', path, { key });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body;
}

/** Whether the text holds a token count or a cost (a field with a number; the emptied fields are null). */
const hasUsage = (text: string) => /"(prompt_tokens|completion_tokens|total_tokens|cost)"\s*:\s*\d/.test(text);

/** The reads of one caller: the log list and item, trace list and item, spans. */
async function everyRead(key: string | undefined): Promise<{ log: RequestLog; listed: RequestLog; summary: TraceSummary; trace: Trace; text: string }> {
  const suffix = key === undefined ? `&workspace_id=${workspace.id}` : '';
  const listed = (await read<Page<RequestLog>>(`/v1/logs?trace_id=${traceId}${suffix}`, key)).data;
  expect(listed).toHaveLength(1);
  const log = await read<RequestLog>(`/v1/logs/${listed[0].id}${suffix.replace('&', '?')}`, key);
  const summaries = (await read<Page<TraceSummary>>(`/v1/traces?trace_id=${traceId}${suffix}`, key)).data;
  const trace = await read<Trace>(`/v1/traces/${traceId}${suffix.replace('&', '?')}`, key);
  const spans = await read<Page<unknown>>(`/v1/spans?trace_id=${traceId}${suffix}`, key);
  return { log, listed: listed[0], summary: summaries[0], trace, text: JSON.stringify([log, listed, summaries, trace, spans]) };
}

describe('membersViewAnalytics=false', () => {
  it('hides tokens and cost from a member in logs, traces and spans', async () => {
    const seen = await everyRead(memberKey);
    for (const log of [seen.log, seen.listed, seen.trace.requests[0]]) expect(log).toMatchObject({ usage: null, cost: null });
    expect(seen.summary).toMatchObject({ cost: null, total_tokens: null, requests: 1 });
    expect(hasUsage(seen.text), seen.text).toBe(false);
    // Everything else stays.
    expect(seen.log).toMatchObject({ model: 'gpt-4o-mini', status: 200, trace_id: traceId });
  });

  it('leaves them to the organisation admin, a workspace admin and a service key', async () => {
    for (const key of [undefined, workspaceAdminKey, serviceKey]) {
      const seen = await everyRead(key);
      expect(seen.log.usage?.total_tokens).toBeGreaterThan(0);
      expect(seen.log.cost).toEqual(expect.any(Number));
      expect(seen.summary.total_tokens).toBeGreaterThan(0);
      expect(hasUsage(JSON.stringify(seen.log.response_body))).toBe(true);
    }
  });

  async function finishedExport(key: string | undefined): Promise<DataExport> {
    const created = await api<DataExport>(gateway, 'POST', '/v1/exports', { key, body: { trace_id: traceId, ...(key === undefined ? { workspace_id: workspace.id } : {}) } });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    await drainAllBackgroundWork();
    return read<DataExport>(`/v1/exports/${created.body.id}?workspace_id=${workspace.id}`, key);
  }

  async function download(job: DataExport, key: string | undefined): Promise<string> {
    expect(job.status).toBe('completed');
    const response = await fetch(job.download_url!, { headers: { 'x-gw-api-key': key ?? gateway.apiKey } });
    expect(response.status).toBe(200);
    return response.text();
  }

  it('leaves them out of an export a member makes, and does not hand a member an admin’s export that holds them', async () => {
    const mine = await download(await finishedExport(memberKey), memberKey);
    expect(mine.trim().split('\n')).toHaveLength(1);
    const row = JSON.parse(mine) as Record<string, unknown>;
    expect(row.trace_id).toBe(traceId);
    for (const column of ['cost', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'attempts', 'response_body']) expect(row).not.toHaveProperty(column);
    expect(hasUsage(mine)).toBe(false);

    const admins = await finishedExport(undefined);
    const full = await download(admins, undefined);
    expect(JSON.parse(full).total_tokens).toBeGreaterThan(0);
    const asMember = await read<DataExport>(`/v1/exports/${admins.id}`, memberKey);
    expect(asMember).toMatchObject({ status: 'completed', download_url: null });
    const refused = await fetch(`${gateway.url}/v1/exports/${admins.id}/download?workspace_id=${workspace.id}`, { headers: { 'x-gw-api-key': memberKey } });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: { code: 'export_usage_hidden' } });
  });

  it('managersViewAnalytics=false hides them from a manager the same way', async () => {
    const managerKey = (await newKey(gateway, { workspace_id: workspace.id, type: 'user', user_id: await invite(`manager-${traceId}@example.com`, 'manager'), scopes: ['logs:read'] })).key;
    expect((await everyRead(managerKey)).log.usage?.total_tokens).toBeGreaterThan(0);
    await api(gateway, 'PATCH', `/v1/workspaces/${workspace.id}`, { body: { settings: { managersViewAnalytics: false } } });
    const seen = await everyRead(managerKey);
    expect(seen.log).toMatchObject({ usage: null, cost: null });
    expect(hasUsage(seen.text)).toBe(false);
    await api(gateway, 'PATCH', `/v1/workspaces/${workspace.id}`, { body: { settings: { managersViewAnalytics: true } } });
  });

  it('shows them to the member again once the workspace allows it', async () => {
    await api(gateway, 'PATCH', `/v1/workspaces/${workspace.id}`, { body: { settings: { membersViewAnalytics: true } } });
    const seen = await everyRead(memberKey);
    expect(seen.log.usage?.total_tokens).toBeGreaterThan(0);
    await api(gateway, 'PATCH', `/v1/workspaces/${workspace.id}`, { body: { settings: { membersViewAnalytics: false } } });
  });
});
