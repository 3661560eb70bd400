import { beforeAll, describe, expect, it } from 'vitest';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import type { MockUpstream } from '../../support/mock-upstream.js';
import { chat, viaMock } from '../enforcement/enforcement-support.js';
import { installStoreReadGate, type StoreReadGate } from '../hot-caches/hot-cache-support.js';

/**
 * What "is this header a gw key?" costs (docs/security.md, "gw's key is never a provider key"): gw's prefix and the
 * request's own key are compared without a read, and a provider key or a forwarded header's value is looked up by
 * hash once per process, then answered from memory. So a warm request carrying a provider key and forwarded headers
 * costs no store read at all for it. Class: the gw-key check adding store round trips to normal requests.
 */
let gateway: TestGateway;
let upstream: MockUpstream;
let gate: StoreReadGate;
useGatewayWithUpstream(openAIMockHandler(), (started) => ({ gateway, upstream } = started));
beforeAll(() => {
  gate = installStoreReadGate();
});

describe('the gw-key check on a normal request', () => {
  it('costs no store read once warm, with a provider key and forwarded headers', async () => {
    const headers = { ...viaMock(upstream, { _user: 'key-check-cost' }), 'x-gw-api-key': gateway.apiKey, 'x-gw-forward-headers': 'x-tenant-id', 'x-tenant-id': 'tenant-42' };
    expect((await chat(gateway, headers)).status).toBe(200);
    await drainAllBackgroundWork();

    gate.resetCount();
    for (let i = 0; i < 3; i++) expect((await chat(gateway, headers)).status).toBe(200);
    expect(gate.reads()).toBe(0);
    // The provider key and the forwarded header went on: only gw keys are taken out.
    const last = upstream.requests.at(-1)!;
    expect(last.headers.authorization).toBe('Bearer sk-provider-secret');
    expect(last.headers['x-tenant-id']).toBe('tenant-42');
  });

  it('costs no store read once warm for headers a config’s forward_headers names', async () => {
    const config = { provider: 'openai', forward_headers: ['x-tenant-id'] };
    const headers = { ...viaMock(upstream, { _user: 'key-check-cost-config' }), 'x-gw-api-key': gateway.apiKey, 'x-gw-config': JSON.stringify(config), 'x-tenant-id': 'tenant-43' };
    expect((await chat(gateway, headers)).status).toBe(200);
    await drainAllBackgroundWork();

    gate.resetCount();
    for (let i = 0; i < 3; i++) expect((await chat(gateway, headers)).status).toBe(200);
    expect(gate.reads()).toBe(0);
    expect(upstream.requests.at(-1)!.headers['x-tenant-id']).toBe('tenant-43');
  });
});
