import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeyAuthenticator } from '../../../shared/auth/authenticate.js';
import { healthHandler } from '../../../shared/gateway/health.js';
import { isGatewayPath } from '../../../shared/gateway/edge-routes.js';
import type { NeutralRequest } from '../../../shared/http/types.js';
import type { ApiKeyRepository } from '../../../shared/store/api-key-repository.js';
import packageJson from '../../../package.json' with { type: 'json' };
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { api, expectError, newKey } from '../control-plane/identities-support.js';

let gateway: TestGateway;
let workspaceKey: string;

beforeAll(async () => {
  gateway = await startTestGateway();
  workspaceKey = (await newKey(gateway, { scopes: ['logs:read', 'completions:write'] })).key;
});
afterAll(async () => {
  await gateway?.close();
});

function healthRequest(query: Record<string, string> = {}, headers: Record<string, string> = {}): NeutralRequest {
  return { method: 'GET', path: '/health', headers, query, body: Buffer.alloc(0) };
}

describe('GET /health', () => {
  it('answers 200 with the version, without a key, outside /v1', async () => {
    const response = await fetch(`${gateway.url}/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok', version: packageJson.version });
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(isGatewayPath('/health')).toBe(true);
  });

  it('makes no store call: it answers even when every store read would fail', async () => {
    const brokenRepository = { findByHash: () => Promise.reject(new Error('store down')) } as unknown as ApiKeyRepository;
    const handler = healthHandler(new ApiKeyAuthenticator(brokenRepository), () => Promise.reject(new Error('store down')));
    const response = await handler(healthRequest(), {});
    expect(response.status).toBe(200);
    expect(JSON.parse(String(response.body))).toEqual({ status: 'ok', version: packageJson.version });
  });

  it('checks the store with ?deep=true and an admin key', async () => {
    const reply = await api<{ status: string; version: string; checks: { store: { status: string; latency_ms: number } } }>(gateway, 'GET', '/health?deep=true');
    expect(reply.status).toBe(200);
    // The local runtime writes request logs itself: its log engine is reported beside the store (issue #42).
    expect(reply.body).toEqual({
      status: 'ok',
      version: packageJson.version,
      checks: { store: { status: 'ok', latency_ms: expect.any(Number) }, log_engine: { status: 'ok', pending_bytes: expect.any(Number), pending_in_memory: 0, dropped_records: 0, worker_restarts: 0, last_run: { replayed: 0, lost: 0, unrecorded: 0 } } },
    });
    const bearer = await api(gateway, 'GET', '/health?deep=true', { bearer: gateway.apiKey });
    expect(bearer.status).toBe(200);
  });

  it('refuses a deep check without a key (401), with a workspace key (403) and a bad deep value (400)', async () => {
    expect((await api(gateway, 'GET', '/health?deep=true', { key: null })).status).toBe(401);
    expectError(await api(gateway, 'GET', '/health?deep=true', { key: workspaceKey }), 403, 'admin_required');
    expectError(await api(gateway, 'GET', '/health?deep=yes'), 400, 'invalid_request', { param: 'deep' });
  });

  it('answers 503 when the store fails a deep check (real key lookup, failing store probe)', async () => {
    const handler = healthHandler(new ApiKeyAuthenticator(), () => Promise.reject(new Error('connect ECONNREFUSED')), async () => undefined);
    const response = await handler(healthRequest({ deep: 'true' }, { 'x-gw-api-key': gateway.apiKey }), {});
    expect(response.status).toBe(503);
    expect(JSON.parse(String(response.body))).toEqual({ status: 'unavailable', version: packageJson.version, checks: { store: { status: 'failed', latency_ms: expect.any(Number) } } });
  });
});
