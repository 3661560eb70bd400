import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpServerMetadataView, McpServerView } from '../../../shared/control-plane/mcp-servers/schemas.js';
import type { Page } from '../../../shared/control-plane/pagination.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { startTestMcpServer, type TestMcpServer } from '../../support/mcp-server.js';
import { api, expectError, newKey, newWorkspace, type Reply } from '../control-plane/identities-support.js';

const TOKEN = 'mcp-upstream-token-sentinel-5f1c2e';
const ROTATED = 'mcp-rotated-token-sentinel-a81b09';

let gateway: TestGateway;
let tools: TestMcpServer;
let readOnly: string;
let noMcpScope: string;
let otherWorkspaceWriter: string;
const replies: Array<Reply<unknown>> = [];

/** Every reply is kept, so the last test can check that none ever carried a credential. */
async function call<Body = McpServerView>(method: string, path: string, options: Parameters<typeof api>[3] = {}): Promise<Reply<Body>> {
  const reply = await api<Body>(gateway, method, path, options);
  replies.push(reply);
  return reply;
}

const register = (body: Record<string, unknown>, key?: string) => call('POST', '/v1/mcp-servers', { body, key });

beforeAll(async () => {
  tools = await startTestMcpServer({ token: TOKEN, requireAuth: true });
  gateway = await startTestGateway();
  readOnly = (await newKey(gateway, { scopes: ['mcp_servers:read'] })).key;
  noMcpScope = (await newKey(gateway, { scopes: ['prompts:read'] })).key;
  const other = await newWorkspace(gateway);
  otherWorkspaceWriter = (await newKey(gateway, { workspace_id: other.id, scopes: ['mcp_servers:read', 'mcp_servers:write'] })).key;
});
afterAll(async () => {
  await gateway?.close();
  await tools?.close();
});

describe('POST /v1/mcp-servers', () => {
  it('registers a server, runs the handshake at once and reports it synced, the credential masked', async () => {
    const reply = await register({ name: 'Test Tools', url: tools.url, auth: { type: 'bearer', token: TOKEN }, tools: { deny: ['delete_everything'] } });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({
      object: 'mcp_server',
      workspace_id: gateway.bootstrap.workspaceId,
      name: 'Test Tools',
      slug: 'test-tools',
      url: tools.url,
      auth: { type: 'bearer' },
      tools: { deny: ['delete_everything'] },
      gateway_path: '/v1/mcp/test-tools',
      title: 'Test Tools',
      server_name: 'test-tools',
      server_version: '1.2.3',
      protocol_version: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      sync_status: 'synced',
      synced_at: expect.any(String),
    });
    expect(reply.body).not.toHaveProperty('error');
    // The handshake reached the server with the stored credential.
    expect(tools.received.some((request) => request.headers.authorization === `Bearer ${TOKEN}`)).toBe(true);
  });

  it('records a server it cannot reach as failed, with the reason', async () => {
    const reply = await register({ name: 'Down', slug: 'down', url: 'http://127.0.0.1:1/mcp' });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ slug: 'down', sync_status: 'failed', error: expect.stringMatching(/ECONNREFUSED|reach/) });
  });

  it('records a refused credential as a failed sync', async () => {
    const reply = await register({ name: 'Wrong token', url: tools.url, auth: { type: 'bearer', token: 'not-the-token' } });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ slug: 'wrong-token', sync_status: 'failed', error: expect.stringContaining('401') });
    expect(JSON.stringify(reply.body)).not.toContain('not-the-token');
  });

  it('refuses cloud metadata, link-local and credential-bearing URLs (address rules of custom hosts)', async () => {
    for (const url of ['http://169.254.169.254/latest/meta-data', 'http://metadata.google.internal/mcp', 'http://[fe80::1]/mcp', 'http://user:pw@example.com/mcp', 'https://example.com/mcp?key=1']) {
      expectError(await register({ name: 'bad', url }), 400, 'mcp_server_url_not_allowed', { param: 'url' });
    }
    expectError(await register({ name: 'ftp', url: 'ftp://example.com/mcp' }), 400, 'invalid_request', { param: 'url' });
  });

  it('validates the body: auth kinds, reserved header names, slugs, unknown fields', async () => {
    expectError(await register({ name: 'x', url: tools.url, auth: { type: 'basic', token: 'a' } }), 400, 'invalid_request');
    expectError(await register({ name: 'x', url: tools.url, auth: { type: 'header', name: 'Host', value: 'a' } }), 400, 'invalid_request', { param: 'auth.name' });
    expectError(await register({ name: 'x', url: tools.url, auth: { type: 'bearer' } }), 400, 'invalid_request', { param: 'auth.token' });
    expectError(await register({ name: 'x', slug: 'Not A Slug', url: tools.url }), 400, 'invalid_request', { param: 'slug' });
    expectError(await register({ name: 'x', slug: '0b8a5e2c-3f4d-4a7b-9c1d-2e3f4a5b6c7d', url: tools.url }), 400, 'invalid_request', { param: 'slug' });
    expectError(await register({ name: 'x', url: tools.url, extra: 1 }), 400, 'invalid_request');
    expectError(await call('POST', '/v1/mcp-servers', { body: `{"name":"x","auth":{"type":"bearer","token":"${TOKEN}"` }), 400, 'invalid_json');
  });

  it('refuses a slug the workspace already uses (409), but another workspace may use it', async () => {
    expectError(await register({ name: 'Test Tools', url: tools.url }), 409, 'slug_taken', { param: 'slug' });
    const elsewhere = await register({ name: 'Test Tools', url: tools.url, auth: { type: 'bearer', token: TOKEN } }, otherWorkspaceWriter);
    expect(elsewhere.status).toBe(201);
    expect(elsewhere.body.slug).toBe('test-tools');
  });

  it('lets exactly one of 50 concurrent registrations claim a slug', async () => {
    const replies = await Promise.all(Array.from({ length: 50 }, (_, i) => api<McpServerView>(gateway, 'POST', '/v1/mcp-servers', { body: { name: `racer ${i}`, slug: 'race', url: 'http://127.0.0.1:1/mcp' } })));
    expect(replies.filter((reply) => reply.status === 201)).toHaveLength(1);
    for (const reply of replies.filter((one) => one.status !== 201)) expectError(reply, 409, 'slug_taken');
    const listed = await call<Page<McpServerView>>('GET', '/v1/mcp-servers?limit=100');
    expect(listed.body.data.filter((server) => server.slug === 'race')).toHaveLength(1);
  });

  it('needs mcp_servers:write', async () => {
    expectError(await register({ name: 'ro', url: tools.url }, readOnly), 403, 'missing_scope');
    expectError(await register({ name: 'none', url: tools.url }, noMcpScope), 403, 'missing_scope');
  });
});

