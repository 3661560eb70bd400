import { beforeAll, describe, expect, it } from 'vitest';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import type { MockUpstream } from '../../support/mock-upstream.js';
import { chat, viaMock } from '../enforcement/enforcement-support.js';
import { createKeyDirectly, installStoreReadGate, revokeElsewhere, sleep, type StoreReadGate } from './hot-cache-support.js';

/**
 * The hard bound of the hot caches: past TTL + GW_CACHE_MAX_STALE_MS a request waits for a fresh read, so a key
 * revoked in another process stops working within that bound even when the entry sat idle or every refresh failed.
 */
const TTL_MS = 200;
// Long enough that a busy machine's drain of the after-path cannot eat the stale window the test relies on.
const MAX_STALE_MS = 2_000;
const PAST_THE_BOUND_MS = TTL_MS + MAX_STALE_MS + 100;
let gateway: TestGateway;
let upstream: MockUpstream;
let gate: StoreReadGate;
useGatewayWithUpstream(openAIMockHandler(), (started) => ({ gateway, upstream } = started), {
  GW_AUTH_CACHE_TTL_MS: String(TTL_MS),
  GW_POLICY_CACHE_TTL_MS: String(TTL_MS),
  GW_CACHE_MAX_STALE_MS: String(MAX_STALE_MS),
});
beforeAll(() => {
  gate = installStoreReadGate();
});

describe('hot caches past their maximum staleness', () => {
  it('refuse a key revoked elsewhere on the first request after TTL + max staleness, with no stale answer', async () => {
    const { raw, record } = await createKeyDirectly(gateway);
    const headers = { ...viaMock(upstream, { _user: 'bound-idle' }), 'x-gw-api-key': raw };
    expect((await chat(gateway, headers)).status).toBe(200);
    await drainAllBackgroundWork();
    await revokeElsewhere(record);
    await sleep(PAST_THE_BOUND_MS);
    const answer = await chat(gateway, headers);
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ error: { code: 'api_key_revoked' } });
  });

  it('keep serving the cached key while refreshes fail, until the bound; then wait for the store and fail closed', async () => {
    const { raw } = await createKeyDirectly(gateway);
    const headers = { ...viaMock(upstream, { _user: 'bound-failing' }), 'x-gw-api-key': raw };
    expect((await chat(gateway, headers)).status).toBe(200);
    await drainAllBackgroundWork();
    await sleep(TTL_MS + 20);
    gate.failReads(true);
    try {
      // Stale, and its refresh fails (logged): the cached value keeps answering.
      const first = await chat(gateway, headers);
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      await sleep(20);
      expect((await chat(gateway, headers)).status).toBe(200);
      await sleep(PAST_THE_BOUND_MS);
      // Past the bound the request needs the store, which is down: no answer from the old entry.
      const answer = await chat(gateway, headers);
      expect(answer.status).toBeGreaterThanOrEqual(500);
    } finally {
      gate.failReads(false);
    }
    expect((await chat(gateway, headers)).status).toBe(200);
  });
});
