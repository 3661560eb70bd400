import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { compactRequestLogsFromSettings } from '../../../../shared/observability/engine/aws/compaction-from-settings.js';
import { daysToCompact, LOCK_KEY, SETTLE_MS, STALE_LOCK_MS } from '../../../../shared/observability/engine/aws/compaction.js';
import { workspaceBucket } from '../../../../shared/observability/engine/sql.js';
import { recordedOperationCounts, resetRecordedOperationCounts, runAsFunction } from '../../../../shared/store/recording/aws-operation-recorder.js';
import { memoryObjects, s3StandIn } from '../../../../shared/store/recording/stand-ins/s3-stand-in.js';
import { serveOnLoopback, type LoopbackServer } from '../../../../shared/store/recording/stand-ins/wire.js';
import { athenaStandIn, type AthenaStandIn } from '../../../aws-shaped/support/athena-stand-in.js';

/**
 * The daily compaction (shared/observability/engine/aws/compaction.ts) with its real Athena and S3 clients against the
 * Athena stand-in (which runs the UNLOAD on DuckDB) and the S3 stand-in, in this process, run as the
 * compact-request-logs function: what it writes, deletes and leaves, how it repeats, and the AWS operations it issues
 * (the grant check's input for its row of the function table). The built bundle, under its schedule and IAM
 * statements, is test/aws-shaped/deployed-stack.test.ts's.
 */
const DATA = 'gw-log-data';
const RESULTS = 'gw-log-results';
const data = memoryObjects();
const results = memoryObjects();
let athena: AthenaStandIn;
const servers: LoopbackServer[] = [];

const DAY = '2026-11-25';
/** The schedule's run the day after DAY. */
const RUN_AT = new Date(`2026-11-26T00:30:00.000Z`);
const far = () => Date.now() + 60_000;

/** A raw file as Firehose delivers it (the stand-in's JSON lines), of `rows` requests of the workspaces given. */
function putRawFile(name: string, rows: Array<{ id: string; workspace: string; minute: number }>): string {
  const key = `requests/day=${DAY}/${name}`;
  const lines = rows.map(({ id, workspace, minute }) =>
    JSON.stringify({ id, trace_id: `t-${id}`, created_at: `${DAY} 10:${String(minute).padStart(2, '0')}:00.000`, organisation_id: 'org-1', workspace_id: workspace, model: 'm', status: 200, outcome: 'success', latency_ms: 5, metadata: {} }),
  );
  void data.put(key, Buffer.from(`${lines.join('\n')}\n`));
  return key;
}

const keys = (prefix: string) => [...data.objects.keys()].filter((key) => key.startsWith(prefix)).sort();
const compact = () => runAsFunction('compact-request-logs', () => compactRequestLogsFromSettings(RUN_AT, far()));

beforeAll(async () => {
  athena = athenaStandIn({
    region: 'us-east-1',
    account: '123456789012',
    workgroup: 'gw-logs',
    database: 'gw_logs',
    dataBucket: DATA,
    outputLocation: `s3://${RESULTS}/results/`,
    buckets: { [DATA]: data, [RESULTS]: results },
    authorize: () => true,
  });
  const athenaServer = await serveOnLoopback(athena.handler);
  const s3Server = await serveOnLoopback(s3StandIn({ buckets: { [DATA]: data, [RESULTS]: results } }));
  servers.push(athenaServer, s3Server);
  // What the stack gives the function (settings are read once, on first use).
  Object.assign(process.env, { GW_ATHENA_ENDPOINT: athenaServer.url, GW_S3_ENDPOINT: s3Server.url, GW_ATHENA_WORKGROUP: 'gw-logs', GW_LOG_DATA_BUCKET: DATA, GW_LOG_RESULTS_BUCKET: RESULTS });
});

