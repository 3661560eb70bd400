import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListTablesCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeLogEngines } from '../../../shared/observability/engine/select.js';
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
  // The test gateway above exported its own store's endpoint and log database into this process's environment: not for gw.
  const { GW_DYNAMODB_ENDPOINT: _ours, GW_LOG_DUCKDB_PATH: _ourLogs, ...inherited } = process.env;
  // A temporary folder of its own, removed after the file: a gw killed with SIGKILL cannot remove its throwaway folders.
  const childTmp = mkdtempSync(join(tmpdir(), 'runtime-store-child-'));
  dirs.push(childTmp);
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/main.ts'], {
    env: { ...inherited, TMPDIR: childTmp, PORT: '0', GW_BOOTSTRAP_API_KEY: KEY, POWERTOOLS_LOG_LEVEL: 'SILENT', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  return { child, pid: child.pid!, ...watchGwStartup(child) };
}

/** Request-log rows of a trace in the DuckDB file gw left under its data directory (opened once gw is gone). */
async function logRecordsOf(dataDir: string, traceId: string): Promise<number> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const instance = await DuckDBInstance.create(join(dataDir, 'logs.duckdb'), { access_mode: 'READ_ONLY' });
  try {
    const connection = await instance.connect();
    const reader = await connection.runAndReadAll('SELECT count(*) AS n FROM requests WHERE trace_id = ?', [traceId]);
    connection.closeSync();
    return Number(reader.getRowObjectsJS()[0].n);
  } finally {
    instance.closeSync();
  }
}

describe('the runtime with its store in a child process', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    process.env.GW_LOCAL_STORE = 'child';
    gateway = await startTestGateway({ GW_LOCAL_TTL_SWEEP_INTERVAL_MS: '0', GW_REQUEST_LOGS: 'ON' });
  }, 60_000);
  afterAll(async () => {
    await gateway?.close();
    // A log write that lands after the runtime closed opens the log engine again (and its throwaway folders).
    await closeLogEngines();
  });

  it('serves requests from the store process; their logs go to the log engine in gw, not to the store', async () => {
    const store = localStoreAt(settings().GW_DYNAMODB_ENDPOINT!)!;
    expect(store.kind).toBe('child');
    expect(childrenOf(process.pid)).toContain(store.pid);
    for (let index = 0; index < 5; index++) {
      const response = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-gw-api-key': gateway.apiKey, 'x-gw-provider': 'openai', 'x-gw-custom-host': upstream.url, authorization: 'Bearer sk-x', 'x-gw-trace-id': `engine-${index}`, 'x-gw-metadata': JSON.stringify({ team: `t${index}` }) },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] }),
      });
      expect(response.status).toBe(200);
      await response.text();
    }
    await drainAllBackgroundWork(10_000);
    expect(await store.housekeeping!.pass()).toEqual({ expired: 0, expiredBlobs: 0 });
    const listed = await fetch(`${gateway.url}/v1/logs?limit=50`, { headers: { 'x-gw-api-key': gateway.apiKey } });
    expect(listed.status).toBe(200);
    const traces = (await listed.json()) as { data: Array<{ trace_id: string }> };
    expect(traces.data.map((record) => record.trace_id).sort()).toEqual(['engine-0', 'engine-1', 'engine-2', 'engine-3', 'engine-4']);
    // The logs table holds no request record and no index row.
    const client = storeClient(settings().GW_DYNAMODB_ENDPOINT!);
    const items = (await client.send(new ScanCommand({ TableName: 'gw-logs' }))).Items ?? [];
    client.destroy();
    expect(items).toEqual([]);
  });

  it('closing the runtime closes the store process', async () => {
    const store = localStoreAt(settings().GW_DYNAMODB_ENDPOINT!)!;
    await gateway.close();
    expect(isAlive(store.pid!)).toBe(false);
    expect(localStoreAt(store.endpoint)).toBeUndefined();
  });
});

// The cases below each wait on gw processes of their own (start-up, drain, exit): they run side by side.
describe.concurrent('npm start with the store process', () => {
  it('Ctrl-C (SIGINT to the whole process group) mid-request: the store outlives the drain, the log is flushed, all exit', async () => {
    const dataDir = tempDir();
    // Errors are printed, so a record that went missing says why in the assertion below.
    const gw = startMain({ GW_DATA_DIR: dataDir, GW_LOCAL_STORE: 'child', POWERTOOLS_LOG_LEVEL: 'ERROR' });
    const url = await gw.listening;
    const [storePid] = childrenOf(gw.pid);
    expect(storePid).toBeGreaterThan(0);
    const seen = upstream.requests.length;
    const inFlight = chat(url, 'sigint-in-flight', 'slow');
    // Its own request (model "slow"): the cases beside it send theirs to the same provider.
    await until(() => upstream.requests.slice(seen).some((request) => (request.json as { model?: string } | undefined)?.model === 'slow'), 'the provider has the request');
    process.kill(-gw.pid, 'SIGINT');
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(await gw.exited).toBe(0);
    expect(gw.output()).toContain('gw stopped cleanly');
    await until(() => !isAlive(storePid), 'the store process exits with gw');

    expect(existsSync(join(dataDir, 'logs.duckdb')), gw.output()).toBe(true);
    expect(await logRecordsOf(dataDir, 'sigint-in-flight')).toBe(1);
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

describe.concurrent('GW_DYNAMODB_ENDPOINT set before start', () => {
  it('uses that store for tables and bootstrap (request logs stay in the DuckDB file), and no embedded store starts', async () => {
    process.env.GW_LOCAL_STORE = 'in-process';
    const external = await startEmbeddedStore(':memory:');
    const dataDir = tempDir();
    const gw = startMain({ GW_DATA_DIR: dataDir, GW_DYNAMODB_ENDPOINT: external.endpoint, GW_LOCAL_STORE: 'child' });
    try {
      const url = await gw.listening;
      expect(gw.output()).toContain(`gw local runtime: using the store at ${external.endpoint} (GW_DYNAMODB_ENDPOINT); no embedded store started, no local TTL sweep`);
      expect(childrenOf(gw.pid)).toEqual([]);
      expect(existsSync(join(dataDir, 'dynamodb'))).toBe(false);
      const client = storeClient(external.endpoint);
      expect((await client.send(new ListTablesCommand({}))).TableNames).toEqual(expect.arrayContaining(['gw-main', 'gw-cache', 'gw-logs']));
      client.destroy();

      const response = await chat(url, 'external-store');
      expect(response.status).toBe(200);
      await response.text();
    } finally {
      gw.child.kill('SIGTERM');
      expect(await gw.exited).toBe(0);
      await external.close();
    }
    expect(await logRecordsOf(dataDir, 'external-store')).toBe(1);
  }, 120_000);
});
