import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { compactRequestLogsFromSettings } from '../../../../shared/observability/engine/aws/compaction-from-settings.js';
import { analyticsTotals } from '../../../../shared/observability/engine/analytics-queries.js';
import { daysToCompact, LOCK_KEY, SETTLE_MS, STALE_LOCK_MS } from '../../../../shared/observability/engine/aws/compaction.js';
import { parseStateKey } from '../../../../shared/observability/engine/aws/compaction-state.js';
import { workspaceBucket } from '../../../../shared/observability/engine/sql.js';
import { recordedOperationCounts, resetRecordedOperationCounts, runAsFunction } from '../../../../shared/store/recording/aws-operation-recorder.js';
import { memoryObjects } from '../../../../shared/store/recording/stand-ins/s3-stand-in.js';
import type { AthenaStandIn } from '../../../aws-shaped/support/athena-stand-in.js';
import { DATA, startLogStandIns, type LogStandIns } from './log-stand-ins.js';

/**
 * The daily compaction (shared/observability/engine/aws/compaction.ts) with its real Athena and S3 clients against the
 * Athena stand-in (which runs the UNLOAD on DuckDB) and the S3 stand-in, in this process, run as the
 * compact-request-logs function: what it writes, deletes and leaves, how it repeats, and the AWS operations it issues
 * (the grant check's input for its row of the function table). The built bundle, under its schedule and IAM
 * statements, is test/aws-shaped/deployed-stack.test.ts's.
 */
const data = memoryObjects();
const results = memoryObjects();
let standIns: LogStandIns;
let athena: AthenaStandIn;

const DAY = '2026-11-25';
/** The schedule's run the day after DAY. */
const RUN_AT = new Date(`2026-11-26T00:30:00.000Z`);
const far = () => Date.now() + 60_000;

/** When the raw files of the tests were written (S3 LastModified): well before the run, unless a test says otherwise. */
const FILE_TIME = Math.floor((Date.now() - 10 * 60_000) / 1000) * 1000;

/** Writes an object as the S3 stand-in would, with its LastModified at `modifiedMs`. */
async function putObject(key: string, text: string, encoding: BufferEncoding = 'utf8', modifiedMs = FILE_TIME): Promise<void> {
  data.objects.set(key, Buffer.from(text, encoding));
  data.modified.set(key, new Date(modifiedMs));
}

/** A raw file as Firehose delivers it (the stand-in's JSON lines), of `rows` requests of the workspaces given. */
function putRawFile(name: string, rows: Array<{ id: string; workspace: string; minute: number }>, modifiedMs = FILE_TIME): string {
  const key = `requests/day=${DAY}/${name}`;
  const lines = rows.map(({ id, workspace, minute }) =>
    JSON.stringify({ id, trace_id: `t-${id}`, created_at: `${DAY} 10:${String(minute).padStart(2, '0')}:00.000`, organisation_id: 'org-1', workspace_id: workspace, model: 'm', status: 200, outcome: 'success', latency_ms: 5, metadata: {} }),
  );
  void putObject(key, `${lines.join('\n')}\n`, 'utf8', Math.floor(modifiedMs / 1000) * 1000);
  return key;
}

/** Requests of DAY as the read APIs count them: analytics totals through the Athena engine, states listed afresh. */
async function countRequests(): Promise<number> {
  const engine = standIns.engine();
  const range = { from: `${DAY}T00:00:00.000Z`, to: `${DAY}T23:59:59.999Z` };
  const { rows } = await engine.query(analyticsTotals('trino', { scope: { organisationId: 'org-1' }, range, groupBy: 'workspace', interval: 'day' }));
  return rows.reduce((sum, row) => sum + Number(row.requests), 0);
}

const keys = (prefix: string) => [...data.objects.keys()].filter((key) => key.startsWith(prefix)).sort();
const compact = () => runAsFunction('compact-request-logs', () => compactRequestLogsFromSettings(RUN_AT, far()));

