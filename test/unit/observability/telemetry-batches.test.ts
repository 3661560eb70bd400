import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import { logger } from '../../../shared/observability/logger.js';
import { recordAuthenticationFailureMetric, recordRequestMetrics } from '../../../shared/observability/metrics.js';
import { logRequestCompleted } from '../../../shared/observability/request-line.js';

// What the after-path prints per request: the `request completed` lines and the EMF metrics, both gathered between
// writes instead of written per request (issue #34), and nothing lost at the drain.

const writes: string[] = [];
const linesOf = (text: string) => text.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as Record<string, unknown>);

beforeAll(() => {
  // The test runner's SILENT level would silence both: this file wants them.
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
  logger.setLogLevel('INFO');
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    writes.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return true;
  });
});

afterAll(() => {
  vi.restoreAllMocks();
  delete process.env.POWERTOOLS_METRICS_DISABLED;
});

describe('the request completed lines', () => {
  it('go out together in one write at the drain, each whole, in order, with its fields', async () => {
    writes.length = 0;
    for (const trace of ['t1', 't2', 't3']) logRequestCompleted({ trace_id: trace, workspace_id: 'ws-1', status: 200, model: 'gpt "quoted"\nmodel', latency_ms: 1.5 });
    expect(writes).toEqual([]);
    await drainAllBackgroundWork();
    const completed = writes.filter((text) => text.includes('request completed'));
    expect(completed).toHaveLength(1);
    const lines = linesOf(completed[0]);
    expect(lines.map((line) => line.trace_id)).toEqual(['t1', 't2', 't3']);
    expect(lines[0]).toMatchObject({ level: 'INFO', message: 'request completed', service: 'gw', workspace_id: 'ws-1', status: 200, model: 'gpt "quoted"\nmodel', latency_ms: 1.5 });
    expect(typeof lines[0].timestamp).toBe('string');
  });

  it('are not written at all when the log level is above INFO', async () => {
    writes.length = 0;
    logger.setLogLevel('WARN');
    logRequestCompleted({ trace_id: 'quiet' });
    await drainAllBackgroundWork();
    logger.setLogLevel('INFO');
    expect(writes.join('')).not.toContain('request completed');
  });
});

describe('metrics with Powertools loaded on first publish (out of the cold start)', () => {
  // First in the file to publish a metric: Powertools is not loaded yet when it is given.
  it('publish a one-off metric given before Powertools loaded, by the end of the drain', async () => {
    writes.length = 0;
    recordAuthenticationFailureMetric('invalid_api_key');
    await drainAllBackgroundWork();
    const line = writes.flatMap(linesOf).find((candidate) => 'authentication_failures' in candidate);
    expect(line).toMatchObject({ authentication_failures: 1, reason: 'invalid_api_key' });
  });
});

describe('request metrics', () => {
  it('publish the counts summed, one value each, and every latency sample', async () => {
    writes.length = 0;
    const finished = { latency_ms: 10, ttft_ms: null, usage: { prompt_tokens: 9, completion_tokens: 12, total_tokens: 21, cached_tokens: 0, reasoning_tokens: 0 }, cost: 0.25, cache_status: 'DISABLED', outcome: 'success' as const, status: 200, error: null, attempts: [{ provider: 'openai', status: 200 }] };
    recordRequestMetrics(finished);
    recordRequestMetrics({ ...finished, latency_ms: 20, cache_status: 'HIT' });
    recordRequestMetrics({ ...finished, latency_ms: 30, usage: null, cost: null, outcome: 'error', status: 502, error: { type: 'upstream_error', code: 'http_502', message: 'bad' }, attempts: [{ provider: 'openai', status: 502 }, { provider: 'anthropic', status: 500 }, { provider: 'openai', status: 503 }] });
    await drainAllBackgroundWork();
    const emf = writes.flatMap(linesOf).filter((line) => '_aws' in line);
    const main = emf.find((line) => 'requests' in line)!;
    expect(main).toMatchObject({ requests: 3, latency: [10, 20, 30], prompt_tokens: 18, completion_tokens: 24, cost_usd: 0.5, cache_hits: 1, errors: 1 });
    const upstream = Object.fromEntries(emf.filter((line) => 'upstream_errors' in line).map((line) => [line.provider, line.upstream_errors]));
    expect(upstream).toEqual({ openai: 2, anthropic: 1 });
  });
});
describe('metrics published in batches', () => {
  it('keep every latency sample, at most 100 to an EMF line (a metric holds no more values)', async () => {
    writes.length = 0;
    const finished = { latency_ms: 1, ttft_ms: null, usage: null, cost: null, cache_status: null, outcome: 'success' as const, status: 200, error: null, attempts: [] };
    for (let index = 0; index < 150; index++) recordRequestMetrics({ ...finished, latency_ms: index });
    await drainAllBackgroundWork();
    const samples = writes.flatMap(linesOf).filter((line) => 'latency' in line).map((line) => [line.latency].flat() as number[]);
    for (const values of samples) expect(values.length).toBeLessThanOrEqual(100);
    expect(samples.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: 150 }, (_, index) => index));
  });
});
