import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyticsTotals } from '../../../../shared/observability/engine/analytics-queries.js';
import { AthenaQueryEngine } from '../../../../shared/observability/engine/aws/athena-engine.js';
import { compactRequestLogsFromSettings } from '../../../../shared/observability/engine/aws/compaction-from-settings.js';
import { encodeRow } from '../../../../shared/observability/engine/aws/row-json.js';
import { REQUEST_COLUMNS, requestRow } from '../../../../shared/observability/engine/columns.js';
import { getRequest, listRequests, type LogQuery } from '../../../../shared/observability/engine/log-queries.js';
import { readRow, recordFromRow } from '../../../../shared/observability/engine/rows.js';
import type { RequestLogRecord } from '../../../../shared/observability/log-record.js';
import { reconcile } from '../../../../shared/gateway/enforcement/reconcile.js';
import type { PolicyRecord } from '../../../../shared/store/policy-repository.js';
import { sumUsd } from '../../../../shared/observability/pricing/usd.js';
import { logRecord } from '../log-engine-support.js';
import { memoryObjects } from '../../../../shared/store/recording/stand-ins/s3-stand-in.js';
import type { AthenaStandIn } from '../../../aws-shaped/support/athena-stand-in.js';
import { startLogStandIns, type LogStandIns } from './log-stand-ins.js';
import { chatRecord, mediaRecords, ZERO_TOKENS } from '../media-records.js';

/**
 * Media units are lost from request logs (issue #47) on AWS unless every stage carries them: the Firehose record (the
 * JSON line the Hive SerDe converts into the Glue table's Parquet columns), the raw Glue table Athena reads, and the
 * daily compaction's UNLOAD into the compacted table. The records go in as Firehose delivers them (the sink's own
 * encoding), are read through the Athena engine and the Athena stand-in (DuckDB under Trino's text), then the day is
 * compacted (the stand-in runs the UNLOAD and writes the Parquet files) and read again, now from the compacted side.
 * A Firehose record from before the media columns (no such keys) reads with them null, before and after compaction.
 */
const data = memoryObjects();
const results = memoryObjects();
let standIns: LogStandIns;
let athena: AthenaStandIn;
let engine: AthenaQueryEngine;

// A finished, settled day the compaction takes (daysToCompact), and files written well before the run's cutoff.
const DAY = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
const FILE_TIME = Math.floor((Date.now() - 10 * 60_000) / 1000) * 1000;
const MEDIA = mediaRecords(DAY);
const OLD = chatRecord(DAY);
/**
 * Another workspace's media requests, for reconcile on Athena: a priced speech request, and unpriced ones (`cost:
 * null`) that cost limits were charged at the default media rates: 3 images ($0.75) and two transcriptions of 7 s
 * ($0.0058333333 each, rounded per request as settlement charged them).
 */
const RECONCILED = [
  logRecord({ id: 'ws2-speech', created_at: `${DAY}T11:00:00.000Z`, workspace_id: 'ws-2', endpoint: 'audio/speech', model: 'tts-1', cost: 0.000465, usage: { ...ZERO_TOKENS, characters: 31 } }),
  logRecord({ id: 'ws2-image', created_at: `${DAY}T11:01:00.000Z`, workspace_id: 'ws-2', endpoint: 'images/generations', model: 'house-image', cost: null, usage: { ...ZERO_TOKENS, images: 3 } }),
  ...[2, 3].map((minute) => logRecord({ id: `ws2-transcription-${minute}`, created_at: `${DAY}T11:0${minute}:00.000Z`, workspace_id: 'ws-2', endpoint: 'audio/transcriptions', model: 'house-transcriber', cost: null, usage: { ...ZERO_TOKENS, audio_seconds: 7 } })),
];
const RECONCILED_CHARGE = sumUsd([0.000465, 0.75, 0.0058333333, 0.0058333333]);
/** The columns a Firehose record held before the media columns: everything up to the partition column. */
const OLD_COLUMNS = REQUEST_COLUMNS.slice(0, REQUEST_COLUMNS.findIndex((column) => column.name === 'day') + 1);

const query: LogQuery = { scope: { organisationId: 'org-1', workspaceId: 'ws-1' }, range: { from: `${DAY}T00:00:00.000Z`, to: `${DAY}T23:59:59.999Z` } };

function putRawFile(key: string, records: RequestLogRecord[], columns = REQUEST_COLUMNS): void {
  data.objects.set(key, Buffer.concat(records.map((record) => Buffer.from(encodeRow(requestRow(record), columns)))));
  data.modified.set(key, new Date(FILE_TIME));
}

async function records(): Promise<Map<string, RequestLogRecord>> {
  const { rows } = await engine.query(listRequests('trino', query, 10));
  return new Map(rows.map((row) => [String(row.id), recordFromRow(readRow('requests', row), [])]));
}

beforeAll(async () => {
  standIns = await startLogStandIns(data, results);
  athena = standIns.athena;
  engine = standIns.engine();
  putRawFile(`requests/day=${DAY}/gw-requests-media`, MEDIA);
  putRawFile(`requests/day=${DAY}/gw-requests-before-media-columns`, [OLD], OLD_COLUMNS);
  putRawFile(`requests/day=${DAY}/gw-requests-ws-2`, RECONCILED);
});

