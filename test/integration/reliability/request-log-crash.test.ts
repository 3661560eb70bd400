import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getJson, sendChats, useGwProcesses } from '../../support/gw-process.js';
import { journaledTraceIds, recordsInFile, stop, until, type DeepHealth } from './request-log-files.js';

// Issue #42: request logs survive a kill -9. The real local gw runs in a process of its own (what npm start execs)
// against a mock provider; the records are counted in its DuckDB file afterwards. (The full disk: request-log-full-disk.)

const { started, folder, upstream } = useGwProcesses();

describe('request logs and a crash', () => {
  it('kill -9 loses no record that reached the journal: the next start writes them, each exactly once (records lost to a crash)', async () => {
    const data = folder('gw-log-faults-');
    const traceIds = Array.from({ length: 300 }, (_, index) => `kill9-${index}`);
    const first = await started({ GW_DATA_DIR: data });
    expect(new Set(await sendChats(first.url, upstream().url, traceIds))).toEqual(new Set([200]));
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
