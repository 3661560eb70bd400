import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
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

// Issue #42: a log engine that fails at run time. Its worker dies and cannot come back (the database file was
// replaced by garbage meanwhile, so every restart fails to open it): every read API answers 503
// log_engine_unavailable with retry-after, never 500 and never a job that fails later, and deep health says so.

const folder = mkdtempSync(join(tmpdir(), 'gw-engine-failure-'));
const database = join(folder, 'logs.duckdb');
let gateway: TestGateway;
let upstream: MockUpstream;

beforeAll(async () => {
  upstream = await startMockUpstream(openAIMockHandler());
  gateway = await startTestGateway({ GW_LOG_DUCKDB_PATH: database, DATA_EXPORTS_ENABLED: 'ON' });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
  rmSync(folder, { recursive: true, force: true });
});

type ErrorBody = { error: { message: string; type: string; code: string; param: string | null } };

describe('a log engine that fails under a running gw', () => {
  it('every read API answers 503 log_engine_unavailable and deep health reports it failed (a failing log engine answered 500)', async () => {
    const reply = await gateway.post('/v1/chat/completions', chat, { ...viaMock(upstream.url), 'x-gw-trace-id': 'engine-failure-0' });
    expect(reply.status).toBe(200);
    const [log] = await logsWhere(gateway, 'trace_id=engine-failure-0');
    expect(log).toBeDefined();

    // The file is replaced under the open database; then the worker dies, and no new one can open the garbage.
    writeFileSync(join(folder, 'garbage'), Buffer.alloc(64 * 1024, 0x41));
    renameSync(join(folder, 'garbage'), database);
    await ((await logEngines()).sink as JournalSink).worker.terminate();

    const reads: Array<[string, string]> = [
      ['GET', '/v1/logs'],
      ['GET', `/v1/logs/${log.id}`],
      ['GET', '/v1/traces'],
      ['GET', '/v1/traces/engine-failure-0'],
      ['GET', '/v1/analytics?group_by=model'],
      ['POST', '/v1/exports'],
    ];
    for (const [method, path] of reads) {
      const answer = await api<ErrorBody>(gateway, method, path, method === 'POST' ? { body: { format: 'jsonl' } } : {});
      expect({ path, status: answer.status, code: answer.body.error?.code }).toEqual({ path, status: 503, code: 'log_engine_unavailable' });
      expect(answer.body.error).toMatchObject({ type: 'api_error', param: null, message: expect.stringMatching(/^Request logs are unavailable/) });
      expect(answer.headers.get('retry-after')).toBe('5');
    }

    const health = await api<{ status: string; checks: { store: { status: string }; log_engine: { status: string; error: string } } }>(gateway, 'GET', '/health?deep=true');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: 'degraded', checks: { store: { status: 'ok' }, log_engine: { status: 'failed', error: expect.any(String) } } });
  }, 120_000);
});
