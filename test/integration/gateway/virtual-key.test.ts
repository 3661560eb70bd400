import { format } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { VirtualKeyView } from '../../../shared/control-plane/virtual-keys/schemas.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import { startMockUpstream, type MockUpstream } from '../../support/mock-upstream.js';
import { readSseEvents } from '../../support/sse-client.js';
import { api, expectError, newKey, newWorkspace, type Reply } from '../control-plane/identities-support.js';

/** The credential under test: it must reach the provider and nothing else (no reply, no log line). */
const SENTINEL = 'sk-gateway-vk-sentinel-5d2e9b7c41';
const ROTATED = 'sk-gateway-vk-rotated-a8f3e6c2d0';

let gateway: TestGateway;
let upstream: MockUpstream;
let otherWorkspaceKey: string;
const captured: string[] = [];
const replyTexts: string[] = [];

beforeAll(async () => {
  // Everything written to stdout/stderr or the console from here on is captured (and kept off the test output).
  for (const stream of [process.stdout, process.stderr]) {
    vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      captured.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      return true;
    });
  }
  for (const method of ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void captured.push(format(...args)));
  }
  upstream = await startMockUpstream(openAIMockHandler());
  // No virtual-key cache in this file, so rotation and deletion show at once (the cache has its own unit test).
  gateway = await startTestGateway({ POWERTOOLS_LOG_LEVEL: 'DEBUG', GW_VIRTUAL_KEY_CACHE_TTL_MS: '0' });
  // The logger was built (by this file's imports) while the runner's SILENT level was in force: capture at DEBUG.
  (await import('../../../shared/observability/logger.js')).logger.setLogLevel('DEBUG');
  const other = await newWorkspace(gateway);
  otherWorkspaceKey = (await newKey(gateway, { workspace_id: other.id, scopes: ['completions:write', 'virtual_keys:read', 'virtual_keys:write'] })).key;
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
  vi.restoreAllMocks();
});

async function createKey(body: Record<string, unknown>, key?: string): Promise<VirtualKeyView> {
  const reply = await api<VirtualKeyView>(gateway, 'POST', '/v1/virtual-keys', { body, key });
  replyTexts.push(JSON.stringify(reply.body));
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body;
}

const chat = (extra: Record<string, unknown> = {}) => ({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }], ...extra });

/** A gateway call whose reply text is kept for the final scan. */
async function post(body: unknown, headers: Record<string, string>, apiKey = gateway.apiKey): Promise<Reply<Record<string, unknown>> & { text: string }> {
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gw-api-key': apiKey, ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  replyTexts.push(text, JSON.stringify([...response.headers.entries()]));
  const parsed = response.headers.get('content-type')?.includes('json') ? (JSON.parse(text) as Record<string, unknown>) : {};
  return { status: response.status, headers: response.headers, body: parsed, text };
}

const lastAuthorization = () => upstream.requests.at(-1)!.headers.authorization;