afterAll(async () => {
  await standIns?.close();
});

/** What the read APIs must say of the four requests, whichever side of the compaction they are read from. */
async function expectMediaUnitsRead(): Promise<void> {
  const read = await records();
  expect([...read.keys()]).toEqual(['transcription', 'speech', 'image', 'old-chat']);
  expect(read.get('image')?.usage).toEqual({ ...ZERO_TOKENS, images: 2, image_size: '1024x1792', image_quality: 'hd' });
  expect(read.get('speech')?.usage).toEqual({ ...ZERO_TOKENS, characters: 31 });
  expect(read.get('transcription')?.usage).toEqual({ ...ZERO_TOKENS, audio_seconds: 25.933 });
  expect(read.get('old-chat')?.usage).toEqual(OLD.usage);
  const [single] = (await engine.query(getRequest('trino', query, 'image'))).rows;
  expect(recordFromRow(readRow('requests', single), []).usage).toMatchObject({ images: 2, image_size: '1024x1792' });
  const [totals] = (await engine.query(analyticsTotals('trino', { ...query, groupBy: 'workspace', interval: 'day' }))).rows;
  expect([totals.requests, totals.images, totals.characters, totals.audio_seconds].map(Number)).toEqual([4, 2, 31, 25.933]);
}

describe('media units are lost from request logs: Firehose, the Glue tables and the compaction carry them', () => {
  it('the Firehose record holds the media columns, with null where a request has none', () => {
    const line = (record: RequestLogRecord) => JSON.parse(new TextDecoder().decode(encodeRow(requestRow(record), REQUEST_COLUMNS))) as Record<string, unknown>;
    expect(line(MEDIA[0])).toMatchObject({ images: 2, image_size: '1024x1792', image_quality: 'hd', characters: null, audio_seconds: null });
    expect(line(MEDIA[2])).toMatchObject({ audio_seconds: 25.933, images: null });
    expect(line(OLD)).toMatchObject({ images: null, characters: null, audio_seconds: null, image_size: null, image_quality: null });
    expect(line(OLD)).not.toHaveProperty('day');
  });

  it('Athena reads them from the raw table: list, single record and analytics sums; a record from before them reads null', async () => {
    await expectMediaUnitsRead();
  });

  it("the compaction's UNLOAD carries them into the compacted Parquet files, read from there the same", async () => {
    const days = await compactRequestLogsFromSettings(new Date(), Date.now() + 60_000);
    expect(days.find((day) => day.table === 'requests' && day.day === DAY)).toMatchObject({ outcome: 'compacted', rows: 4 + RECONCILED.length });
    const unload = [...athena.executions.values()].find((execution) => execution.query.startsWith('UNLOAD (SELECT ') && execution.query.includes(' FROM requests WHERE day = ?'))!;
    expect(unload.query).toContain('image_size, image_quality, bitwise_and(');
    // Read from the compacted side now (the raw files are still there, within their grace): the same answers.
    const readsCompacted = [...athena.executions.values()].length;
    await expectMediaUnitsRead();
    const reads = [...athena.executions.values()].slice(readsCompacted);
    expect(reads.some((execution) => execution.query.includes("compacted_slice IN ('day="))).toBe(true);
  });

  it('reconcile on Athena: analytics = the logged media sums, and a budget and a cost limit charged the unpriced media units agree', async () => {
    const workspace = { id: 'ws-2', organisation_id: 'org-1', created_at: `${DAY}T00:00:00.000Z` };
    const policy = {
      id: 'policy-media',
      kind: 'usage_limit',
      name: 'media cost',
      conditions: [{ key: 'workspace_id', value: '*' }],
      group_by: [],
      type: 'requests',
      unit: 'rpd',
      value: 1_000_000,
      credit_limit: { type: 'cost', value: 1_000 },
      periodic_reset: 'none',
      status: 'active',
      workspace_id: 'ws-2',
      organisation_id: 'org-1',
      created_at: workspace.created_at,
      updated_at: workspace.created_at,
      version: 1,
    } as PolicyRecord;
    // The stores hold what settlement charged (the sum above), so a difference is the log side's.
    const report = await reconcile(
      { workspaceId: 'ws-2', from: workspace.created_at },
      {
        engine: async () => engine,
        workspaces: { getWorkspace: async () => workspace as never },
        budgets: { read: async () => ({ currentUsage: RECONCILED_CHARGE }) as never },
        limits: { policies: async () => [policy], providers: async () => [], counters: { read: async () => RECONCILED_CHARGE, leaseRecords: async () => [], reclaimLease: async () => false } },
        now: Date.now,
      },
    );
    expect(report.differences).toEqual([]);
    expect(report.analytics).toMatchObject({ requests: 4, characters: 31, images: 3, audioSeconds: 14 });
    expect(report.logged).toMatchObject({ requests: 4, characters: 31, images: 3, audioSeconds: 14, unpricedRequests: 3, unpricedMediaCharge: 0.7616666666 });
    expect(report.budget).toMatchObject({ charged: RECONCILED_CHARGE, expected: RECONCILED_CHARGE });
    expect(report.limits.compared.map((comparison) => comparison.logged)).toEqual([RECONCILED_CHARGE]);
  });
});
