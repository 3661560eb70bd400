import { beforeAll, describe, expect, it } from 'vitest';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import type { MockUpstream } from '../../support/mock-upstream.js';
import { adminKeyId, chat, concurrently, createPolicy, eventually, expectedError, rateCounter, upstreamCallsFor, viaMock } from './enforcement-support.js';

// A short policy cache: every test's policy is enforced within 100 ms even without the local invalidation.
let gateway: TestGateway;
let upstream: MockUpstream;
let keyId: string;
useGatewayWithUpstream(openAIMockHandler(), (started) => ({ gateway, upstream } = started), { GW_POLICY_CACHE_TTL_MS: '100' });
beforeAll(async () => {
  keyId = await adminKeyId(gateway);
});

// 200 requests through the in-process store take a few seconds on a busy 2-core machine.
const CONCURRENT_TEST_TIMEOUT_MS = 90_000;

/** A requests policy limited to one metadata user, so each test has counters of its own. */
function requestsPolicy(user: string, value: number, overrides: Record<string, unknown> = {}) {
  return {
    name: `${user} limit`,
    conditions: [{ key: 'metadata._user', value: user }],
    group_by: [{ key: 'api_key' }],
    type: 'requests',
    // Daily windows: a test never straddles a window edge (a minute edge would split its counts).
    unit: 'rpd',
    value,
    ...overrides,
  };
}

