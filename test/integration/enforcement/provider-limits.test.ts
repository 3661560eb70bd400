import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import { costOfUsage } from '../../../shared/observability/pricing/index.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import { startMockUpstream, type MockUpstream } from '../../support/mock-upstream.js';
import { chat, concurrently, eventually } from './enforcement-support.js';
import { createWorkspaceProvider, providerCounter, viaProvider } from './provider-support.js';

// A workspace provider's tokens limit and budget reserve like the workspace's own limits (issue #30): 200
// concurrent requests pass them by at most one request. The mock answers every chat with 21 total tokens
// (9 prompt, 12 completion); max_tokens 20 makes each request's estimate an upper bound of its real usage.
const BODY = { model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 20 };
const USAGE = { prompt_tokens: 9, completion_tokens: 12, total_tokens: 21 };
/** 200 concurrent requests through the whole pipeline, on a machine shared with other test runs. */
const CONCURRENT = { timeout: 120_000 };

let gateway: TestGateway;
let upstream: MockUpstream;
let failing: MockUpstream;

beforeAll(async () => {
  upstream = await startMockUpstream(openAIMockHandler());
  failing = await startMockUpstream(() => ({ status: 500, json: { error: { message: 'upstream broke', type: 'server_error' } } }));
  gateway = await startTestGateway();
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
  await failing?.close();
});

describe('workspace provider limits reserve under concurrency', () => {
  it('a tokens limit: 200 concurrent requests pass it by at most one request', CONCURRENT, async () => {
    const limit = 21 * 10;
    const provider = await createWorkspaceProvider(gateway, upstream.url, 'tokens-limited', { rate_limits: [{ type: 'tokens', unit: 'rpd', value: limit }] });
    const answers = await concurrently(200, () => chat(gateway, viaProvider(provider.slug), BODY));
    const admitted = answers.filter((answer) => answer.status === 200).length;
    expect(answers.filter((answer) => answer.status !== 200).every((answer) => answer.status === 429)).toBe(true);
    expect(admitted).toBeGreaterThan(0);
    // At most one request past the limit: the limit's worth of requests plus the last one admitted.
    expect(admitted).toBeLessThanOrEqual(limit / 21 + 1);
    await drainAllBackgroundWork();
    const used = await providerCounter(provider, { type: 'tokens', unit: 'rpd' });
    expect(used).toBe(admitted * 21);
    expect(used).toBeLessThan(limit + 21);
  });

  it('a budget: 200 concurrent requests pass it by at most one request’s cost', CONCURRENT, async () => {
    const perRequest = (await costOfUsage('openai', 'gpt-4o', USAGE))!;
    expect(perRequest).toBeGreaterThan(0);
    const limitUsd = perRequest * 10;
    const provider = await createWorkspaceProvider(gateway, upstream.url, 'budgeted', { budget: { limit_usd: limitUsd, period: 'monthly' } });
    const answers = await concurrently(200, () => chat(gateway, viaProvider(provider.slug), BODY));
    const admitted = answers.filter((answer) => answer.status === 200).length;
    expect(answers.filter((answer) => answer.status !== 200).every((answer) => answer.status === 412)).toBe(true);
    expect(admitted).toBeGreaterThan(0);
    expect(admitted).toBeLessThanOrEqual(11);
    await drainAllBackgroundWork();
    const spent = await providerCounter(provider, { budget: 'monthly' });
    expect(spent).toBeCloseTo(admitted * perRequest, 12);
    expect(spent).toBeLessThan(limitUsd + perRequest);
    const refused = answers.find((answer) => answer.status === 412)!;
    expect(refused.body).toMatchObject({ error: { code: 'budget_exhausted', message: expect.stringContaining('@budgeted') }, status: 'failure' });
  });

  it('a request limit stays exact, and a refused request takes nothing from the provider’s other limits', CONCURRENT, async () => {
    const provider = await createWorkspaceProvider(gateway, upstream.url, 'requests-limited', {
      rate_limits: [
        { type: 'requests', unit: 'rpd', value: 5 },
        { type: 'tokens', unit: 'rpd', value: 1_000_000 },
      ],
    });
    const answers = await concurrently(200, () => chat(gateway, viaProvider(provider.slug), BODY));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(5);
    expect(answers.filter((answer) => answer.status === 429)).toHaveLength(195);
    await drainAllBackgroundWork();
    expect(await providerCounter(provider, { type: 'requests', unit: 'rpd' })).toBe(5);
    // Only the 5 admitted requests' real tokens: the 195 refused gave their reservations back.
    expect(await providerCounter(provider, { type: 'tokens', unit: 'rpd' })).toBe(5 * 21);
  });
});

describe('a provider request slot when the request fails', () => {
  it('is given back when the upstream call fails, so the limit still admits its full count', CONCURRENT, async () => {
    const provider = await createWorkspaceProvider(gateway, failing.url, 'flaky', { rate_limits: [{ type: 'requests', unit: 'rpd', value: 3 }] });
    for (let attempt = 0; attempt < 6; attempt++) {
      const answer = await chat(gateway, viaProvider(provider.slug), BODY);
      expect(answer.status).toBe(500);
    }
    await drainAllBackgroundWork();
    await eventually(async () => ((await providerCounter(provider, { type: 'requests', unit: 'rpd' })) === 0 ? true : undefined), 'the slots to return');
    failing.setHandler(openAIMockHandler());
    const statuses = [];
    for (let attempt = 0; attempt < 4; attempt++) statuses.push((await chat(gateway, viaProvider(provider.slug), BODY)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  it('is given back when a workspace policy refuses the request', async () => {
    const provider = await createWorkspaceProvider(gateway, upstream.url, 'behind-a-policy', { rate_limits: [{ type: 'requests', unit: 'rpd', value: 100 }] });
    const policy = await fetch(`${gateway.url}/v1/policies/rate-limits`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gw-api-key': gateway.apiKey },
      body: JSON.stringify({ conditions: [{ key: 'metadata.team', value: 'capped' }], group_by: [{ key: 'metadata.team' }], type: 'requests', unit: 'rpd', value: 1 }),
    });
    expect(policy.status).toBe(201);
    const headers = viaProvider(provider.slug, { 'x-gw-metadata': JSON.stringify({ team: 'capped' }) });
    expect((await chat(gateway, headers, BODY)).status).toBe(200);
    for (let attempt = 0; attempt < 3; attempt++) expect((await chat(gateway, headers, BODY)).status).toBe(429);
    await drainAllBackgroundWork();
    expect(await providerCounter(provider, { type: 'requests', unit: 'rpd' })).toBe(1);
  });
});
