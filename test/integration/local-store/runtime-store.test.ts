import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListTablesCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localStoreAt, startEmbeddedStore } from '../../../infra/local/embedded-store.js';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import { settings } from '../../../shared/settings.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { watchGwStartup } from '../../support/local-process.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import { startMockUpstream, type MockUpstream } from '../../support/mock-upstream.js';
import { childrenOf, isAlive, storeClient, until } from './store-support.js';

// The local runtime with its store in a process of its own (the default), and pointed at a store of someone
// else's with GW_DYNAMODB_ENDPOINT.

const KEY = 'gwk_local_store_test_key_0123456789';
let upstream: MockUpstream;
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-runtime-store-'));
  dirs.push(dir);
  return dir;
};

beforeAll(async () => {
  const answer = openAIMockHandler();
  // Requests for model "slow" are in flight long enough for a signal to arrive mid-request.
  upstream = await startMockUpstream(async (request) => ({ ...(await answer(request)), delayMs: request.body.includes('"slow"') ? 1_500 : 0 }));
});
afterAll(async () => {
  await upstream?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const chat = (url: string, traceId: string, model = 'gpt-4o-mini') =>
  fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gw-api-key': KEY, 'x-gw-provider': 'openai', 'x-gw-custom-host': upstream.url, authorization: 'Bearer sk-x', 'x-gw-trace-id': traceId },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Hi' }] }),
  });

/** infra/local/main.ts as `npm start` runs it (node with the tsx loader), in a process group of its own. */
function startMain(env: Record<string, string>) {
  // The test gateway above exported its own store's endpoint into this process's environment: not for gw.
  const { GW_DYNAMODB_ENDPOINT: _ours, ...inherited } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/main.ts'], {
    env: { ...inherited, PORT: '0', GW_BOOTSTRAP_API_KEY: KEY, POWERTOOLS_LOG_LEVEL: 'SILENT', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  return { child, pid: child.pid!, ...watchGwStartup(child) };
}

async function logRecordsOf(endpoint: string, traceId: string): Promise<number> {
  const client = storeClient(endpoint);
  try {
    const logs = await client.send(new ScanCommand({ TableName: 'gw-logs', FilterExpression: 'trace_id = :trace', ExpressionAttributeValues: { ':trace': { S: traceId } } }));
    return logs.Items?.length ?? 0;
  } finally {
    client.destroy();
  }
}

describe('the runtime with its store in a child process', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    process.env.GW_LOCAL_STORE = 'child';
    gateway = await startTestGateway({ GW_LOCAL_LOG_MAX_RECORDS: '3', GW_LOCAL_TTL_SWEEP_INTERVAL_MS: '0', GW_REQUEST_LOGS: 'ON' });
  }, 60_000);
  afterAll(async () => {
    await gateway?.close();
  });

  it('serves requests from the store process, and the log cap from settings is applied there', async () => {
    const store = localStoreAt(settings().GW_DYNAMODB_ENDPOINT!)!;
    expect(store.kind).toBe('child');
    expect(childrenOf(process.pid)).toContain(store.pid);
    for (let index = 0; index < 5; index++) {
      const response = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-gw-api-key': gateway.apiKey, 'x-gw-provider': 'openai', 'x-gw-custom-host': upstream.url, authorization: 'Bearer sk-x', 'x-gw-trace-id': `capped-${index}`, 'x-gw-metadata': JSON.stringify({ team: `t${index}` }) },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] }),
      });
      expect(response.status).toBe(200);
      await response.text();
    }
    await drainAllBackgroundWork(10_000);
    expect(await store.housekeeping!.pass()).toEqual({ expired: 0, capped: 2, expiredBlobs: 0 });
    const listed = await fetch(`${gateway.url}/v1/logs?limit=50`, { headers: { 'x-gw-api-key': gateway.apiKey } });
    expect(listed.status).toBe(200);
    const traces = ((await listed.json()) as { data?: Array<{ trace_id: string }>; items?: Array<{ trace_id: string }> });
    expect((traces.data ?? traces.items ?? []).map((record) => record.trace_id).sort()).toEqual(['capped-2', 'capped-3', 'capped-4']);
    // Every index row of a capped record went with it (the metadata rows included); the kept ones still have theirs.
    const client = storeClient(settings().GW_DYNAMODB_ENDPOINT!);
    const items = (await client.send(new ScanCommand({ TableName: 'gw-logs' }))).Items ?? [];
    client.destroy();
    const pointedAt = new Set(items.filter((item) => item.ref_pk).map((item) => item.ref_pk.S!));
    const records = new Set(items.filter((item) => item.pk.S!.startsWith('TRACE#')).map((item) => item.pk.S!));
    expect([...pointedAt].sort()).toEqual([...records].sort());
    expect(items.some((item) => item.pk.S!.includes('LOGIDX#meta.team#t0'))).toBe(false);
    expect(items.some((item) => item.pk.S!.includes('LOGIDX#meta.team#t4'))).toBe(true);
  });

  it('closing the runtime closes the store process', async () => {
    const store = localStoreAt(settings().GW_DYNAMODB_ENDPOINT!)!;
    await gateway.close();
    expect(isAlive(store.pid!)).toBe(false);
    expect(localStoreAt(store.endpoint)).toBeUndefined();
  });
});

