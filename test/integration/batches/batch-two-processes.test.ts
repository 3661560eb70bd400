import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settings } from '../../../shared/settings.js';
import { batchClient, type BatchTenant } from '../../support/batch-tenants.js';
import { startTestGateway, TEST_ADMIN_KEY, type TestGateway } from '../../support/gateway.js';
import { watchGwStartup } from '../../support/local-process.js';
import { startMockUpstream, type MockUpstream } from '../../support/mock-upstream.js';
import { eventually } from '../enforcement/enforcement-support.js';
import { batchProviderMock } from './mock-batch-provider.js';

// Two gw processes on one store, as two Lambda instances: this test's own and an `npm start` process pointed at
// its store (GW_DYNAMODB_ENDPOINT) and its blob folder (a batch's input and result files), as Lambdas share the
// table and the bucket. Polls of one finished batch spread over both must settle it once.
//
// 10 prompt tokens × $0.1 + 5 completion tokens × $0.05 = $1.25 a line at the standard price, $0.625 at the batch price.
const MODEL = 'batch-model';
const LINE_COST = 0.625;

const dirs: string[] = [];
const tempDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};
const pricingDir = tempDir('gw-batch-two-pricing-');
writeFileSync(join(pricingDir, 'openai.json'), JSON.stringify({ models: { [MODEL]: { input_per_mtok: 100_000, output_per_mtok: 50_000 } } }));

const mock = batchProviderMock();
let gateway: TestGateway;
let upstream: MockUpstream;
let child: ChildProcess | undefined;
let otherUrl: string;
const batches = batchClient(() => gateway);

beforeAll(async () => {
  upstream = await startMockUpstream(mock.handler);
  gateway = await startTestGateway({ MODEL_CONFIGS_PRICING_LOCAL_PATH: pricingDir });
  // This process's log database and journal are its own; the store, blob folder and prices are shared.
  const { GW_LOG_DUCKDB_PATH: _logs, GW_CHARGE_JOURNAL_DIR: _journal, ...inherited } = process.env;
  child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/main.ts'], {
    env: {
      ...inherited,
      MODEL_CONFIGS_PRICING_LOCAL_PATH: pricingDir,
      PORT: '0',
      GW_DATA_DIR: tempDir('gw-batch-two-data-'),
      GW_DYNAMODB_ENDPOINT: settings().GW_DYNAMODB_ENDPOINT!,
      GW_BLOB_DIR: process.env.GW_BLOB_DIR!,
      GW_BOOTSTRAP_API_KEY: TEST_ADMIN_KEY,
      GW_LOCAL_SCHEDULE_INTERVAL_MS: '0',
      POWERTOOLS_LOG_LEVEL: 'SILENT',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  otherUrl = await watchGwStartup(child as ChildProcess & { stdout: NonNullable<ChildProcess['stdout']>; stderr: NonNullable<ChildProcess['stderr']> }).listening;
}, 180_000);

afterAll(async () => {
  if (child?.pid !== undefined && child.exitCode === null) {
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    process.kill(-child.pid, 'SIGTERM');
    await exited;
  }
  await gateway?.close();
  await upstream?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}, 60_000);

const viaMock = () => ({ 'x-gw-provider': 'openai', 'x-gw-custom-host': `${upstream.url}/v1`, authorization: 'Bearer sk-provider-secret' });

function line(customId: string) {
  return JSON.stringify({ custom_id: customId, method: 'POST', url: '/v1/chat/completions', body: { model: MODEL, messages: [{ role: 'user', content: `Say hi to ${customId}` }], max_tokens: 20 } });
}

/** A poll of the batch through the other gw process. */
async function pollOther(who: BatchTenant, batchId: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${otherUrl}/v1/batches/${batchId}`, { headers: { 'x-gw-api-key': who.key, ...viaMock() } });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('one batch polled by two gw processes', () => {
  it('double charge across processes: concurrent polls of a finished batch through two gw processes settle it exactly once', async () => {
    const who = await batches.tenant('batch two processes', { budget: 100 });
    const fileId = await batches.fileOf(who, [line('one'), line('two')]);
    const created = await batches.call(who, 'POST', '/v1/batches', { json: { input_file_id: fileId, endpoint: '/v1/chat/completions', completion_window: '24h' }, headers: viaMock() });
    expect(created.status, created.text).toBe(200);
    const batchId = created.body.id as string;
    expect((await pollOther(who, batchId)).body.status).toBe('in_progress');

    // The provider completes the batch on the next read: eight polls, four through each process, race to settle it.
    const answers = await Promise.all(Array.from({ length: 8 }, (_, index) => (index % 2 === 0 ? batches.call(who, 'GET', `/v1/batches/${batchId}`, { headers: viaMock() }) : pollOther(who, batchId))));
    for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const done = await pollOther(who, batchId);
    expect(done.body).toMatchObject({ status: 'completed', output_file_id: expect.stringMatching(/^file-/) });
    // Either process serves the result file: it lives in the shared store and blob folder.
    expect((await batches.call(who, 'GET', `/v1/files/${done.body.output_file_id as string}/content`)).text.trim().split('\n')).toHaveLength(2);

    await eventually(async () => (Math.abs((await batches.usageOf(who.workspaceId)) - 2 * LINE_COST) < 1e-9 ? true : undefined), 'charged once');
    // Read again through both: still charged once.
    expect((await batches.call(who, 'GET', `/v1/batches/${batchId}`, { headers: viaMock() })).body.status).toBe('completed');
    expect((await pollOther(who, batchId)).body.status).toBe('completed');
    expect(await batches.usageOf(who.workspaceId)).toBeCloseTo(2 * LINE_COST, 9);
    expect(((await batches.call(who, 'GET', '/v1/files?purpose=batch_output')).body.data as unknown[]).length).toBe(1);
  });
});
