import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalSink } from '../../../shared/observability/engine/duckdb/journal-sink.js';
import { logEngines } from '../../../shared/observability/engine/select.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import { startMockUpstream, type MockUpstream } from '../../support/mock-upstream.js';
import { api } from '../control-plane/identities-support.js';
import { chat, logsWhere, viaMock } from '../observability/observability-support.js';

// Issue #42: the DuckDB worker thread dies (a crash, an out-of-memory abort). Before, every read answered 503 until
// gw was restarted by hand and records waited in the journal for that. Now the sink starts another worker, which
// reopens the database and replays the journal, and the restart is counted in deep health.

const folder = mkdtempSync(join(tmpdir(), 'gw-worker-restart-'));
let gateway: TestGateway;
let upstream: MockUpstream;

beforeAll(async () => {
  upstream = await startMockUpstream(openAIMockHandler());
  gateway = await startTestGateway({ GW_LOG_DUCKDB_PATH: join(folder, 'logs.duckdb') });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
  rmSync(folder, { recursive: true, force: true });
});

async function sendChats(prefix: string, count: number): Promise<void> {
  for (let index = 0; index < count; index++) {
    const reply = await gateway.post('/v1/chat/completions', chat, { ...viaMock(upstream.url), 'x-gw-trace-id': `${prefix}-${index}` });
    expect(reply.status).toBe(200);
    await reply.arrayBuffer();
  }
}

type LogEngineHealth = { status: string; worker_restarts: number; last_worker_restart_at?: string };

async function logEngineHealth(): Promise<{ status: string; checks: { log_engine: LogEngineHealth } }> {
  const reply = await api<{ status: string; checks: { log_engine: LogEngineHealth } }>(gateway, 'GET', '/health?deep=true');
  return reply.body;
}

/** Polls until `check` holds; gives up after 60 s (a condition, not a timing assertion). */
async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const giveUpAt = Date.now() + 60_000;
  while (!(await check())) {
    if (Date.now() > giveUpAt) throw new Error(`gave up waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the DuckDB worker dies under a running gw', () => {
  it('is restarted, replays the journal, counts the restart, and loses no record (a dead log worker left reads failing until a manual restart)', async () => {
    await sendChats('before', 5);
    expect(await logsWhere(gateway, 'trace_id=before-0')).toHaveLength(1);
    expect((await logEngineHealth()).checks.log_engine).toMatchObject({ status: 'ok', worker_restarts: 0 });

    const sink = (await logEngines()).sink as JournalSink;
    const dead = sink.worker;
    await dead.terminate();
    // Requests keep being answered while the worker is gone; their records go to the journal.
    await sendChats('during', 5);

    await until('a new worker', async () => sink.worker !== dead && (await logEngineHealth()).checks.log_engine.worker_restarts === 1);
    const health = await logEngineHealth();
    expect(health.status).toBe('degraded');
    expect(health.checks.log_engine).toMatchObject({ status: 'degraded', worker_restarts: 1, last_worker_restart_at: expect.any(String) });

    await sendChats('after', 5);
    const logs = await logsWhere(gateway, '');
    const traceIds = logs.map((log) => log.trace_id).sort();
    const expected = ['before', 'during', 'after'].flatMap((prefix) => Array.from({ length: 5 }, (_, index) => `${prefix}-${index}`)).sort();
    expect(traceIds).toEqual(expected);
  }, 120_000);
});