beforeAll(async () => {
  standIns = await startLogStandIns(data, results);
  athena = standIns.athena;
});

afterAll(async () => {
  await standIns?.close();
});

beforeEach(() => {
  data.objects.clear();
  resetRecordedOperationCounts();
});

describe('which days a run compacts', () => {
  it('the finished days of the last week, oldest first, once a day has been over for the settle time', () => {
    expect(daysToCompact(RUN_AT)).toEqual(['2026-11-19', '2026-11-20', '2026-11-21', '2026-11-22', '2026-11-23', '2026-11-24', '2026-11-25']);
    expect(daysToCompact(new Date(Date.parse('2026-11-26T00:00:00.000Z') + SETTLE_MS - 1)).at(-1)).toBe('2026-11-24');
  });
});

describe('compacting a day', () => {
  it("unloads the day's rows into the run's own folder, one per workspace bucket, then writes the day's state; the raw files stay until their grace has passed", async () => {
    const raw = [
      putRawFile('gw-requests-1', [{ id: 'a', workspace: 'ws-1', minute: 3 }, { id: 'b', workspace: 'ws-2', minute: 1 }]),
      putRawFile('gw-requests-2', [{ id: 'c', workspace: 'ws-1', minute: 2 }]),
    ];
    const span = { span_id: 's1', log_id: 'a', trace_id: 't-a', organisation_id: 'org-1', workspace_id: 'ws-1', name: 'auth', kind: 'stage', start_time: `${DAY} 10:02:59.000`, status: 'ok', attributes: '{}' };
    await putObject(`spans/day=${DAY}/gw-spans-1`, `${JSON.stringify(span)}\n`);
    const days = await compact();
    expect(days.find((day) => day.table === 'requests' && day.day === DAY)).toEqual({ table: 'requests', day: DAY, outcome: 'compacted', rows: 3, deletedRawFiles: 0 });
    expect(days.find((day) => day.table === 'spans' && day.day === DAY)).toEqual({ table: 'spans', day: DAY, outcome: 'compacted', rows: 1, deletedRawFiles: 0 });
    expect(days.filter((day) => day.outcome === 'compacted')).toHaveLength(2);
    expect(keys('requests/')).toEqual(raw);
    const [state] = keys(`compacted/requests/_state/day=${DAY}/`);
    const parsed = parseStateKey(state)!;
    expect(parsed.cutoffMs).toBe(FILE_TIME);
    const compacted = keys(`compacted/requests/${parsed.slice}/`);
    const folders = new Set(compacted.map((key) => key.split('/')[3]));
    expect(folders).toEqual(new Set(['ws-1', 'ws-2'].map((workspace) => `ws_bucket=${workspaceBucket(workspace)}`)));
    const body = JSON.parse(data.objects.get(state)!.toString('utf8')) as Record<string, unknown>;
    expect(body).toMatchObject({ table: 'requests', day: DAY, rows: 3, raw_files: raw, slice: parsed.slice, cutoff: new Date(FILE_TIME).toISOString() });
    expect(data.objects.has(LOCK_KEY)).toBe(false);
    expect((body.files as string[]).every((file) => file.startsWith(`s3://${DATA}/compacted/requests/${parsed.slice}/ws_bucket=`))).toBe(true);
    const unload = [...athena.executions.values()].find((execution) => execution.query.includes(' FROM requests WHERE day = ?'))!;
    expect(unload.query).toMatch(
      /^UNLOAD \(SELECT .* FROM requests WHERE day = \? AND "\$file_modified_time" <= from_iso8601_timestamp\(\?\) ORDER BY workspace_id, created_at\) TO 's3:\/\/gw-log-data\/compacted\/requests\/day=2026-11-25\.\d{8}t\d{6}z-[0-9a-f]{6}\/' WITH \(format = 'PARQUET', compression = 'SNAPPY', partitioned_by = ARRAY\['ws_bucket'\]\)$/,
    );
    expect(unload.parameters).toEqual([`'${DAY}'`, `'${new Date(FILE_TIME).toISOString()}'`]);

    const seen = [...new Set(recordedOperationCounts().map(({ fn, service, action, resource }) => `${fn} ${service}:${action} ${resource.replace(/(day=[^/]+\/).*$/, '$1…').replace(/day=[^/.]+\.[^/]+\//, 'day=….run/')}`))].sort();
    expect(seen).toEqual([
      'compact-request-logs athena:GetQueryExecution workgroup/gw-logs-compaction',
      'compact-request-logs athena:GetQueryRuntimeStatistics workgroup/gw-logs-compaction',
      'compact-request-logs athena:StartQueryExecution workgroup/gw-logs-compaction',
      // The lock: created only if absent, removed at the end.
      'compact-request-logs s3:DeleteObject bucket/log-data/compacted/_gw_compaction.lock',
      `compact-request-logs s3:ListBucket bucket/log-data`,
      'compact-request-logs s3:PutObject bucket/log-data/compacted/_gw_compaction.lock',
      `compact-request-logs s3:PutObject bucket/log-data/compacted/requests/_state/day=${DAY}/…`,
      `compact-request-logs s3:PutObject bucket/log-data/compacted/spans/_state/day=${DAY}/…`,
    ]);
  });

  it('deletes the raw files it compacted only once the switch is older than the grace, and never a late file', async () => {
    const raw = putRawFile('gw-requests-1', [{ id: 'a', workspace: 'ws-1', minute: 3 }]);
    await compact();
    const late = putRawFile('gw-requests-9', [{ id: 'z', workspace: 'ws-1', minute: 59 }], Date.now());
    const unloads = athena.executions.size;
    expect((await compact()).find((day) => day.table === 'requests' && day.day === DAY)).toEqual({ table: 'requests', day: DAY, outcome: 'already-compacted', deletedRawFiles: 0 });
    expect(keys('requests/')).toEqual([late, raw].sort());
    const collected = await runAsFunction('compact-request-logs', () => compactRequestLogsFromSettings(RUN_AT, far(), { gcGraceMs: 0 }));
    expect(collected.find((day) => day.table === 'requests' && day.day === DAY)).toEqual({ table: 'requests', day: DAY, outcome: 'already-compacted', deletedRawFiles: 1 });
    expect(athena.executions.size).toBe(unloads);
    expect(keys('requests/')).toEqual([late]);
    expect(await countRequests()).toBe(2);
  });
});

