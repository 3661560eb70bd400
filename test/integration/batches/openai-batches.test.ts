import { describe, expect, it } from 'vitest';
import { createKey } from '../control-plane/policies-support.js';
import { batchClient } from '../../support/batch-tenants.js';
import { usePricedGateway } from '../../support/priced-gateway.js';
import { requestLogsOfTrace } from '../../support/request-logs.js';
import { eventually } from '../enforcement/enforcement-support.js';
import { batchProviderMock } from './mock-batch-provider.js';

// Round prices for the test model: 10 prompt tokens × $0.1 + 5 completion tokens × $0.05 = $1.25 per line at the
// standard price, $0.625 at OpenAI's batch price (half).
const MODEL = 'batch-model';
const LINE_COST = 0.625;

const mock = batchProviderMock();
const priced = usePricedGateway({ provider: 'openai', prices: { [MODEL]: { input_per_mtok: 100_000, output_per_mtok: 50_000 } }, handler: mock.handler, env: { GW_POLICY_CACHE_TTL_MS: '100' } });
const { tenant, call, upload, usageOf } = batchClient(() => priced.gateway);

const viaMock = () => ({ 'x-gw-provider': 'openai', 'x-gw-custom-host': `${priced.upstream.url}/v1`, authorization: 'Bearer sk-provider-secret' });

function line(customId: string, model = MODEL) {
  return JSON.stringify({ custom_id: customId, method: 'POST', url: '/v1/chat/completions', body: { model, messages: [{ role: 'user', content: `Say hi to ${customId}` }], max_tokens: 20 } });
}