describe('reading MCP servers', () => {
  it('lists the workspace servers with their server description and sync status', async () => {
    const reply = await call<Page<McpServerView>>('GET', '/v1/mcp-servers', { key: readOnly });
    expect(reply.status).toBe(200);
    const slugs = reply.body.data.map((server) => server.slug);
    expect(slugs).toEqual(expect.arrayContaining(['test-tools', 'down', 'wrong-token']));
    const synced = reply.body.data.find((server) => server.slug === 'test-tools');
    expect(synced).toMatchObject({ title: 'Test Tools', server_name: 'test-tools', server_version: '1.2.3', sync_status: 'synced' });
  });

  it('gets one by id or by slug', async () => {
    const bySlug = await call('GET', '/v1/mcp-servers/test-tools', { key: readOnly });
    expect(bySlug.status).toBe(200);
    const byId = await call('GET', `/v1/mcp-servers/${bySlug.body.id}`, { key: readOnly });
    expect(byId.body).toEqual(bySlug.body);
  });

  it('answers the metadata from the handshake: tools with their allow flag, capabilities, instructions', async () => {
    const reply = await call<McpServerMetadataView>('GET', '/v1/mcp-servers/test-tools/metadata', { key: readOnly });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      object: 'mcp_server_metadata',
      title: 'Test Tools',
      server_name: 'test-tools',
      server_version: '1.2.3',
      instructions: 'Tools for gw tests',
      capabilities: { tools: expect.any(Object) },
      sync_status: 'synced',
    });
    const byName = Object.fromEntries(reply.body.tools.map((tool) => [tool.name, tool.allowed]));
    expect(byName).toEqual({ echo: true, add: true, delete_everything: false, whoami: true });
    expect(reply.body.tools.find((tool) => tool.name === 'echo')).toMatchObject({ title: 'Echo', description: 'Echoes its text', inputSchema: { type: 'object' } });
  });

  it('serves the cache without calling the server, and runs the handshake again on ?refresh=true', async () => {
    const before = tools.received.length;
    const cached = await call<McpServerMetadataView>('GET', '/v1/mcp-servers/test-tools/metadata');
    expect(tools.received.length).toBe(before);
    const refreshed = await call<McpServerMetadataView>('GET', '/v1/mcp-servers/test-tools/metadata?refresh=true');
    expect(refreshed.status).toBe(200);
    expect(tools.received.length).toBeGreaterThan(before);
    expect(Date.parse(refreshed.body.synced_at!)).toBeGreaterThanOrEqual(Date.parse(cached.body.synced_at!));
    expectError(await call('GET', '/v1/mcp-servers/test-tools/metadata?refresh=yes'), 400, 'invalid_request', { param: 'refresh' });
  });

  it('keeps a failed server failed on refresh, with the error in the metadata', async () => {
    const reply = await call<McpServerMetadataView>('GET', '/v1/mcp-servers/down/metadata?refresh=true');
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ sync_status: 'failed', error: expect.any(String), tools: [] });
  });

  it('hides every server of another workspace behind a 404', async () => {
    const mine = await call('GET', '/v1/mcp-servers/test-tools');
    expectError(await call('GET', `/v1/mcp-servers/${mine.body.id}`, { key: otherWorkspaceWriter }), 404, 'not_found');
    expectError(await call('GET', `/v1/mcp-servers/${mine.body.id}/metadata`, { key: otherWorkspaceWriter }), 404, 'not_found');
    expectError(await call('PATCH', `/v1/mcp-servers/${mine.body.id}`, { key: otherWorkspaceWriter, body: { name: 'stolen' } }), 404, 'not_found');
    expectError(await call('DELETE', `/v1/mcp-servers/${mine.body.id}`, { key: otherWorkspaceWriter }), 404, 'not_found');
    const theirs = await call<Page<McpServerView>>('GET', '/v1/mcp-servers', { key: otherWorkspaceWriter });
    expect(theirs.body.data.map((server) => server.id)).not.toContain(mine.body.id);
  });

  it('needs mcp_servers:read', async () => {
    expectError(await call('GET', '/v1/mcp-servers', { key: noMcpScope }), 403, 'missing_scope');
    expectError(await call('GET', '/v1/mcp-servers/test-tools/metadata', { key: noMcpScope }), 403, 'missing_scope');
  });
});

