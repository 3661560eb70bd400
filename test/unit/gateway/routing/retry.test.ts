import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../shared/http/errors.js';
import { RetriedFailure, retryAfterMs, withRetries, type RetryClock } from '../../../../shared/gateway/routing/retry.js';

/** A fake clock: sleeping only moves time forward, so backoff is checked without waiting. */
function fakeClock(randomValue = 0.999): RetryClock & { sleeps: number[]; time: number } {
  const clock = {
    time: 0,
    sleeps: [] as number[],
    now: () => clock.time,
    sleep: async (ms: number) => {
      clock.sleeps.push(ms);
      clock.time += ms;
    },
    random: () => randomValue,
  };
  return clock;
}

const upstreamError = (status: number, headers: Record<string, string> = {}) => new GatewayError(status, 'provider_error', 'failed', { upstream: true, headers });

async function failingThen(failures: GatewayError[], clock: RetryClock, attempts: number, deadline = 1e12, codes?: number[]) {
  let calls = 0;
  const result = await withRetries(
    { attempts, on_status_codes: codes },
    deadline,
    async () => {
      const failure = failures[calls++];
      if (failure) throw failure;
      return 'ok';
    },
    clock,
  ).catch((error: unknown) => error);
  return { result, calls };
}

describe('retries', () => {
  it('retries the default codes with exponential backoff and full jitter', async () => {
    const clock = fakeClock(0.999);
    const { result, calls } = await failingThen([upstreamError(503), upstreamError(429), upstreamError(500)], clock, 5);
    expect(result).toEqual({ value: 'ok', retries: 3 });
    expect(calls).toBe(4);
    // Full jitter: each wait is below base * 2^retry (200, 400, 800 ms).
    expect(clock.sleeps).toEqual([199, 399, 799]);
  });

  it('draws the wait uniformly from [0, ceiling)', async () => {
    const clock = fakeClock(0);
    await failingThen([upstreamError(503), upstreamError(503)], clock, 5);
    expect(clock.sleeps).toEqual([0, 0]);
  });

  it('gives up after the configured attempts and reports how many retries it took', async () => {
    const clock = fakeClock();
    const { result, calls } = await failingThen([upstreamError(503), upstreamError(503), upstreamError(503)], clock, 2);
    expect(result).toBeInstanceOf(RetriedFailure);
    expect((result as RetriedFailure).retries).toBe(2);
    expect(calls).toBe(3);
  });

  it('does not retry a status outside the codes, nor gw own errors', async () => {
    const clock = fakeClock();
    expect((await failingThen([upstreamError(400)], clock, 3)).calls).toBe(1);
    expect((await failingThen([new GatewayError(503, 'x', 'gw side')], clock, 3)).calls).toBe(1);
    expect((await failingThen([upstreamError(418)], clock, 3, 1e12, [418])).calls).toBe(2);
  });

  it('always retries network errors and first-byte timeouts', async () => {
    const clock = fakeClock();
    const unreachable = new GatewayError(502, 'upstream_unreachable', 'down', { upstream: true });
    const timeout = new GatewayError(408, 'request_timeout', 'slow', { upstream: true });
    expect((await failingThen([unreachable, timeout], clock, 2, 1e12, [429])).result).toEqual({ value: 'ok', retries: 2 });
  });

  it('honours retry-after and retry-after-ms, capped at 60 s', async () => {
    const clock = fakeClock();
    await failingThen([upstreamError(429, { 'retry-after': '2' }), upstreamError(429, { 'retry-after-ms': '150' }), upstreamError(429, { 'retry-after': '3600' })], clock, 5);
    expect(clock.sleeps).toEqual([2000, 150, 60_000]);
  });

  it('never waits past the request deadline', async () => {
    const clock = fakeClock();
    const { result, calls } = await failingThen([upstreamError(429, { 'retry-after': '30' })], clock, 3, 10_000);
    expect(result).toBeInstanceOf(RetriedFailure);
    expect(calls).toBe(1);
    expect(clock.sleeps).toEqual([]);
  });

  it('reads retry-after as an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs({ 'retry-after': 'Thu, 01 Jan 2026 00:00:05 GMT' }, now)).toBe(5000);
    expect(retryAfterMs({ 'retry-after': 'soon' }, now)).toBeUndefined();
  });
});