describe('requests policies under concurrency', () => {
  it('admits exactly 50 of 200 concurrent requests; 150 get 429 with the rate-limit headers and the policy named', async () => {
    const policy = await createPolicy(gateway, 'rate-limits', requestsPolicy('burst', 50));
    const before = upstreamCallsFor(upstream, 'burst');
    const answers = await concurrently(200, () => chat(gateway, viaMock(upstream, { _user: 'burst' })));
    const admitted = answers.filter((answer) => answer.status === 200);
    const refused = answers.filter((answer) => answer.status !== 200);
    expect(admitted).toHaveLength(50);
    expect(refused).toHaveLength(150);
    for (const answer of refused) {
      expect(answer.status).toBe(429);
      expect(answer.body).toEqual(expectedError('rate_limit_exceeded', 'rate_limit_error', `"burst limit" (${policy.id}) allows 50 requests per day`));
      const retryAfter = Number(answer.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(86_400);
      expect(answer.headers.get('x-ratelimit-reset')).toBe(String(retryAfter));
      expect(answer.headers.get('x-ratelimit-limit')).toBe('50');
      expect(answer.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(answer.headers.get('x-gw-trace-id')).toBeTruthy();
    }
    // Only the admitted requests reached the provider, and the counter holds exactly what was admitted.
    expect(upstreamCallsFor(upstream, 'burst') - before).toBe(50);
    expect(await rateCounter(policy, { api_key: keyId })).toBe(50);
  }, CONCURRENT_TEST_TIMEOUT_MS);

  it('with two matching policies where one refuses, a refused request gives its slot back: the other counter ends exact', async () => {
    const tight = await createPolicy(gateway, 'rate-limits', requestsPolicy('pair', 50, { name: 'pair tight' }));
    const loose = await createPolicy(gateway, 'rate-limits', requestsPolicy('pair', 1_000, { name: 'pair loose', group_by: [{ key: 'workspace_id' }] }));
    const answers = await concurrently(200, () => chat(gateway, viaMock(upstream, { _user: 'pair' })));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(50);
    const refused = answers.filter((answer) => answer.status === 429);
    expect(refused).toHaveLength(150);
    expect(refused[0].body).toEqual(expectedError('rate_limit_exceeded', 'rate_limit_error', `"pair tight" (${tight.id})`));
    expect(await rateCounter(tight, { api_key: keyId })).toBe(50);
    expect(await rateCounter(loose, { workspace_id: gateway.bootstrap.workspaceId })).toBe(50);
  }, CONCURRENT_TEST_TIMEOUT_MS);
});

describe('which policies apply', () => {
  it('counts each group_by value apart: another metadata user has a counter of its own', async () => {
    const policy = await createPolicy(gateway, 'rate-limits', requestsPolicy('*', 2, { name: 'per user', group_by: [{ key: 'metadata._user' }], conditions: [{ key: 'metadata.team', value: 'grouping' }] }));
    const send = (user: string) => chat(gateway, viaMock(upstream, { _user: user, team: 'grouping' }));
    const alice = [await send('alice'), await send('alice'), await send('alice')].map((answer) => answer.status);
    const bob = [await send('bob'), await send('bob')].map((answer) => answer.status);
    expect(alice).toEqual([200, 200, 429]);
    expect(bob).toEqual([200, 200]);
    expect(await rateCounter(policy, { 'metadata._user': 'alice' })).toBe(2);
    expect(await rateCounter(policy, { 'metadata._user': 'bob' })).toBe(2);
  });

  it('applies only when every condition holds (model, provider, metadata), * matching any value', async () => {
    await createPolicy(gateway, 'rate-limits', requestsPolicy('conditions', 1, {
      name: 'gpt-4o only',
      conditions: [{ key: 'metadata._user', value: 'conditions' }, { key: 'model', value: 'gpt-4o' }, { key: 'provider', value: '*' }],
    }));
    const send = (model: string) => chat(gateway, viaMock(upstream, { _user: 'conditions' }), { ...{ messages: [{ role: 'user', content: 'Hi' }] }, model });
    expect((await send('gpt-4o-mini')).status).toBe(200);
    expect((await send('gpt-4o-mini')).status).toBe(200);
    expect((await send('gpt-4o')).status).toBe(200);
    const refused = await send('gpt-4o');
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(expectedError('rate_limit_exceeded', 'rate_limit_error', '"gpt-4o only"'));
  });

  it('skips archived policies: a request over an archived policy’s limit passes', async () => {
    const policy = await createPolicy(gateway, 'rate-limits', requestsPolicy('archived', 1));
    expect((await chat(gateway, viaMock(upstream, { _user: 'archived' }))).status).toBe(200);
    expect((await chat(gateway, viaMock(upstream, { _user: 'archived' }))).status).toBe(429);
    const archive = await fetch(`${gateway.url}/v1/policies/rate-limits/${policy.id}/archive`, { method: 'POST', headers: { 'x-gw-api-key': gateway.apiKey } });
    expect(archive.status).toBe(200);
    expect((await chat(gateway, viaMock(upstream, { _user: 'archived' }))).status).toBe(200);
  });

  it('a raised limit is in force for the next request (the change reaches the gateway)', async () => {
    const policy = await createPolicy(gateway, 'rate-limits', requestsPolicy('raised', 1));
    expect((await chat(gateway, viaMock(upstream, { _user: 'raised' }))).status).toBe(200);
    expect((await chat(gateway, viaMock(upstream, { _user: 'raised' }))).status).toBe(429);
    const update = await fetch(`${gateway.url}/v1/policies/rate-limits/${policy.id}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'x-gw-api-key': gateway.apiKey },
      body: JSON.stringify({ value: 3 }),
    });
    expect(update.status).toBe(200);
    expect((await chat(gateway, viaMock(upstream, { _user: 'raised' }))).status).toBe(200);
  });

  it('a request that gw refuses before any provider answered gives its slot back', async () => {
    const policy = await createPolicy(gateway, 'rate-limits', requestsPolicy('refused-by-gw', 5));
    // No model: the leaf refuses the call (400) before anything is sent upstream.
    const bad = await chat(gateway, viaMock(upstream, { _user: 'refused-by-gw' }), { messages: [{ role: 'user', content: 'Hi' }] });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual(expectedError('missing_model', 'invalid_request_error', '`model` is required', 'model'));
    // The slot is given back after the answer (in the background): wait for it.
    await eventually(async () => ((await rateCounter(policy, { api_key: keyId })) === 0 ? true : undefined), 'the slot to be given back');
    expect(upstreamCallsFor(upstream, 'refused-by-gw')).toBe(0);
  });

  it('an upstream failure still counts: the request reached the provider', async () => {
    const policy = await createPolicy(gateway, 'rate-limits', requestsPolicy('upstream-fails', 5));
    upstream.setHandler(() => ({ status: 400, json: { error: { message: 'bad', type: 'invalid_request_error' } } }));
    try {
      const answer = await chat(gateway, viaMock(upstream, { _user: 'upstream-fails' }));
      expect(answer.status).toBe(400);
    } finally {
      upstream.setHandler(openAIMockHandler());
    }
    expect(await rateCounter(policy, { api_key: keyId })).toBe(1);
  });
});
