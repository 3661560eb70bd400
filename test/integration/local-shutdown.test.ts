import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, PutItemCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedStore } from '../../infra/local/embedded-store.js';
import { startTtlSweeper } from '../../infra/local/ttl-sweeper.js';
import { watchGwStartup } from '../support/local-process.js';
import { openAIMockHandler } from '../support/mock-openai.js';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.js';

const KEY = 'gwk_shutdown_test_key_0123456789';
let upstream: MockUpstream;
const dataDir = mkdtempSync(join(tmpdir(), 'gw-shutdown-'));

beforeAll(async () => {
  const answer = openAIMockHandler();
  // Slow enough that SIGTERM arrives while the request is in flight.
  upstream = await startMockUpstream(async (request) => ({ ...(await answer(request)), delayMs: 1_500 }));
});
afterAll(async () => {
  await upstream?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The real `npm start` process tree (npm → sh → tsx → node), as a user runs it. */
function npmStart(env: Record<string, string>) {
  const child = spawn('npm', ['start'], { env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  return { child, ...watchGwStartup(child) };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('graceful shutdown of npm start', () => {
  it('SIGTERM to npm mid-request: the request completes, its log is flushed, the process tree exits 0', async () => {
    const port = await freePort();
    const started = npmStart({ PORT: String(port), GW_DATA_DIR: dataDir, GW_BOOTSTRAP_API_KEY: KEY });
    const url = await started.listening;
    const inFlight = fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'x-gw-api-key': KEY, 'x-gw-provider': 'openai', 'x-gw-custom-host': upstream.url, authorization: 'Bearer sk-x', 'x-gw-trace-id': 'shutdown-in-flight' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] }),
    });
    // Wait until the provider has the request (it is in flight), then stop npm.
    while (!upstream.requests.some((request) => request.headers['authorization'] === 'Bearer sk-x')) await new Promise((resolve) => setTimeout(resolve, 20));
    started.child.kill('SIGTERM');
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(((await response.json()) as { object: string }).object).toBe('chat.completion');
    expect(await started.exited).toBe(0);
    expect(started.output()).toContain('SIGTERM: shutting down');
    expect(started.output()).toContain('gw stopped cleanly');
    // Nothing is left listening.
    await expect(fetch(`${url}/health`)).rejects.toThrow();

    // The request's log record reached the log engine's file before it closed.
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const logs = await DuckDBInstance.create(join(dataDir, 'logs.duckdb'), { access_mode: 'READ_ONLY' });
    try {
      const connection = await logs.connect();
      const rows = (await connection.runAndReadAll('SELECT count(*) AS n FROM requests WHERE trace_id = ?', ['shutdown-in-flight'])).getRowObjectsJS();
      connection.closeSync();
      expect(Number(rows[0].n)).toBe(1);
    } finally {
      logs.closeSync();
    }
  }, 120_000);

  it('a busy port: one clear line and exit 1, no stack trace', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', () => resolve()));
    const { port } = blocker.address() as { port: number };
    try {
      const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/main.ts'], { env: { ...process.env, PORT: String(port), GW_DATA_DIR: ':memory:', POWERTOOLS_LOG_LEVEL: 'SILENT' } });
      let errors = '';
      child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect(code).toBe(1);
      expect(errors.trim()).toBe(`gw: port ${port} on 127.0.0.1 is already in use (another gw?). Stop that process or start with PORT=<another port> npm start`);
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  }, 60_000);
});

describe('the local TTL sweep', () => {
  it('deletes items whose ttl has passed, keeps the rest, and caps logs ahead of their ttl', async () => {
    const store = await startEmbeddedStore(':memory:');
    const client = new DynamoDBClient({ endpoint: store.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    try {
      const { ensureTables } = await import('../../infra/local/embedded-store.js');
      const definition = { name: 'sweep', partitionKey: 'pk', sortKey: 'sk', ttlAttribute: 'ttl', globalIndexes: [] };
      await ensureTables(store.endpoint, 'us-east-1', [{ definition: definition as never, name: 'sweep-table' }]);
      const now = Math.floor(Date.now() / 1000);
      const put = (pk: string, ttl?: number) =>
        client.send(new PutItemCommand({ TableName: 'sweep-table', Item: { pk: { S: pk }, sk: { S: 'x' }, ...(ttl === undefined ? {} : { ttl: { N: String(ttl) } }) } }));
      await Promise.all([put('expired', now - 10), put('live', now + 3_600), put('later', now + 86_400 * 5), put('forever')]);
      const sweeper = startTtlSweeper({ endpoint: store.endpoint, region: 'us-east-1', intervalMs: 0, tables: () => [{ name: 'sweep-table', partitionKey: 'pk', sortKey: 'sk' }] });
      expect(await sweeper.sweep()).toBe(1);
      const left = async () => ((await client.send(new ScanCommand({ TableName: 'sweep-table' }))).Items ?? []).map((item) => item.pk.S).sort();
      expect(await left()).toEqual(['forever', 'later', 'live']);
      await sweeper.stop();
      // The log cap: items are swept `aheadSeconds` before their ttl (a day ahead catches the 1-hour one).
      const capped = startTtlSweeper({ endpoint: store.endpoint, region: 'us-east-1', intervalMs: 0, tables: () => [{ name: 'sweep-table', partitionKey: 'pk', sortKey: 'sk', aheadSeconds: 86_400 }] });
      expect(await capped.sweep()).toBe(1);
      expect(await left()).toEqual(['forever', 'later']);
      await capped.stop();
    } finally {
      client.destroy();
      await store.close();
    }
  }, 60_000);
});