describe('workgroup isolation: the compaction scans under its own limit, not the read APIs\' cutoff', () => {
  it('runs every UNLOAD in the compaction workgroup and writes its manifests under that workgroup\'s result location; reads stay in the read workgroup', async () => {
    putRawFile('gw-requests-1', [{ id: 'a', workspace: 'ws-1', minute: 3 }]);
    const before = athena.executions.size;
    await compact();
    const unloads = [...athena.executions.values()].slice(before);
    expect(unloads.length).toBeGreaterThan(0);
    expect(unloads.every((execution) => execution.query.startsWith('UNLOAD ') && execution.workgroup === 'gw-logs-compaction')).toBe(true);
    const manifests = [...results.objects.keys()].filter((key) => unloads.some((execution) => key.includes(execution.id)));
    expect(manifests.length).toBe(unloads.length);
    expect(manifests.every((key) => key.startsWith('compaction/'))).toBe(true);
    await countRequests();
    expect([...athena.executions.values()].at(-1)!.workgroup).toBe('gw-logs');
  });
});

describe('reads count every request exactly once, whatever the compaction is doing (issue #41)', () => {
  it('during the window between the switch and the raw files\' garbage collection: each row once, not twice', async () => {
    putRawFile('gw-requests-1', [{ id: 'a', workspace: 'ws-1', minute: 3 }, { id: 'b', workspace: 'ws-2', minute: 1 }]);
    putRawFile('gw-requests-2', [{ id: 'c', workspace: 'ws-1', minute: 2 }]);
    expect(await countRequests()).toBe(3);
    await compact();
    expect(keys('requests/')).toHaveLength(2);
    expect(await countRequests()).toBe(3);
    const read = [...athena.executions.values()].at(-1)!;
    expect(read.query).toMatch(/compacted_slice IN \('day=2026-11-25\.[^']+'\)/);
    expect(read.query).toContain(`NOT ((day = '${DAY}' AND "$file_modified_time" <= from_iso8601_timestamp('${new Date(FILE_TIME).toISOString()}')))`);
  });

  it('after a run that failed after its UNLOAD wrote part of its files: the partial files are never read, and a retried run replaces them', async () => {
    putRawFile('gw-requests-1', [{ id: 'a', workspace: 'ws-1', minute: 3 }, { id: 'b', workspace: 'ws-2', minute: 1 }, { id: 'c', workspace: 'ws-3', minute: 1 }]);
    // Athena writes the first bucket's file, then S3 refuses the next: the UNLOAD fails and leaves what it wrote.
    const put = data.put.bind(data);
    let written = 0;
    data.put = async (key, bytes) => {
      if (key.startsWith(`compacted/requests/day=${DAY}.`) && ++written === 2) throw new Error('SlowDown: please reduce your request rate');
      return put(key, bytes);
    };
    try {
      await expect(compact()).rejects.toThrow(/compaction of requests day=2026-11-25 failed: .*SlowDown/);
    } finally {
      data.put = put;
    }
    const partial = keys(`compacted/requests/day=${DAY}.`);
    expect(partial).toHaveLength(1);
    expect(keys('compacted/requests/_state/')).toEqual([]);
    expect(await countRequests()).toBe(3);

    const retried = await compact();
    expect(retried.find((day) => day.table === 'requests' && day.day === DAY)).toMatchObject({ outcome: 'compacted', rows: 3 });
    expect(data.objects.has(partial[0])).toBe(false);
    expect(await countRequests()).toBe(3);
  });

  it('after a late raw file (one that arrived after the cutoff): read raw beside the compacted day, once', async () => {
    putRawFile('gw-requests-1', [{ id: 'a', workspace: 'ws-1', minute: 3 }]);
    await compact();
    putRawFile('gw-requests-9', [{ id: 'z', workspace: 'ws-1', minute: 59 }], Date.now());
    expect(await countRequests()).toBe(2);
    expect((await compact()).find((day) => day.table === 'requests' && day.day === DAY)).toMatchObject({ outcome: 'already-compacted' });
    expect(await countRequests()).toBe(2);
  });

  it('when a raw file at or before the cutoff shows up during the UNLOAD (an upload that started before the listing): the day stays raw, and the next run compacts it', async () => {
    putRawFile('gw-requests-1', [{ id: 'a', workspace: 'ws-1', minute: 3 }]);
    const put = data.put.bind(data);
    let sneaked = false;
    data.put = async (key, bytes) => {
      if (!sneaked && key.startsWith(`compacted/requests/day=${DAY}.`)) {
        sneaked = true;
        putRawFile('gw-requests-0', [{ id: 'y', workspace: 'ws-2', minute: 1 }], FILE_TIME - 1_000);
      }
      return put(key, bytes);
    };
    try {
      expect((await compact()).find((day) => day.table === 'requests' && day.day === DAY)).toEqual({ table: 'requests', day: DAY, outcome: 'unsettled', deletedRawFiles: 0 });
    } finally {
      data.put = put;
    }
    expect(keys('compacted/requests/_state/')).toEqual([]);
    expect(await countRequests()).toBe(2);
    expect((await compact()).find((day) => day.table === 'requests' && day.day === DAY)).toMatchObject({ outcome: 'compacted', rows: 2 });
    expect(await countRequests()).toBe(2);
  });

  it('when garbage collection finds a raw file at or before the cutoff its run never listed: the day is reopened, never deleted unread', async () => {
    putRawFile('gw-requests-1', [{ id: 'a', workspace: 'ws-1', minute: 3 }]);
    await compact();
    const missed = putRawFile('gw-requests-0', [{ id: 'y', workspace: 'ws-2', minute: 1 }], FILE_TIME - 1_000);
    const collected = await runAsFunction('compact-request-logs', () => compactRequestLogsFromSettings(RUN_AT, far(), { gcGraceMs: 0 }));
    expect(collected.find((day) => day.table === 'requests' && day.day === DAY)).toMatchObject({ outcome: 'reopened', deletedRawFiles: 0 });
    expect(keys('compacted/requests/_state/')).toEqual([]);
    expect(keys('requests/')).toContain(missed);
    expect(await countRequests()).toBe(2);
  });

  it('takes over a day compacted before issue #41 (its marker and folder) without reading it twice', async () => {
    const legacy = `compacted/requests/day=${DAY}/ws_bucket=${workspaceBucket('ws-1')}/legacy_00000`;
    putRawFile('gw-requests-1', [{ id: 'a', workspace: 'ws-1', minute: 3 }]);
    await compact();
    const [state] = keys(`compacted/requests/_state/day=${DAY}/`);
    const slice = parseStateKey(state)!.slice;
    // Rebuild the day as the old compaction left it: its files under day=D/, a marker, the raw files deleted.
    for (const key of keys(`compacted/requests/${slice}/`)) await putObject(legacy, data.objects.get(key)!.toString('latin1'), 'latin1');
    for (const key of [...keys(`compacted/requests/${slice}/`), state, ...keys('requests/')]) data.objects.delete(key);
    await putObject(`compacted/requests/day=${DAY}/_gw_compaction.json`, JSON.stringify({ compacted_at: new Date(FILE_TIME + 1_000).toISOString() }));
    expect((await compact()).find((day) => day.table === 'requests' && day.day === DAY)).toMatchObject({ outcome: 'already-compacted' });
    expect(keys(`compacted/requests/_state/day=${DAY}/`)).toEqual([`compacted/requests/_state/day=${DAY}/legacy.${FILE_TIME + 1_000}`]);
    putRawFile('gw-requests-9', [{ id: 'z', workspace: 'ws-1', minute: 59 }], Date.now());
    expect(await countRequests()).toBe(2);
  });
});

describe('one run at a time', () => {
  it('leaves every day to the next run while another run holds the lock, and changes nothing', async () => {
    const raw = putRawFile('gw-requests-1', [{ id: 'a', workspace: 'ws-1', minute: 3 }]);
    const lock = JSON.stringify({ started_at: new Date(Date.now() - 60_000).toISOString() });
    await data.put(LOCK_KEY, Buffer.from(lock));
    const unloads = athena.executions.size;
    const days = await compact();
    expect(new Set(days.map((day) => day.outcome))).toEqual(new Set(['deferred']));
    expect(athena.executions.size).toBe(unloads);
    expect(keys('requests/')).toEqual([raw]);
    expect(data.objects.get(LOCK_KEY)?.toString('utf8')).toBe(lock);
  });

  it('takes over a lock left by a run that died (older than the function can run), and releases it', async () => {
    putRawFile('gw-requests-1', [{ id: 'a', workspace: 'ws-1', minute: 3 }]);
    await data.put(LOCK_KEY, Buffer.from(JSON.stringify({ started_at: new Date(Date.now() - STALE_LOCK_MS - 1_000).toISOString() })));
    const days = await compact();
    expect(days.find((day) => day.table === 'requests' && day.day === DAY)).toMatchObject({ outcome: 'compacted', rows: 1 });
    expect(data.objects.has(LOCK_KEY)).toBe(false);
  });
});
