import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AthenaClient } from '@aws-sdk/client-athena';
import { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyticsTotals, type AnalyticsQuery } from '../../../../shared/observability/engine/analytics-queries.js';
import { AthenaQueryEngine } from '../../../../shared/observability/engine/aws/athena-engine.js';
import { createFirehoseClient } from '../../../../shared/observability/engine/aws/clients.js';
import { CompactionStateReader } from '../../../../shared/observability/engine/aws/compaction-state.js';
import { FirehoseSink } from '../../../../shared/observability/engine/aws/firehose-sink.js';
import { requestRow, spanRows, TABLE_COLUMNS } from '../../../../shared/observability/engine/columns.js';
import { openDuckDbLogEngine, type DuckDbLogEngine } from '../../../../shared/observability/engine/duckdb/engine.js';
import type { QueryEngine } from '../../../../shared/observability/engine/types.js';
import { memoryObjects, s3StandIn } from '../../../../shared/store/recording/stand-ins/s3-stand-in.js';
import { serveOnLoopback, type LoopbackServer } from '../../../../shared/store/recording/stand-ins/wire.js';
import { athenaStandIn, type AthenaStandIn } from '../../../aws-shaped/support/athena-stand-in.js';
import { firehoseStandIn } from '../../../aws-shaped/support/firehose-stand-in.js';
import { logRecord } from '../log-engine-support.js';

/**
 * Analytics count every request exactly once on both engines (issue #41): the same records go through each engine's
 * own write path (DuckDB's sink; the Firehose sink to the Firehose stand-in, filed as the delivery stream's dynamic
 * partitioning files them, read by the Athena engine through the Athena stand-in) and the same reads must count them.
 */
const DATA = 'gw-log-data';
const RESULTS = 'gw-log-results';
const data = memoryObjects();
const results = memoryObjects();
const servers: LoopbackServer[] = [];
let athena: AthenaStandIn;
let aws: QueryEngine;
let duck: DuckDbLogEngine;
let folder: string;

// A request that started at 23:58 and ended (and was written, and reached Firehose) after midnight, today.
const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
const lateNight = logRecord({ id: 'late-night', created_at: `${yesterday}T23:58:00.000Z`, model: 'gpt-4o', latency_ms: 180_000, spans: [{ span_id: 'late-night-attempt', name: 'attempt openai', kind: 'attempt', start_time: `${yesterday}T23:58:00.100Z`, status: 'ok', attributes: {} }] });
const daytime = logRecord({ id: 'daytime', created_at: `${yesterday}T12:00:00.000Z`, model: 'gpt-4o' });
// A request without a model (refused before one was chosen): its own group, so the groups add up to every request.
const modelless = logRecord({ id: 'no-model', created_at: `${yesterday}T12:30:00.000Z`, model: undefined, status: 400, outcome: 'error' });
const records = [lateNight, daytime, modelless];

const query = (groupBy: AnalyticsQuery['groupBy']): AnalyticsQuery => ({
  scope: { organisationId: lateNight.organisation_id, workspaceId: lateNight.workspace_id },
  // Reads that end the day the requests started on.
  range: { from: `${yesterday}T00:00:00.000Z`, to: `${yesterday}T23:59:59.999Z` },
  groupBy,
  interval: 'day',
});

beforeAll(async () => {
  athena = athenaStandIn({ region: 'us-east-1', account: '123456789012', workgroup: 'gw-logs', database: 'gw_logs', dataBucket: DATA, outputLocation: `s3://${RESULTS}/results/`, buckets: { [DATA]: data, [RESULTS]: results }, authorize: () => true });
  const firehose = firehoseStandIn({ region: 'us-east-1', account: '123456789012', streams: ['gw-requests', 'gw-spans'], authorize: () => true, destination: { objects: data, prefixes: { 'gw-requests': 'requests/', 'gw-spans': 'spans/' } }, deaggregation: 'JSON' });
  for (const handler of [athena.handler, s3StandIn({ buckets: { [DATA]: data, [RESULTS]: results } }), firehose.handler]) servers.push(await serveOnLoopback(handler));
  const [athenaUrl, s3Url, firehoseUrl] = servers.map((server) => server.url);
  const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
  const s3 = new S3Client({ region: 'us-east-1', endpoint: s3Url, forcePathStyle: true, credentials });
  aws = new AthenaQueryEngine({ athena: new AthenaClient({ region: 'us-east-1', endpoint: athenaUrl, credentials }), s3, workgroup: 'gw-logs', database: 'gw_logs', timeoutMs: 30_000, freshnessMs: 0, pollDelaysMs: [20], compactionState: new CompactionStateReader(s3, DATA, 0) });
  process.env.AWS_ACCESS_KEY_ID ??= 'test';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'test';
  const sink = new FirehoseSink({ client: createFirehoseClient({ region: 'us-east-1', endpoint: firehoseUrl }), streams: { requests: 'gw-requests', spans: 'gw-spans' }, columns: TABLE_COLUMNS });
  sink.append('requests', records.map(requestRow));
  sink.append('spans', records.flatMap(spanRows));
  await sink.flush();
  expect(sink.dropped).toBe(0);

  folder = mkdtempSync(join(tmpdir(), 'gw-exactly-once-'));
  duck = await openDuckDbLogEngine({ path: ':memory:', spillDirectory: join(folder, 'spill'), memoryLimit: '128MB', retentionMs: 3_650 * 86_400_000, retentionIntervalMs: 0, journalDirectory: join(folder, 'journal'), journalMaxBytes: 1 << 30, memoryRecords: 1_000 });
  duck.sink.append('requests', records.map(requestRow));
  duck.sink.append('spans', records.flatMap(spanRows));
  await duck.sink.flush();
});

afterAll(async () => {
  for (const server of servers) await server.close();
  await athena?.close();
  await duck?.sink.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

const engines = { duckdb: () => duck.engine, athena: () => aws };

describe.each(Object.entries(engines))('on %s', (_name, engine) => {
  const totals = async (groupBy: AnalyticsQuery['groupBy']) => (await engine().query(analyticsTotals(engine().dialect, query(groupBy)))).rows;

  it('counts a request that started before midnight and ended after it in the day it started (rows filed by their own day, not their arrival)', async () => {
    const rows = await totals('workspace');
    expect(rows.map((row) => Number(row.requests))).toEqual([3]);
    // Filed under the day it started, though it reached Firehose today.
    if (engine() === aws) expect([...data.objects.keys()].some((key) => key.startsWith(`requests/day=${yesterday}/`))).toBe(true);
  });

  it('groups by model with requests without one as a null group, so the groups add up to the request count', async () => {
    const rows = await totals('model');
    expect(rows.map((row) => [row.group_key ?? null, Number(row.requests)])).toEqual([
      ['gpt-4o', 2],
      [null, 1],
    ]);
  });
});
