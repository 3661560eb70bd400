import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson, sendChats, spawnGw, type GwProcess } from '../../support/gw-process.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import { startMockUpstream, type MockUpstream } from '../../support/mock-upstream.js';

// Issue #42: request logs survive a kill -9 and a full disk. Each case runs the real local gw in a process of its
// own (what npm start execs) against a mock provider, and counts the records in its DuckDB file afterwards.

let upstream: MockUpstream;
const folders: string[] = [];
const running: GwProcess[] = [];

beforeAll(async () => {
  upstream = await startMockUpstream(openAIMockHandler());
});
afterAll(async () => {
  for (const gw of running) gw.kill('SIGKILL');
  await upstream?.close();
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function folder(): string {
  const path = mkdtempSync(join(tmpdir(), 'gw-log-faults-'));
  folders.push(path);
  return path;
}

async function started(env: Record<string, string>, options: { fileSizeLimitKb?: number } = {}): Promise<{ gw: GwProcess; url: string }> {
  const gw = await spawnGw(env, options);
  running.push(gw);
  return { gw, url: await gw.listening };
}

/** Polls `check` every 50 ms until it holds; fails with `what` after 60 s (a condition, not a timing assertion). */
async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  const giveUpAt = Date.now() + 60_000;
  while (!(await check())) {
    if (Date.now() > giveUpAt) throw new Error(`gave up waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Trace ids of the records in the journal's files (one JSON line per record). */
function journaledTraceIds(journal: string): Set<string> {
  const ids = new Set<string>();
  let names: string[];
  try {
    names = readdirSync(journal);
  } catch {
    return ids;
  }
  for (const name of names) {
    for (const line of readFileSync(join(journal, name), 'utf8').split('\n')) {
      const id = /"trace_id":"([^"]+)"/.exec(line)?.[1];
      if (id) ids.add(id);
    }
  }
  return ids;
}

/** Count and distinct trace ids of the requests rows whose trace id starts with `prefix`, read from a stopped gw's file. */
async function recordsInFile(path: string, prefix: string): Promise<{ rows: number; distinct: number }> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const database = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
  try {
    const connection = await database.connect();
    const [row] = (await connection.runAndReadAll('SELECT count(*) AS n, count(DISTINCT trace_id) AS d FROM requests WHERE starts_with(trace_id, ?)', [prefix])).getRowObjectsJS();
    connection.closeSync();
    return { rows: Number(row.n), distinct: Number(row.d) };
  } finally {
    database.closeSync();
  }
}

type DeepHealth = { status: string; checks: { log_engine?: { status: string; pending_bytes: number; pending_in_memory: number; dropped_records: number; error?: string; last_run?: { replayed: number; lost: number } } } };

async function stop(gw: GwProcess): Promise<void> {
  gw.kill('SIGTERM');
  expect(await gw.exited).toBe(0);
}

describe('request logs and a crash', () => {
  it('kill -9 loses no record that reached the journal: the next start writes them, each exactly once (records lost to a crash)', async () => {
    const data = folder();
    const traceIds = Array.from({ length: 300 }, (_, index) => `kill9-${index}`);
    const first = await started({ GW_DATA_DIR: data });
    expect(new Set(await sendChats(first.url, upstream.url, traceIds))).toEqual(new Set([200]));
    // Every answered request's after-path has journaled its record: a kill -9 now, before DuckDB has them all.
    await until('every record journaled', () => journaledTraceIds(join(data, 'logs.duckdb.journal')).size === traceIds.length);
    first.gw.kill('SIGKILL');
    await first.gw.exited;

    const second = await started({ GW_DATA_DIR: data });
    const health = await getJson<DeepHealth>(`${second.url}/health?deep=true`);
    expect(health.body.checks.log_engine).toMatchObject({ status: 'ok', last_run: { replayed: expect.any(Number), lost: 0 } });
    await stop(second.gw);
    expect(await recordsInFile(join(data, 'logs.duckdb'), 'kill9-')).toEqual({ rows: 300, distinct: 300 });
  }, 180_000);
});

describe('request logs and a full disk', () => {
  const bigMessage = 'x'.repeat(6_000);

  it('keeps the records DuckDB cannot take, says so in deep health, and writes every one once the disk has room (records lost to a full disk)', async () => {
    const dir = folder();
    const database = join(dir, 'logs.duckdb');
    // Every file gw writes stops at 1 MiB: DuckDB's write-ahead log fills it within these requests' records.
    const { gw, url } = await started({ GW_DATA_DIR: ':memory:', GW_LOG_DUCKDB_PATH: database }, { fileSizeLimitKb: 1024 });
    const traceIds = Array.from({ length: 300 }, (_, index) => `full-${index}`);
    expect(new Set(await sendChats(url, upstream.url, traceIds, 16, bigMessage))).toEqual(new Set([200]));
    let health: DeepHealth | undefined;
    await until('deep health reports the failing writes', async () => {
      health = (await getJson<DeepHealth>(`${url}/health?deep=true`)).body;
      return health.checks.log_engine?.status === 'degraded';
    });
    expect(health!.status).toBe('degraded');
    expect(health!.checks.log_engine).toMatchObject({ dropped_records: 0, error: expect.stringMatching(/too large|space/i) });
    expect(health!.checks.log_engine!.pending_bytes + health!.checks.log_engine!.pending_in_memory).toBeGreaterThan(0);

    // The disk has room again: the kept records are retried and written.
    execFileSync('prlimit', ['--pid', String(gw.pid), '--fsize=unlimited:']);
    await until('every kept record written', async () => {
      const logEngine = (await getJson<DeepHealth>(`${url}/health?deep=true`)).body.checks.log_engine;
      return logEngine?.status === 'ok' && logEngine.pending_bytes === 0 && logEngine.pending_in_memory === 0;
    });
    await stop(gw);
    expect(await recordsInFile(database, 'full-')).toEqual({ rows: 300, distinct: 300 });
  }, 180_000);

  it('past its bound drops records, counts every one, logs it and reports degraded (records dropped silently)', async () => {
    const dir = folder();
    const database = join(dir, 'logs.duckdb');
    const { gw, url } = await started({ GW_DATA_DIR: ':memory:', GW_LOG_DUCKDB_PATH: database, GW_LOG_JOURNAL_MAX_BYTES: '400000', POWERTOOLS_LOG_LEVEL: 'ERROR' }, { fileSizeLimitKb: 1024 });
    const traceIds = Array.from({ length: 300 }, (_, index) => `bound-${index}`);
    expect(new Set(await sendChats(url, upstream.url, traceIds, 16, bigMessage))).toEqual(new Set([200]));
    let dropped = 0;
    await until('drops reported', async () => {
      const health = (await getJson<DeepHealth>(`${url}/health?deep=true`)).body;
      dropped = health.checks.log_engine?.dropped_records ?? 0;
      return health.status === 'degraded' && dropped > 0;
    });
    await until('the drop logged', () => gw.output().includes('request-log records DROPPED'));
    execFileSync('prlimit', ['--pid', String(gw.pid), '--fsize=unlimited:']);
    await until('every kept record written', async () => {
      const logEngine = (await getJson<DeepHealth>(`${url}/health?deep=true`)).body.checks.log_engine;
      return logEngine?.pending_bytes === 0 && logEngine.pending_in_memory === 0;
    });
    const final = (await getJson<DeepHealth>(`${url}/health?deep=true`)).body.checks.log_engine!;
    await stop(gw);
    // Nothing vanished uncounted: what is in the file and what was dropped make every answered request.
    expect((await recordsInFile(database, 'bound-')).distinct + final.dropped_records).toBe(300);
  }, 180_000);
});
