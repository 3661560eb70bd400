import { beforeAll, describe, expect, it } from 'vitest';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import type { MockUpstream } from '../../support/mock-upstream.js';
import { adminKeyId, chat, concurrently, createPolicy, eventually, expectedError, rateCounter, requestLog, viaMock } from './enforcement-support.js';

// The OpenAI mock reports 21 tokens (9 prompt + 12 completion) for every chat completion.
const TOKENS_PER_REQUEST = 21;

let gateway: TestGateway;
let upstream: MockUpstream;
let keyId: string;
useGatewayWithUpstream(openAIMockHandler(), (started) => ({ gateway, upstream } = started), { GW_POLICY_CACHE_TTL_MS: '100' });
beforeAll(async () => {
  keyId = await adminKeyId(gateway);
});

function tokensPolicy(user: string, value: number) {
  return { name: `${user} tokens`, conditions: [{ key: 'metadata._user', value: user }], group_by: [{ key: 'api_key' }], type: 'tokens', unit: 'rpd', value };
}

/** The counter once every admitted request's tokens have been added (charging runs after the response). */
async function settledCounter(policy: Parameters<typeof rateCounter>[0], expected: number): Promise<number> {
  return eventually(async () => {
    const count = await rateCounter(policy, { api_key: keyId });
    return count === expected ? count : undefined;
  }, `the token counter to reach ${expected}`);
}

describe('tokens policies', () => {
  it('adds the real total tokens after the response; refuses with 429 once the window reached the limit', async () => {
    const policy = await createPolicy(gateway, 'rate-limits', tokensPolicy('sequential', 50));
    const statuses: number[] = [];
    for (let index = 0; index < 3; index++) {
      const answer = await chat(gateway, viaMock(upstream, { _user: 'sequential' }));
      statuses.push(answer.status);
      if (answer.status === 200) await settledCounter(policy, TOKENS_PER_REQUEST * (index + 1));
    }
    // 0 → 21 → 42 are below 50 and admitted; at 63 the window is full.
    expect(statuses).toEqual([200, 200, 200]);
    const refused = await chat(gateway, viaMock(upstream, { _user: 'sequential' }));
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(expectedError('rate_limit_exceeded', 'rate_limit_error', `"sequential tokens" (${policy.id}) allows 50 tokens per day`));
    expect(refused.headers.get('x-ratelimit-limit')).toBe('50');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('a soft (estimate-free) policy under concurrency: overshoot stays within its documented bound, the tokens of the requests in flight', async () => {
    const limit = 100;
    const inFlight = 10;
    const policy = await createPolicy(gateway, 'rate-limits', { ...tokensPolicy('waves', limit), enforcement: 'soft' });
    let admitted = 0;
    let refusedWave = false;
    // Waves of 10 concurrent requests until the policy refuses: each wave starts below the limit.
    for (let wave = 0; wave < 20 && !refusedWave; wave++) {
      const answers = await concurrently(inFlight, () => chat(gateway, viaMock(upstream, { _user: 'waves' })));
      const waveAdmitted = answers.filter((answer) => answer.status === 200).length;
      admitted += waveAdmitted;
      refusedWave = answers.some((answer) => answer.status === 429);
      if (!refusedWave) await settledCounter(policy, admitted * TOKENS_PER_REQUEST);
    }
    expect(refusedWave).toBe(true);
    const counted = await settledCounter(policy, admitted * TOKENS_PER_REQUEST);
    // Every admitted request saw the window below the limit, so at most `inFlight` requests were past it.
    expect(counted).toBeGreaterThanOrEqual(limit);
    expect(counted).toBeLessThan(limit + inFlight * TOKENS_PER_REQUEST);
    expect((await chat(gateway, viaMock(upstream, { _user: 'waves' }))).status).toBe(429);
  });

  it('charges a streamed response when its stream ends, from the usage the provider reported', async () => {
    const policy = await createPolicy(gateway, 'rate-limits', tokensPolicy('streamed', 1_000));
    const answer = await chat(gateway, viaMock(upstream, { _user: 'streamed' }), { model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'Hi' }] });
    expect(answer.status).toBe(200);
    expect(String(answer.body.text)).toContain('data: [DONE]');
    expect(await settledCounter(policy, TOKENS_PER_REQUEST)).toBe(TOKENS_PER_REQUEST);
  });

  it('a request refused by a tokens policy consumes nothing of a requests policy it also matches', async () => {
    const tokens = await createPolicy(gateway, 'rate-limits', tokensPolicy('mixed', 20));
    const requests = await createPolicy(gateway, 'rate-limits', { ...tokensPolicy('mixed', 100), name: 'mixed requests', type: 'requests' });
    expect((await chat(gateway, viaMock(upstream, { _user: 'mixed' }))).status).toBe(200);
    await settledCounter(tokens, TOKENS_PER_REQUEST);
    const refused = await chat(gateway, viaMock(upstream, { _user: 'mixed' }));
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(expectedError('rate_limit_exceeded', 'rate_limit_error', '"mixed tokens"'));
    expect(await rateCounter(requests, { api_key: keyId })).toBe(1);
  });

  it('does not charge a response served from gw’s cache: no provider was used', async () => {
    const policy = await createPolicy(gateway, 'rate-limits', tokensPolicy('cached', 1_000));
    const config = JSON.stringify({ provider: 'openai', api_key: 'sk-provider-secret', custom_host: upstream.url, cache: { mode: 'simple' } });
    const headers = { 'x-gw-config': config, 'x-gw-metadata': JSON.stringify({ _user: 'cached' }) };
    const first = await chat(gateway, headers);
    expect(first.headers.get('x-gw-cache-status')).toBe('MISS');
    await settledCounter(policy, TOKENS_PER_REQUEST);
    const second = await chat(gateway, { ...headers, 'x-gw-trace-id': `cache-hit-${Date.now()}` });
    expect(second.status).toBe(200);
    expect(second.headers.get('x-gw-cache-status')).toBe('HIT');
    // The hit's log record is written after its settlement: from then on its charge (none) has landed.
    expect((await requestLog(second.headers.get('x-gw-trace-id')!)).cost).toBe(0);
    expect(await rateCounter(policy, { api_key: keyId })).toBe(TOKENS_PER_REQUEST);
  });
});
