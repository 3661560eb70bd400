import { describe, expect, it } from 'vitest';
import { batchClient } from '../../support/batch-tenants.js';
import { usePricedGateway } from '../../support/priced-gateway.js';
import { requestLogsOfTrace } from '../../support/request-logs.js';
import { eventually } from '../enforcement/enforcement-support.js';
import { batchProviderMock } from './mock-batch-provider.js';

// 10 prompt tokens × $0.1 + 5 completion tokens × $0.05 = $1.25 a line at the standard price, $0.625 at the batch price.
const MODEL = 'batch-model';
const LINE_COST = 0.625;

const mock = batchProviderMock();
// A provider call gets 5 s here (600 s by default), so a slow provider is a timeout within the test.
const TIMEOUT_MS = 5_000;
const priced = usePricedGateway({ provider: 'openai', prices: { [MODEL]: { input_per_mtok: 100_000, output_per_mtok: 50_000 } }, handler: mock.handler, env: { GW_DEFAULT_REQUEST_TIMEOUT_MS: String(TIMEOUT_MS) } });
const { tenant, call, fileOf, usageOf } = batchClient(() => priced.gateway);

const viaMock = () => ({ 'x-gw-provider': 'openai', 'x-gw-custom-host': `${priced.upstream.url}/v1`, authorization: 'Bearer sk-provider-secret' });
const CREATE = (fileId: string) => ({ input_file_id: fileId, endpoint: '/v1/chat/completions', completion_window: '24h' });

function line(customId: string) {
  return JSON.stringify({ custom_id: customId, method: 'POST', url: '/v1/chat/completions', body: { model: MODEL, messages: [{ role: 'user', content: `Say hi to ${customId}` }], max_tokens: 20 } });
}

const logsOf = (traceId: string, count: number) =>
  eventually(async () => {
    const found = await requestLogsOfTrace(traceId);
    return found.length >= count ? found : undefined;
  }, `${count} logged result lines`);