describe('x-gw-virtual-key on the gateway', () => {
  it('calls the key’s provider with the stored credential', async () => {
    const key = await createKey({ provider: 'openai', credential: SENTINEL, custom_host: upstream.url });
    const reply = await post(chat(), { 'x-gw-virtual-key': key.id });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.headers.get('x-gw-provider')).toBe('openai');
    expect((reply.body.choices as Array<{ message: { content: string } }>)[0].message.content).toBe('Hello from the mock provider!');
    expect(lastAuthorization()).toBe(`Bearer ${SENTINEL}`);
    expect(upstream.requests.at(-1)!.headers['x-gw-virtual-key']).toBeUndefined();
  });

  it('uses the stored credential even when the client also sends Authorization (SDKs always do)', async () => {
    const key = await createKey({ provider: 'openai', credential: SENTINEL, custom_host: upstream.url });
    const reply = await post(chat(), { 'x-gw-virtual-key': key.id, authorization: 'Bearer sk-client-placeholder' });
    expect(reply.status, reply.text).toBe(200);
    expect(lastAuthorization()).toBe(`Bearer ${SENTINEL}`);
  });

  it('accepts x-gw-provider naming the key’s own provider and refuses another one', async () => {
    const key = await createKey({ provider: 'openai', credential: SENTINEL, custom_host: upstream.url });
    expect((await post(chat(), { 'x-gw-virtual-key': key.id, 'x-gw-provider': 'openai' })).status).toBe(200);
    const mismatch = await post(chat(), { 'x-gw-virtual-key': key.id, 'x-gw-provider': 'groq' });
    expectError(mismatch, 400, 'virtual_key_provider_mismatch', { param: 'x-gw-provider', message: /'openai'/ });
  });

  it('sends the stored credential to an x-gw-custom-host only when the key allow-lists it (docs/security.md)', async () => {
    const key = await createKey({ provider: 'openai', credential: SENTINEL, custom_host: 'http://127.0.0.1:9/v1' });
    const before = upstream.requests.length;
    const refused = await post(chat(), { 'x-gw-virtual-key': key.id, 'x-gw-custom-host': upstream.url });
    expectError(refused, 400, 'stored_credential_custom_host', { param: 'x-gw-custom-host' });
    expect(upstream.requests.length).toBe(before);
    const allowing = await createKey({ provider: 'openai', credential: SENTINEL, custom_host: 'http://127.0.0.1:9/v1', allowed_custom_hosts: [new URL(upstream.url).origin] });
    const reply = await post(chat(), { 'x-gw-virtual-key': allowing.id, 'x-gw-custom-host': upstream.url });
    expect(reply.status, reply.text).toBe(200);
    expect(upstream.requests.length).toBe(before + 1);
  });

  it('fills Azure settings from the key and lets explicit x-gw-azure-* headers override them', async () => {
    const key = await createKey({
      provider: 'azure-openai',
      credential: SENTINEL,
      custom_host: upstream.url,
      azure: { resource_name: 'my-resource', deployment_id: 'stored-deployment', api_version: '2024-10-21' },
    });
    const stored = await post(chat(), { 'x-gw-virtual-key': key.id });
    expect(stored.status, stored.text).toBe(200);
    expect(stored.headers.get('x-gw-provider')).toBe('azure-openai');
    const seen = upstream.requests.at(-1)!;
    expect(seen.path).toBe('/openai/deployments/stored-deployment/chat/completions');
    expect(seen.query.get('api-version')).toBe('2024-10-21');
    expect(seen.headers['api-key']).toBe(SENTINEL);

    const overridden = await post(chat(), { 'x-gw-virtual-key': key.id, 'x-gw-azure-deployment-id': 'header-deployment' });
    expect(overridden.status, overridden.text).toBe(200);
    expect(upstream.requests.at(-1)!.path).toBe('/openai/deployments/header-deployment/chat/completions');
    expect(upstream.requests.at(-1)!.query.get('api-version')).toBe('2024-10-21');
  });

  it('resolves virtual_key in a config target', async () => {
    const key = await createKey({ provider: 'openai', credential: SENTINEL, custom_host: upstream.url });
    const reply = await post(chat(), { 'x-gw-config': JSON.stringify({ virtual_key: key.id }) });
    expect(reply.status, reply.text).toBe(200);
    expect(lastAuthorization()).toBe(`Bearer ${SENTINEL}`);
  });

  it('streams with a virtual key', async () => {
    const key = await createKey({ provider: 'openai', credential: SENTINEL, custom_host: upstream.url });
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gw-api-key': gateway.apiKey, 'x-gw-virtual-key': key.id },
      body: JSON.stringify(chat({ stream: true })),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const events = await readSseEvents(response);
    replyTexts.push(JSON.stringify(events));
    expect(events.at(-1)?.data).toBe('[DONE]');
    const text = events
      .filter((event) => event.data !== '[DONE]')
      .map((event) => (JSON.parse(event.data) as { choices: Array<{ delta: { content?: string } }> }).choices[0]?.delta.content ?? '')
      .join('');
    expect(text).toBe('Hello from the mock provider!');
    expect(lastAuthorization()).toBe(`Bearer ${SENTINEL}`);
  });

  it('uses a rotated credential and refuses a deleted key', async () => {
    const key = await createKey({ provider: 'openai', credential: SENTINEL, custom_host: upstream.url });
    const rotated = await api(gateway, 'PATCH', `/v1/virtual-keys/${key.id}`, { body: { credential: ROTATED } });
    replyTexts.push(JSON.stringify(rotated.body));
    expect(rotated.status).toBe(200);
    expect((await post(chat(), { 'x-gw-virtual-key': key.id })).status).toBe(200);
    expect(lastAuthorization()).toBe(`Bearer ${ROTATED}`);

    expect((await api(gateway, 'DELETE', `/v1/virtual-keys/${key.id}`)).status).toBe(200);
    expectError(await post(chat(), { 'x-gw-virtual-key': key.id }), 400, 'virtual_key_not_found', { param: 'x-gw-virtual-key' });
  });

  it('answers an unknown key and another workspace’s key identically, so existence does not leak', async () => {
    const theirs = await createKey({ provider: 'openai', credential: SENTINEL, custom_host: upstream.url }, otherWorkspaceKey);
    const foreign = await post(chat(), { 'x-gw-virtual-key': theirs.id });
    const unknown = await post(chat(), { 'x-gw-virtual-key': '00000000-0000-0000-0000-000000000000' });
    expectError(foreign, 400, 'virtual_key_not_found', { param: 'x-gw-virtual-key' });
    expect(foreign.body).toEqual(unknown.body);
    expectError(await post(chat(), { 'x-gw-virtual-key': 'not a valid id!' }), 400, 'virtual_key_not_found');
    // Its own workspace may use it.
    expect((await post(chat(), { 'x-gw-virtual-key': theirs.id }, otherWorkspaceKey)).status).toBe(200);
  });
});

describe('the stored credential', () => {
  it('appears in no reply and in no log line (logs captured at DEBUG)', async () => {
    // Imported only now: importing it earlier would build the logger before POWERTOOLS_LOG_LEVEL=DEBUG is set.
    const { drainAllBackgroundWork } = await import('../../../shared/observability/background.js');
    await drainAllBackgroundWork();
    const logs = captured.join('');
    // The capture works: the gateway's own request lines are in it.
    expect(logs).toContain('request completed');
    expect(upstream.requests.some((request) => request.headers.authorization === `Bearer ${SENTINEL}`)).toBe(true);
    for (const secret of [SENTINEL, ROTATED]) {
      expect(logs).not.toContain(secret);
      for (const text of replyTexts) expect(text).not.toContain(secret);
    }
  });
});