describe('updating and deleting', () => {
  it('fixes a refused credential: the update syncs again and the server turns synced', async () => {
    const reply = await call('PATCH', '/v1/mcp-servers/wrong-token', { body: { auth: { type: 'bearer', token: ROTATED } } });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ sync_status: 'failed' });
    const fixed = await call('PATCH', '/v1/mcp-servers/wrong-token', { body: { auth: { type: 'bearer', token: TOKEN }, slug: 'fixed', tools: { allow: ['echo', 'a*'] } } });
    expect(fixed.status).toBe(200);
    expect(fixed.body).toMatchObject({ slug: 'fixed', sync_status: 'synced', tools: { allow: ['echo', 'a*'] }, gateway_path: '/v1/mcp/fixed' });
    expect(fixed.body).not.toHaveProperty('error');
    expectError(await call('GET', '/v1/mcp-servers/wrong-token'), 404, 'not_found');
    const metadata = await call<McpServerMetadataView>('GET', '/v1/mcp-servers/fixed/metadata');
    expect(Object.fromEntries(metadata.body.tools.map((tool) => [tool.name, tool.allowed]))).toEqual({ echo: true, add: true, delete_everything: false, whoami: false });
  });

  it('endpoint binding: a new url needs the stored token again, so a writer cannot re-point a token it never saw', async () => {
    const elsewhere = `${new URL(tools.url).origin}/other-tenant/mcp`;
    expectError(await call('PATCH', '/v1/mcp-servers/fixed', { body: { url: elsewhere } }), 400, 'stored_credential_endpoint_change', { param: 'url' });
    expect((await call('GET', '/v1/mcp-servers/fixed')).body.url).toBe(tools.url);
    // The same url, or the token sent along, is the owner's change.
    expect((await call('PATCH', '/v1/mcp-servers/fixed', { body: { url: tools.url } })).status).toBe(200);
  });

  it('validates updates and refuses a taken slug', async () => {
    expectError(await call('PATCH', '/v1/mcp-servers/fixed', { body: {} }), 400, 'invalid_request');
    expectError(await call('PATCH', '/v1/mcp-servers/fixed', { body: { slug: 'test-tools' } }), 409, 'slug_taken');
    expectError(await call('PATCH', '/v1/mcp-servers/fixed', { body: { url: 'http://169.254.169.254/' } }), 400, 'mcp_server_url_not_allowed');
    expectError(await call('PATCH', '/v1/mcp-servers/fixed', { body: { name: 'ro' }, key: readOnly }), 403, 'missing_scope');
  });

  it('deletes a server and frees its slug', async () => {
    const deleted = await call('DELETE', '/v1/mcp-servers/fixed');
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ object: 'mcp_server', deleted: true });
    expectError(await call('GET', '/v1/mcp-servers/fixed'), 404, 'not_found');
    expectError(await call('DELETE', '/v1/mcp-servers/fixed'), 404, 'not_found');
    const again = await register({ name: 'again', slug: 'fixed', url: tools.url, auth: { type: 'header', name: 'Authorization', value: `Bearer ${TOKEN}` } });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ slug: 'fixed', auth: { type: 'header', name: 'authorization' }, sync_status: 'synced' });
  });

  it('never returned a credential in any reply of this file', () => {
    const everything = JSON.stringify(replies.map((reply) => reply.body));
    expect(everything).not.toContain(TOKEN);
    expect(everything).not.toContain(ROTATED);
  });
});