afterAll(async () => {
  for (const server of servers) await server.close();
  await athena?.close();
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
  it("unloads the day's rows into one folder per workspace bucket, marks the day, and deletes exactly the raw files it read", async () => {
    const raw = [
      putRawFile('gw-requests-1', [{ id: 'a', workspace: 'ws-1', minute: 3 }, { id: 'b', workspace: 'ws-2', minute: 1 }]),
      putRawFile('gw-requests-2', [{ id: 'c', workspace: 'ws-1', minute: 2 }]),
    ];
    const span = { span_id: 's1', log_id: 'a', trace_id: 't-a', organisation_id: 'org-1', workspace_id: 'ws-1', name: 'auth', kind: 'stage', start_time: `${DAY} 10:02:59.000`, status: 'ok', attributes: '{}' };
    await data.put(`spans/day=${DAY}/gw-spans-1`, Buffer.from(`${JSON.stringify(span)}\n`));
    const days = await compact();
    expect(days.find((day) => day.table === 'requests' && day.day === DAY)).toEqual({ table: 'requests', day: DAY, outcome: 'compacted', rows: 3, deletedRawFiles: 2 });
    expect(days.find((day) => day.table === 'spans' && day.day === DAY)).toEqual({ table: 'spans', day: DAY, outcome: 'compacted', rows: 1, deletedRawFiles: 1 });
    expect(days.filter((day) => day.outcome === 'compacted')).toHaveLength(2);
    expect(keys('requests/')).toEqual([]);
    expect(keys('spans/')).toEqual([]);
    const compacted = keys(`compacted/requests/day=${DAY}/`);
    const folders = new Set(compacted.filter((key) => key.includes('/ws_bucket=')).map((key) => key.split('/')[3]));
    expect(folders).toEqual(new Set(['ws-1', 'ws-2'].map((workspace) => `ws_bucket=${workspaceBucket(workspace)}`)));
    const marker = JSON.parse(data.objects.get(`compacted/requests/day=${DAY}/_gw_compaction.json`)!.toString('utf8')) as Record<string, unknown>;
    expect(marker).toMatchObject({ table: 'requests', day: DAY, rows: 3, raw_files: raw });
    expect(data.objects.has(LOCK_KEY)).toBe(false);
    expect((marker.files as string[]).every((file) => file.startsWith(`s3://${DATA}/compacted/requests/day=${DAY}/ws_bucket=`))).toBe(true);
    // The UNLOAD sorted by workspace and time: read back through the stand-in's compacted table.
    const unload = [...athena.executions.values()].find((execution) => execution.query.includes(' FROM requests WHERE day = ?'))!;
    expect(unload.query).toMatch(/^UNLOAD \(SELECT .* FROM requests WHERE day = \? ORDER BY workspace_id, created_at\) TO 's3:\/\/gw-log-data\/compacted\/requests\/day=2026-11-25\/' WITH \(format = 'PARQUET', compression = 'SNAPPY', partitioned_by = ARRAY\['ws_bucket'\]\)$/);
    expect(unload.parameters).toEqual([`'${DAY}'`]);

    const seen = [...new Set(recordedOperationCounts().map(({ fn, service, action, resource }) => `${fn} ${service}:${action} ${resource.replace(/(day=[^/]+\/).*$/, '$1…')}`))].sort();
    expect(seen).toEqual([
      'compact-request-logs athena:GetQueryExecution workgroup/gw-logs',
      'compact-request-logs athena:GetQueryRuntimeStatistics workgroup/gw-logs',
      'compact-request-logs athena:StartQueryExecution workgroup/gw-logs',
      // The lock: created only if absent, removed at the end.
      'compact-request-logs s3:DeleteObject bucket/log-data/compacted/_gw_compaction.lock',
      `compact-request-logs s3:DeleteObject bucket/log-data/requests/day=${DAY}/…`,
      `compact-request-logs s3:DeleteObject bucket/log-data/spans/day=${DAY}/…`,
      `compact-request-logs s3:ListBucket bucket/log-data`,
      'compact-request-logs s3:PutObject bucket/log-data/compacted/_gw_compaction.lock',
      `compact-request-logs s3:PutObject bucket/log-data/compacted/requests/day=${DAY}/…`,
      `compact-request-logs s3:PutObject bucket/log-data/compacted/spans/day=${DAY}/…`,
    ]);
  });

  it('does nothing the second time, and deletes only the listed raw files a stopped run left', async () => {
    const raw = putRawFile('gw-requests-1', [{ id: 'a', workspace: 'ws-1', minute: 3 }]);
    await compact();
    // A run stopped after its marker left a raw file it had compacted; a file that arrived later was never compacted.
    await data.put(raw, Buffer.from('{}\n'));
    const late = putRawFile('gw-requests-9', [{ id: 'z', workspace: 'ws-1', minute: 59 }]);
    const unloads = athena.executions.size;
    resetRecordedOperationCounts();
    const again = await compact();
    expect(again.find((day) => day.table === 'requests' && day.day === DAY)).toEqual({ table: 'requests', day: DAY, outcome: 'already-compacted', deletedRawFiles: 1 });
    expect(athena.executions.size).toBe(unloads);
    expect(keys('requests/')).toEqual([late]);
    const reads = recordedOperationCounts().filter((operation) => operation.action === 'GetObject').map((operation) => operation.resource);
    expect(reads).toEqual([`bucket/log-data/compacted/requests/day=${DAY}/_gw_compaction.json`]);
  });

  it('removes what a failed attempt wrote before it unloads the day again (UNLOAD needs an empty prefix)', async () => {
    putRawFile('gw-requests-1', [{ id: 'a', workspace: 'ws-1', minute: 3 }]);
    const partial = `compacted/requests/day=${DAY}/ws_bucket=3/partial_00000`;
    await data.put(partial, Buffer.from('not parquet'));
    const days = await compact();
    expect(days.find((day) => day.table === 'requests' && day.day === DAY)).toMatchObject({ outcome: 'compacted', rows: 1 });
    expect(data.objects.has(partial)).toBe(false);
    expect(recordedOperationCounts().some((operation) => operation.action === 'DeleteObject' && operation.resource === `bucket/log-data/${partial}`)).toBe(true);
  });

  it('fails the run with the reason when the UNLOAD fails, leaving the raw files and no marker', async () => {
    const raw = putRawFile('gw-requests-1', [{ id: 'a', workspace: 'ws-1', minute: 3 }]);
    // Athena cannot write the UNLOAD's first file (S3 refuses it): the query fails with S3's reason.
    const put = data.put.bind(data);
    let cleared = false;
    data.put = async (key, bytes) => {
      if (!cleared && key.startsWith(`compacted/requests/day=${DAY}/ws_bucket=`)) {
        cleared = true;
        throw new Error('SlowDown: please reduce your request rate');
      }
      return put(key, bytes);
    };
    try {
      await expect(compact()).rejects.toThrow(/compaction of requests day=2026-11-25 failed: .*SlowDown/);
    } finally {
      data.put = put;
    }
    expect(keys('requests/')).toEqual([raw]);
    expect(data.objects.has(`compacted/requests/day=${DAY}/_gw_compaction.json`)).toBe(false);
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