describe('files and batches against OpenAI (a mock as a real HTTP server)', () => {
  it('runs end to end: upload, create, poll, read results; each result line is a logged request, the batch charged at the batch price', async () => {
    const who = await tenant('batch end to end', { budget: 100 });
    const file = await upload(who, [line('one'), line('two'), line('fail-three')]);
    expect(file.status, file.text).toBe(200);
    expect(file.body).toMatchObject({ object: 'file', purpose: 'batch', filename: 'input.jsonl', status: 'processed' });
    const fileId = file.body.id as string;
    expect((await call(who, 'GET', `/v1/files/${fileId}`)).body).toMatchObject({ id: fileId, bytes: file.body.bytes });
    expect((await call(who, 'GET', '/v1/files')).body).toMatchObject({ object: 'list', data: [expect.objectContaining({ id: fileId })], has_more: false });

    const traceId = `batch-e2e-${Date.now()}`;
    const created = await call(who, 'POST', '/v1/batches', { json: { input_file_id: fileId, endpoint: '/v1/chat/completions', completion_window: '24h', metadata: { team: 'a' } }, headers: { ...viaMock(), 'x-gw-trace-id': traceId } });
    expect(created.status, created.text).toBe(200);
    expect(created.body).toMatchObject({ object: 'batch', input_file_id: fileId, status: 'validating', endpoint: '/v1/chat/completions', metadata: { team: 'a' } });
    // The provider got the lines as sent and OpenAI's batch body, with the provider credential, never gw's key.
    const providerUpload = priced.upstream.requests.find((request) => request.path === '/v1/files')!;
    expect(providerUpload.headers.authorization).toBe('Bearer sk-provider-secret');
    expect(providerUpload.body).toContain('"custom_id":"fail-three"');
    expect(JSON.stringify(priced.upstream.requests.map((request) => request.headers))).not.toContain(who.key);
    // While it runs, the batch holds a reservation on the budget (its estimate at the standard price).
    expect(await usageOf(who.workspaceId)).toBeGreaterThan(3 * 1.25);

    const batchId = created.body.id as string;
    const polled = await call(who, 'GET', `/v1/batches/${batchId}`, { headers: viaMock() });
    expect(polled.body.status).toBe('in_progress');
    const done = await call(who, 'GET', `/v1/batches/${batchId}`, { headers: viaMock() });
    expect(done.status, done.text).toBe(200);
    expect(done.body).toMatchObject({ status: 'completed', output_file_id: expect.stringMatching(/^file-/), error_file_id: expect.stringMatching(/^file-/) });

    const output = await call(who, 'GET', `/v1/files/${done.body.output_file_id as string}/content`);
    expect(output.text.trim().split('\n').map((text) => (JSON.parse(text) as { custom_id: string }).custom_id)).toEqual(['one', 'two']);
    const errors = await call(who, 'GET', `/v1/files/${done.body.error_file_id as string}/content`);
    expect(errors.text).toContain('fail-three');

    // OpenAI's batch usage: the answered lines' tokens, summed.
    expect(done.body.usage).toEqual({ input_tokens: 20, output_tokens: 10, total_tokens: 30, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } });
    // The reservation is replaced by the two answered lines at the batch price.
    await eventually(async () => (Math.abs((await usageOf(who.workspaceId)) - 2 * LINE_COST) < 1e-9 ? true : undefined), 'the batch charged at the batch price');
    const logs = await eventually(async () => {
      const found = await requestLogsOfTrace(traceId);
      return found.length === 3 ? found : undefined;
    }, 'three logged result lines');
    const byLine = Object.fromEntries(logs.map((log) => [log.metadata.custom_id, log]));
    expect(byLine.one).toMatchObject({ workspace_id: who.workspaceId, provider: 'openai', model: MODEL, status: 200, cost: LINE_COST, endpoint: 'chat', metadata: { batch_id: batchId, team: 'a' } });
    expect(byLine.one.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });
    expect(byLine['fail-three']).toMatchObject({ status: 400, outcome: 'error', cost: 0, error: { code: 'invalid_value' } });

    // Read again, the batch is not charged or logged twice.
    expect((await call(who, 'GET', `/v1/batches/${batchId}`, { headers: viaMock() })).body.status).toBe('completed');
    expect(await usageOf(who.workspaceId)).toBeCloseTo(2 * LINE_COST, 9);
    expect((await call(who, 'GET', '/v1/batches')).body).toMatchObject({ data: [expect.objectContaining({ id: batchId, status: 'completed' })] });
  });

  it('workspace isolation: a file or batch id of another workspace is 404 on every route, and never listed', async () => {
    const owner = await tenant('batch owner');
    const other = await tenant('batch other');
    const fileId = (await upload(owner, [line('a')])).body.id as string;
    const batch = await call(owner, 'POST', '/v1/batches', { json: { input_file_id: fileId, endpoint: '/v1/chat/completions', completion_window: '24h' }, headers: viaMock() });
    const batchId = batch.body.id as string;
    for (const [method, path] of [
      ['GET', `/v1/files/${fileId}`],
      ['GET', `/v1/files/${fileId}/content`],
      ['DELETE', `/v1/files/${fileId}`],
      ['GET', `/v1/batches/${batchId}`],
      ['POST', `/v1/batches/${batchId}/cancel`],
    ]) {
      const answer = await call(other, method, path, { headers: viaMock() });
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(answer.body.error).toMatchObject({ type: 'not_found_error' });
    }
    const stolen = await call(other, 'POST', '/v1/batches', { json: { input_file_id: fileId, endpoint: '/v1/chat/completions', completion_window: '24h' }, headers: viaMock() });
    expect(stolen.status).toBe(404);
    expect(stolen.body.error).toMatchObject({ code: 'file_not_found', param: 'file_id' });
    expect((await call(other, 'GET', '/v1/files')).body.data).toEqual([]);
    expect((await call(other, 'GET', '/v1/batches')).body.data).toEqual([]);
    // Still the owner's.
    expect((await call(owner, 'GET', `/v1/files/${fileId}`)).status).toBe(200);
  });

  it('scopes: a key without completions:write is refused on files and batches with 403, on every route, even for ids of its own workspace', async () => {
    const owner = await tenant('batch scope owner');
    const fileId = (await upload(owner, [line('a')])).body.id as string;
    const batchId = (await call(owner, 'POST', '/v1/batches', { json: { input_file_id: fileId, endpoint: '/v1/chat/completions', completion_window: '24h' }, headers: viaMock() })).body.id as string;
    // A weaker key of the same workspace.
    const key = await createKey({ organisationId: priced.gateway.bootstrap.organisationId, workspaceId: owner.workspaceId, scopes: ['logs:read'] });
    const reader = { workspaceId: owner.workspaceId, key: key.raw };
    for (const [method, path] of [
      ['GET', '/v1/files'],
      ['GET', `/v1/files/${fileId}`],
      ['GET', `/v1/files/${fileId}/content`],
      ['DELETE', `/v1/files/${fileId}`],
      ['GET', '/v1/batches'],
      ['POST', '/v1/batches'],
      ['GET', `/v1/batches/${batchId}`],
      ['POST', `/v1/batches/${batchId}/cancel`],
    ]) {
      const answer = await call(reader, method, path, { json: method === 'POST' ? {} : undefined });
      expect(answer.status, `${method} ${path}`).toBe(403);
      expect(answer.body.error).toMatchObject({ code: 'missing_scope' });
    }
    expect((await upload(reader, [line('x')])).status).toBe(403);
    expect((await call(owner, 'GET', `/v1/files/${fileId}`)).status).toBe(200);
  });

  it('bad input is a 400 naming what is wrong, before anything reaches the provider', async () => {
    const who = await tenant('batch bad input');
    const before = priced.upstream.requests.length;
    expect((await upload(who, ['{"custom_id":"a"', line('b')])).body.error).toMatchObject({ code: 'invalid_batch_file', message: expect.stringContaining('line 1'), param: 'file' });
    expect((await upload(who, [line('a'), line('a')])).body.error).toMatchObject({ code: 'invalid_batch_file', message: expect.stringContaining('used twice') });
    expect((await upload(who, [line('a')], 'fine-tune')).body.error).toMatchObject({ code: 'invalid_purpose', param: 'purpose' });
    const mixed = (await upload(who, [line('a'), line('b', 'other-model')])).body.id as string;
    const answer = await call(who, 'POST', '/v1/batches', { json: { input_file_id: mixed, endpoint: '/v1/chat/completions', completion_window: '24h' }, headers: viaMock() });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: 'batch_mixed_models', param: 'input_file_id' });
    const window = await call(who, 'POST', '/v1/batches', { json: { input_file_id: mixed, endpoint: '/v1/chat/completions', completion_window: '1h' }, headers: viaMock() });
    expect(window.body.error).toMatchObject({ code: 'invalid_body', param: 'completion_window' });
    expect((await call(who, 'GET', '/v1/files/not-a-file')).status).toBe(404);
    // A presigned upload needs a blob store that presigns (S3); this gw keeps files in a local folder.
    const presigned = await call(who, 'POST', '/v1/files', { json: { filename: 'big.jsonl', purpose: 'batch', bytes: 100 } });
    expect(presigned.body.error).toMatchObject({ code: 'presigned_upload_unavailable' });
    expect(priced.upstream.requests.length).toBe(before);
  });

  it('too large: an upload past the body limit (GW_MAX_BODY_BYTES, 10 MiB) is 413 body_too_large in gw’s error shape, and nothing is stored', async () => {
    const who = await tenant('batch too large');
    const padding = 'x'.repeat(10 * 1024 * 1024);
    const answer = await upload(who, [JSON.stringify({ custom_id: 'big', method: 'POST', url: '/v1/chat/completions', body: { model: MODEL, messages: [{ role: 'user', content: padding }] } })]);
    expect(answer.status, answer.text.slice(0, 300)).toBe(413);
    expect(answer.body.error).toMatchObject({ code: 'body_too_large', type: expect.any(String), message: expect.stringContaining('limit') });
    expect((await call(who, 'GET', '/v1/files')).body.data).toEqual([]);
  });

  it('budget: a running batch holds its reservation, so the next batch of a budget it fills is a 412 before anything reaches the provider', async () => {
    const who = await tenant('batch over budget', { budget: 1 });
    const fileId = (await upload(who, [line('a'), line('b')])).body.id as string;
    const create = () => call(who, 'POST', '/v1/batches', { json: { input_file_id: fileId, endpoint: '/v1/chat/completions', completion_window: '24h' }, headers: viaMock() });
    // gw's budget rule: admitted while the usage (settled plus reserved) is below the limit.
    expect((await create()).status).toBe(200);
    expect(await usageOf(who.workspaceId)).toBeGreaterThan(1);
    const before = priced.upstream.requests.length;
    const refused = await create();
    expect(refused.status, refused.text).toBe(412);
    expect(priced.upstream.requests.length).toBe(before);
  });

  it('a provider that fails the create gives the reservation back: the budget is not held by a batch that never ran', async () => {
    const who = await tenant('batch provider failure', { budget: 100 });
    const fileId = (await upload(who, [line('a')])).body.id as string;
    mock.failCreate.status = 503;
    try {
      const answer = await call(who, 'POST', '/v1/batches', { json: { input_file_id: fileId, endpoint: '/v1/chat/completions', completion_window: '24h' }, headers: viaMock() });
      expect(answer.status).toBe(503);
      expect(answer.body.error).toMatchObject({ type: 'upstream_error', message: expect.stringContaining('batch service unavailable') });
    } finally {
      mock.failCreate.status = undefined;
    }
    await eventually(async () => ((await usageOf(who.workspaceId)) === 0 ? true : undefined), 'the reservation given back');
    expect((await call(who, 'GET', '/v1/batches')).body.data).toEqual([]);
  });

  it('cancel: the batch ends cancelled, with nothing to charge, and its reservation is given back', async () => {
    const who = await tenant('batch cancel', { budget: 100 });
    const fileId = (await upload(who, [line('a'), line('b')])).body.id as string;
    const batchId = (await call(who, 'POST', '/v1/batches', { json: { input_file_id: fileId, endpoint: '/v1/chat/completions', completion_window: '24h' }, headers: viaMock() })).body.id as string;
    expect(await usageOf(who.workspaceId)).toBeGreaterThan(0);
    const cancelling = await call(who, 'POST', `/v1/batches/${batchId}/cancel`, { headers: viaMock() });
    expect(cancelling.status, cancelling.text).toBe(200);
    expect(cancelling.body.status).toBe('cancelling');
    const cancelled = await call(who, 'GET', `/v1/batches/${batchId}`, { headers: viaMock() });
    expect(cancelled.body).toMatchObject({ status: 'cancelled', output_file_id: null });
    await eventually(async () => ((await usageOf(who.workspaceId)) === 0 ? true : undefined), 'the reservation given back');
    expect((await call(who, 'POST', `/v1/batches/${batchId}/cancel`, { headers: viaMock() })).body.error).toMatchObject({ code: 'batch_finished' });
  });

  it('double charge: polls that see the same finished batch at once charge and log it exactly once', async () => {
    const who = await tenant('batch concurrent polls', { budget: 100 });
    const fileId = (await upload(who, [line('a')])).body.id as string;
    const traceId = `batch-once-${Date.now()}`;
    const batchId = (await call(who, 'POST', '/v1/batches', { json: { input_file_id: fileId, endpoint: '/v1/chat/completions', completion_window: '24h' }, headers: { ...viaMock(), 'x-gw-trace-id': traceId } })).body.id as string;
    await call(who, 'GET', `/v1/batches/${batchId}`, { headers: viaMock() });
    // The provider now reports the batch completed to every poll.
    mock.batches.get([...mock.batches.keys()].at(-1)!)!.status = 'in_progress';
    const answers = await Promise.all(Array.from({ length: 4 }, () => call(who, 'GET', `/v1/batches/${batchId}`, { headers: viaMock() })));
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    const final = await call(who, 'GET', `/v1/batches/${batchId}`, { headers: viaMock() });
    expect(final.body.status).toBe('completed');
    await eventually(async () => (Math.abs((await usageOf(who.workspaceId)) - LINE_COST) < 1e-9 ? true : undefined), 'charged once');
    const logs = await eventually(async () => {
      const found = await requestLogsOfTrace(traceId);
      return found.length > 0 ? found : undefined;
    }, 'the logged line');
    expect(logs).toHaveLength(1);
    expect(await usageOf(who.workspaceId)).toBeCloseTo(LINE_COST, 9);
  });

  it('list paging in OpenAI’s shape: limit, after and has_more page through files and batches (files also order=asc), a bad limit, cursor or order is a 400 naming it', async () => {
    const who = await tenant('batch paging');
    const files: string[] = [];
    for (const name of ['p1', 'p2', 'p3']) files.push((await upload(who, [line(name)])).body.id as string);
    const first = await call(who, 'GET', '/v1/files?limit=2');
    expect(first.body).toMatchObject({ object: 'list', first_id: files[2], last_id: files[1], has_more: true });
    expect((first.body.data as Array<{ id: string }>).map((file) => file.id)).toEqual([files[2], files[1]]);
    const rest = await call(who, 'GET', `/v1/files?limit=2&after=${files[1]}`);
    expect(rest.body).toMatchObject({ data: [expect.objectContaining({ id: files[0] })], first_id: files[0], last_id: files[0], has_more: false });
    const oldest = await call(who, 'GET', '/v1/files?limit=2&order=asc');
    expect((oldest.body.data as Array<{ id: string }>).map((file) => file.id)).toEqual([files[0], files[1]]);
    expect(oldest.body.has_more).toBe(true);
    expect((await call(who, 'GET', `/v1/files?order=asc&after=${files[1]}`)).body).toMatchObject({ data: [expect.objectContaining({ id: files[2] })], has_more: false });

    const batches: string[] = [];
    for (const fileId of files) batches.push((await call(who, 'POST', '/v1/batches', { json: { input_file_id: fileId, endpoint: '/v1/chat/completions', completion_window: '24h' }, headers: viaMock() })).body.id as string);
    const page = await call(who, 'GET', '/v1/batches?limit=2');
    expect((page.body.data as Array<{ id: string }>).map((batch) => batch.id)).toEqual([batches[2], batches[1]]);
    expect(page.body).toMatchObject({ object: 'list', first_id: batches[2], last_id: batches[1], has_more: true });
    expect((await call(who, 'GET', `/v1/batches?limit=2&after=${batches[1]}`)).body).toMatchObject({ data: [expect.objectContaining({ id: batches[0] })], has_more: false });

    for (const [path, code, param] of [
      ['/v1/files?limit=0', 'invalid_limit', 'limit'],
      ['/v1/files?limit=10001', 'invalid_limit', 'limit'],
      ['/v1/batches?limit=101', 'invalid_limit', 'limit'],
      ['/v1/files?after=nope', 'invalid_cursor', 'after'],
      ['/v1/batches?after=nope', 'invalid_cursor', 'after'],
      ['/v1/files?order=sideways', 'invalid_order', 'order'],
    ]) {
      const answer = await call(who, 'GET', path);
      expect(answer.status, path).toBe(400);
      expect(answer.body.error).toMatchObject({ code, param, type: 'invalid_request_error' });
    }
  });
});