describe('npm start with the store process', () => {
  it('Ctrl-C (SIGINT to the whole process group) mid-request: the store outlives the drain, the log is flushed, all exit', async () => {
    const dataDir = tempDir();
    const gw = startMain({ GW_DATA_DIR: dataDir, GW_LOCAL_STORE: 'child' });
    const url = await gw.listening;
    const [storePid] = childrenOf(gw.pid);
    expect(storePid).toBeGreaterThan(0);
    const seen = upstream.requests.length;
    const inFlight = chat(url, 'sigint-in-flight', 'slow');
    await until(() => upstream.requests.length > seen, 'the provider has the request');
    process.kill(-gw.pid, 'SIGINT');
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(await gw.exited).toBe(0);
    expect(gw.output()).toContain('gw stopped cleanly');
    await until(() => !isAlive(storePid), 'the store process exits with gw');

    const store = await startEmbeddedStore(dataDir);
    try {
      expect(await logRecordsOf(store.endpoint, 'sigint-in-flight')).toBeGreaterThanOrEqual(1);
    } finally {
      await store.close();
    }
  }, 120_000);

  it('gw killed with SIGKILL: its store process does not survive it', async () => {
    const gw = startMain({ GW_DATA_DIR: ':memory:', GW_LOCAL_STORE: 'child' });
    await gw.listening;
    const [storePid] = childrenOf(gw.pid);
    expect(isAlive(storePid)).toBe(true);
    process.kill(gw.pid, 'SIGKILL');
    await gw.exited;
    await until(() => !isAlive(storePid), 'the orphaned store process exits');
  }, 120_000);
});

describe('GW_DYNAMODB_ENDPOINT set before start', () => {
  it('uses that store: tables, bootstrap and request logs land there, and no embedded store starts', async () => {
    process.env.GW_LOCAL_STORE = 'in-process';
    const external = await startEmbeddedStore(':memory:');
    const dataDir = tempDir();
    const gw = startMain({ GW_DATA_DIR: dataDir, GW_DYNAMODB_ENDPOINT: external.endpoint, GW_LOCAL_STORE: 'child' });
    try {
      const url = await gw.listening;
      expect(gw.output()).toContain(`gw local runtime: using the store at ${external.endpoint} (GW_DYNAMODB_ENDPOINT); no embedded store started, no local TTL sweep or log cap`);
      expect(childrenOf(gw.pid)).toEqual([]);
      expect(existsSync(join(dataDir, 'dynamodb'))).toBe(false);
      const client = storeClient(external.endpoint);
      expect((await client.send(new ListTablesCommand({}))).TableNames).toEqual(expect.arrayContaining(['gw-main', 'gw-cache', 'gw-logs']));
      client.destroy();

      const response = await chat(url, 'external-store');
      expect(response.status).toBe(200);
      await until(async () => (await logRecordsOf(external.endpoint, 'external-store')) >= 1, 'the log record lands in the external store');
    } finally {
      gw.child.kill('SIGTERM');
      expect(await gw.exited).toBe(0);
      await external.close();
    }
  }, 120_000);
});
