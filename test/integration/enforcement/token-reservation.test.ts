import { beforeAll, describe, expect, it } from 'vitest';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import type { MockUpstream } from '../../support/mock-upstream.js';
import { adminKeyId, chat, concurrently, createPolicy, eventually, expectedError, rateCounter, viaMock } from './enforcement-support.js';

// GW_TOKEN_LIMIT_RESERVATION=ON: a tokens policy reserves the whole estimate (prompt tokens + max_tokens) only
// where it fits under the limit, and settles the difference after. The prompt "Hi" counts 5 tokens (1 + the
// message framing), so max_tokens 30 reserves 35; the mock uses 21 tokens per request.
const TOKENS_PER_REQUEST = 21;

let gateway: TestGateway;
let upstream: MockUpstream;
let keyId: string;
useGatewayWithUpstream(openAIMockHandler(), (started) => ({ gateway, upstream } = started), { GW_POLICY_CACHE_TTL_MS: '100', GW_TOKEN_LIMIT_RESERVATION: 'ON' });
beforeAll(async () => {
  keyId = await adminKeyId(gateway);
});

const policyFor = (user: string, value: number) => ({ name: `${user} reserved`, conditions: [{ key: 'metadata._user', value: user }], group_by: [{ key: 'api_key' }], type: 'tokens', unit: 'rpd', value });
const withMaxTokens = (maxTokens: number) => ({ model: 'gpt-4o-mini', max_tokens: maxTokens, messages: [{ role: 'user', content: 'Hi' }] });

async function counterReaches(policy: Parameters<typeof rateCounter>[0], expected: number): Promise<number> {
  return eventually(async () => ((await rateCounter(policy, { api_key: keyId })) === expected ? expected : undefined), `the counter to reach ${expected}`);
}

describe('tokens policies with max_tokens reservation', () => {
  it('never lets concurrent requests past the limit when their usage stays within max_tokens', async () => {
    const policy = await createPolicy(gateway, 'rate-limits', policyFor('concurrent', 100));
    // Responses are held a little so reservations overlap: only two 35-token reservations fit in 100.
    const answer = openAIMockHandler();
    upstream.setHandler(async (request) => ({ ...(await answer(request)), delayMs: 50 }));
    let answers;
    try {
      answers = await concurrently(20, () => chat(gateway, viaMock(upstream, { _user: 'concurrent' }), withMaxTokens(30)));
    } finally {
      upstream.setHandler(openAIMockHandler());
    }
    const admitted = answers.filter((answer) => answer.status === 200).length;
    expect(admitted).toBeGreaterThanOrEqual(2);
    for (const answer of answers.filter((candidate) => candidate.status !== 200)) {
      expect(answer.status).toBe(429);
      expect(answer.body).toEqual(expectedError('rate_limit_exceeded', 'rate_limit_error', '"concurrent reserved"'));
    }
    // After settling, the counter holds the real tokens only, and never more than the limit.
    const counted = await counterReaches(policy, admitted * TOKENS_PER_REQUEST);
    expect(counted).toBeLessThanOrEqual(100);
  });

  it('refuses a request whose max_tokens can never fit the limit', async () => {
    const policy = await createPolicy(gateway, 'rate-limits', policyFor('too-big', 100));
    const answer = await chat(gateway, viaMock(upstream, { _user: 'too-big' }), withMaxTokens(500));
    expect(answer.status).toBe(429);
    expect(answer.headers.get('x-ratelimit-limit')).toBe('100');
    expect(await rateCounter(policy, { api_key: keyId })).toBe(0);
  });

  it('gives the reservation back when the provider fails', async () => {
    const policy = await createPolicy(gateway, 'rate-limits', policyFor('fails', 100));
    upstream.setHandler(() => ({ status: 400, json: { error: { message: 'bad request', type: 'invalid_request_error' } } }));
    try {
      expect((await chat(gateway, viaMock(upstream, { _user: 'fails' }), withMaxTokens(30))).status).toBe(400);
    } finally {
      upstream.setHandler(openAIMockHandler());
    }
    expect(await counterReaches(policy, 0)).toBe(0);
    // Without max_tokens the model's default output ceiling is reserved (16,384 for gpt-4o-mini): it can never
    // fit a 100-token limit in this strict mode, so the request is refused and nothing stays reserved.
    expect((await chat(gateway, viaMock(upstream, { _user: 'fails' }))).status).toBe(429);
    expect((await chat(gateway, viaMock(upstream, { _user: 'fails' }), withMaxTokens(30))).status).toBe(200);
    expect(await counterReaches(policy, TOKENS_PER_REQUEST)).toBe(TOKENS_PER_REQUEST);
  });
});