describe('batches when the provider fails or its result files are faulty', () => {
  it('faulty result files: a missing, duplicated or garbled result line is charged at most once and never lost silently (error file, logs, batch errors)', async () => {
    const who = await tenant('batch faulty results', { budget: 100 });
    const fileId = await fileOf(who, [line('one'), line('dup-two'), line('lost-three'), line('garbled-four')]);
    const traceId = `batch-faulty-${Date.now()}`;
    const batchId = (await call(who, 'POST', '/v1/batches', { json: CREATE(fileId), headers: { ...viaMock(), 'x-gw-trace-id': traceId } })).body.id as string;
    await call(who, 'GET', `/v1/batches/${batchId}`, { headers: viaMock() });
    const done = await call(who, 'GET', `/v1/batches/${batchId}`, { headers: viaMock() });
    expect(done.status, done.text).toBe(200);
    expect(done.body).toMatchObject({ status: 'completed', output_file_id: expect.stringMatching(/^file-/), error_file_id: expect.stringMatching(/^file-/) });

    // The batch says what was wrong with the provider's files, naming the lines.
    const problems = (done.body.errors as { data: Array<{ code: string; line: number | null; message: string }> }).data;
    expect(problems).toEqual([
      expect.objectContaining({ code: 'duplicate_result_line', line: 3, message: expect.stringContaining("'dup-two'") }),
      expect.objectContaining({ code: 'invalid_result_line', line: 4 }),
      expect.objectContaining({ code: 'missing_results', line: null, message: expect.stringContaining('2 request(s)') }),
    ]);
    // The requests without a result are lines of gw's error file (the provider wrote none).
    const errors = (await call(who, 'GET', `/v1/files/${done.body.error_file_id as string}/content`)).text.trim().split('\n').map((text) => JSON.parse(text) as { custom_id: string; error: { code: string } });
    expect(errors.map((entry) => [entry.custom_id, entry.error.code])).toEqual([
      ['lost-three', 'batch_result_missing'],
      ['garbled-four', 'batch_result_missing'],
    ]);
    // The provider's output file is kept as it came, its broken line included.
    expect((await call(who, 'GET', `/v1/files/${done.body.output_file_id as string}/content`)).text.trim().split('\n')).toHaveLength(4);

    // Charged once per answered request: 'one' and 'dup-two', never dup-two's second line.
    await eventually(async () => (Math.abs((await usageOf(who.workspaceId)) - 2 * LINE_COST) < 1e-9 ? true : undefined), 'two lines charged');
    const logs = await logsOf(traceId, 4);
    expect(logs).toHaveLength(4);
    const byLine = Object.fromEntries(logs.map((log) => [log.metadata.custom_id, log]));
    expect(byLine['dup-two']).toMatchObject({ status: 200, cost: LINE_COST });
    expect(byLine['lost-three']).toMatchObject({ outcome: 'error', cost: 0, error: { code: 'batch_result_missing' } });
    expect(byLine['garbled-four']).toMatchObject({ outcome: 'error', cost: 0, error: { code: 'batch_result_missing' } });
  });

  it('upstream 500 on poll and on the results download: the poll answers the provider’s error, nothing is charged, and the next poll reads and charges the results exactly once', async () => {
    const who = await tenant('batch upstream faults', { budget: 100 });
    const fileId = await fileOf(who, [line('a'), line('b')]);
    const traceId = `batch-upstream-faults-${Date.now()}`;
    const batchId = (await call(who, 'POST', '/v1/batches', { json: CREATE(fileId), headers: { ...viaMock(), 'x-gw-trace-id': traceId } })).body.id as string;
    const reserved = await usageOf(who.workspaceId);
    expect(reserved).toBeGreaterThan(2 * LINE_COST);

    mock.faults.failPolls = 1;
    const failedPoll = await call(who, 'GET', `/v1/batches/${batchId}`, { headers: viaMock() });
    expect(failedPoll.status, failedPoll.text).toBeGreaterThanOrEqual(500);
    expect(failedPoll.body.error).toMatchObject({ type: 'upstream_error', message: expect.stringContaining('batch service unavailable') });
    expect((await call(who, 'GET', `/v1/batches/${batchId}`, { headers: viaMock() })).body.status).toBe('in_progress');

    // The provider finishes the batch, but its output file cannot be read.
    mock.faults.failContentReads = 1;
    const failedRead = await call(who, 'GET', `/v1/batches/${batchId}`, { headers: viaMock() });
    expect(failedRead.status, failedRead.text).toBeGreaterThanOrEqual(500);
    expect(failedRead.body.error).toMatchObject({ type: 'upstream_error', message: expect.stringContaining('file service unavailable') });
    // Not settled: the batch is finalizing, still holds its reservation, and nothing is logged.
    expect((await call(who, 'GET', '/v1/batches')).body.data).toEqual([expect.objectContaining({ id: batchId, status: 'finalizing', output_file_id: null })]);
    expect(await usageOf(who.workspaceId)).toBeCloseTo(reserved, 9);
    expect(await requestLogsOfTrace(traceId)).toEqual([]);

    const done = await call(who, 'GET', `/v1/batches/${batchId}`, { headers: viaMock() });
    expect(done.body).toMatchObject({ status: 'completed', output_file_id: expect.stringMatching(/^file-/), errors: null });
    await eventually(async () => (Math.abs((await usageOf(who.workspaceId)) - 2 * LINE_COST) < 1e-9 ? true : undefined), 'charged once');
    expect(await logsOf(traceId, 2)).toHaveLength(2);
    // Read again: not charged or logged a second time.
    expect((await call(who, 'GET', `/v1/batches/${batchId}`, { headers: viaMock() })).body.status).toBe('completed');
    expect(await usageOf(who.workspaceId)).toBeCloseTo(2 * LINE_COST, 9);
    expect(await logsOf(traceId, 2)).toHaveLength(2);
  });

  it('budget race: 200 concurrent batch creates against one workspace budget admit exactly what fits, and only those reach the provider', async () => {
    // One batch's reservation (its estimate at the standard price), measured in a workspace of its own.
    const probe = await tenant('batch race probe', { budget: 1000 });
    const probeFile = await fileOf(probe, [line('a')]);
    expect((await call(probe, 'POST', '/v1/batches', { json: CREATE(probeFile), headers: viaMock() })).status).toBe(200);
    const estimate = await usageOf(probe.workspaceId);
    expect(estimate).toBeGreaterThan(0);

    // Admitted while usage is below the limit: a limit of 9.5 estimates admits exactly 10 batches.
    const who = await tenant('batch race', { budget: 9.5 * estimate });
    const fileId = await fileOf(who, [line('a')]);
    const creates = () => priced.upstream.requests.filter((request) => request.method === 'POST' && request.path === '/v1/batches').length;
    const before = creates();
    const answers = await Promise.all(Array.from({ length: 200 }, () => call(who, 'POST', '/v1/batches', { json: CREATE(fileId), headers: viaMock() })));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status !== 200 && status !== 412), JSON.stringify(answers.find((answer) => answer.status !== 200 && answer.status !== 412)?.body)).toEqual([]);
    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    expect(answers.find((answer) => answer.status === 412)!.body.error).toMatchObject({ type: expect.any(String), code: expect.any(String) });
    expect(creates() - before).toBe(10);
    expect(await usageOf(who.workspaceId)).toBeCloseTo(10 * estimate, 6);
    expect(((await call(who, 'GET', '/v1/batches?limit=100')).body.data as unknown[]).length).toBe(10);
  });

  it('upstream timeouts on create, poll and results download: each answers gw’s timeout error (408 request_timeout), the create gives its reservation back, and the batch is read and charged once when the provider answers again', async () => {
    const who = await tenant('batch upstream timeouts', { budget: 100 });
    const fileId = await fileOf(who, [line('a')]);
    mock.faults.slowMs = TIMEOUT_MS + 2_000;

    mock.faults.slowCreates = 1;
    const timedOutCreate = await call(who, 'POST', '/v1/batches', { json: CREATE(fileId), headers: viaMock() });
    // gw's answer to a provider that did not answer in time, as for chat.
    const timedOut = { type: 'timeout_error', code: 'request_timeout' };
    expect(timedOutCreate.status, timedOutCreate.text).toBe(408);
    expect(timedOutCreate.body.error).toMatchObject(timedOut);
    await eventually(async () => ((await usageOf(who.workspaceId)) === 0 ? true : undefined), 'the reservation given back');
    expect((await call(who, 'GET', '/v1/batches')).body.data).toEqual([]);

    const traceId = `batch-timeouts-${Date.now()}`;
    const batchId = (await call(who, 'POST', '/v1/batches', { json: CREATE(fileId), headers: { ...viaMock(), 'x-gw-trace-id': traceId } })).body.id as string;
    mock.faults.slowPolls = 1;
    const timedOutPoll = await call(who, 'GET', `/v1/batches/${batchId}`, { headers: viaMock() });
    expect(timedOutPoll.status, timedOutPoll.text).toBe(408);
    expect(timedOutPoll.body.error).toMatchObject(timedOut);
    expect((await call(who, 'GET', `/v1/batches/${batchId}`, { headers: viaMock() })).body.status).toBe('in_progress');
    mock.faults.slowContentReads = 1;
    const timedOutRead = await call(who, 'GET', `/v1/batches/${batchId}`, { headers: viaMock() });
    expect(timedOutRead.status, timedOutRead.text).toBe(408);
    expect(timedOutRead.body.error).toMatchObject(timedOut);
    expect((await call(who, 'GET', '/v1/batches')).body.data).toEqual([expect.objectContaining({ id: batchId, status: 'finalizing' })]);
    expect(await requestLogsOfTrace(traceId)).toEqual([]);

    expect((await call(who, 'GET', `/v1/batches/${batchId}`, { headers: viaMock() })).body).toMatchObject({ status: 'completed', output_file_id: expect.stringMatching(/^file-/) });
    await eventually(async () => (Math.abs((await usageOf(who.workspaceId)) - LINE_COST) < 1e-9 ? true : undefined), 'charged once');
    expect(await logsOf(traceId, 1)).toHaveLength(1);
  });
});
