import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getJson, sendChats, useGwProcesses } from '../../support/gw-process.js';
import { recordsInFile, stop, until, type DeepHealth } from './request-log-files.js';

// Issue #42: request logs and a full disk. The real local gw runs in a process of its own (what npm start execs)
// under `ulimit -f`, against a mock provider; the records are counted in its DuckDB file afterwards.

const { started, folder, upstream } = useGwProcesses();

describe('request logs and a full disk', () => {
  const bigMessage = 'x'.repeat(6_000);

  it('keeps the records DuckDB cannot take, says so in deep health, and writes every one once the disk has room (records lost to a full disk)', async () => {
    const dir = folder('gw-log-faults-');
    const database = join(dir, 'logs.duckdb');
    // Every file gw writes stops at 1 MiB: DuckDB's write-ahead log fills it within these requests' records.
    const { gw, url } = await started({ GW_DATA_DIR: ':memory:', GW_LOG_DUCKDB_PATH: database }, { fileSizeLimitKb: 1024 });
    const traceIds = Array.from({ length: 300 }, (_, index) => `full-${index}`);
    expect(new Set(await sendChats(url, upstream().url, traceIds, 16, bigMessage))).toEqual(new Set([200]));
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
    const dir = folder('gw-log-faults-');
    const database = join(dir, 'logs.duckdb');
    const { gw, url } = await started({ GW_DATA_DIR: ':memory:', GW_LOG_DUCKDB_PATH: database, GW_LOG_JOURNAL_MAX_BYTES: '400000', POWERTOOLS_LOG_LEVEL: 'ERROR' }, { fileSizeLimitKb: 1024 });
    const traceIds = Array.from({ length: 300 }, (_, index) => `bound-${index}`);
    expect(new Set(await sendChats(url, upstream().url, traceIds, 16, bigMessage))).toEqual(new Set([200]));
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
