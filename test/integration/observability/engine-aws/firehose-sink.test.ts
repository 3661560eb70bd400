import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { drainAllBackgroundWork } from '../../../../shared/observability/background.js';
import { createFirehoseClient } from '../../../../shared/observability/engine/aws/clients.js';
import { FirehoseSink, MAX_BYTES_PER_CALL, MAX_BYTES_PER_RECORD, MAX_RECORDS_PER_CALL, MAX_ROWS_PER_RECORD } from '../../../../shared/observability/engine/aws/firehose-sink.js';
import { createAwsLogEngine } from '../../../../shared/observability/engine/aws/index.js';
import type { EngineRow } from '../../../../shared/observability/engine/types.js';
import { recordedOperationCounts, resetRecordedOperationCounts, runAsFunction } from '../../../../shared/store/recording/aws-operation-recorder.js';
import { PROVISIONAL_ENGINE_COLUMNS } from '../../../infra/fixtures/request-log-columns.js';
import { startAwsJsonService, type AwsJsonService } from '../../../support/aws-json-service.js';

/**
 * The Firehose sink with the real SDK client against a loopback Firehose (JSON protocol): what a record looks like
 * (JSON lines of many rows, which the streams deaggregate), how rows are packed into records and records into
 * PutRecordBatch calls, and what happens to records a call reports as failed.
 */
let firehose: AwsJsonService;
const STREAMS = { requests: 'gw-requests', spans: 'gw-spans' } as const;

interface SentRecord {
  Data: string;
}
const recordsOf = (input: Record<string, unknown>) => input.Records as SentRecord[];
const decode = (record: SentRecord) => Buffer.from(record.Data, 'base64').toString('utf8');
/** Every record sent to `stream`, decoded. */
const recordsSent = (stream: string) =>
  firehose
    .callsOf('PutRecordBatch')
    .filter((call) => call.input.DeliveryStreamName === stream)
    .flatMap((call) => recordsOf(call.input).map(decode));
/** Every row sent to `stream`: the JSON lines of its records, each with its newline. */
const allSent = (stream: string) => recordsSent(stream).flatMap((record) => record.split(/(?<=\n)/));
const idsOf = (record: SentRecord) => decode(record).split('\n').filter(Boolean).map((line) => (JSON.parse(line) as { id: string }).id);

function sink(options: { retryDelaysMs?: number[]; maxDelayMs?: number } = {}): FirehoseSink {
  return new FirehoseSink({
    client: createFirehoseClient({ region: 'us-east-1', endpoint: firehose.endpoint }),
    streams: STREAMS,
    columns: PROVISIONAL_ENGINE_COLUMNS,
    retryDelaysMs: options.retryDelaysMs ?? [1, 1, 1],
    maxDelayMs: options.maxDelayMs ?? 60_000,
  });
}

const acceptAll = (input: Record<string, unknown>) => ({
  json: { FailedPutCount: 0, Encrypted: false, RequestResponses: recordsOf(input).map((_record, index) => ({ RecordId: `r${index}` })) },
});

function request(index: number, extra: Partial<EngineRow> = {}): EngineRow {
  return {
    id: `req_${index}`,
    trace_id: `trace_${index}`,
    workspace_id: 'ws_1',
    created_at: Date.UTC(2026, 10, 27, 10, 15, 3, 123),
    model: 'gpt-4o-mini',
    status: 200,
    cost: 0.00042,
    stream: false,
    metadata: { team: 'search', 'env=prod, x': "it's" },
    day: '2026-11-27',
    ...extra,
  };
}

beforeAll(async () => {
  firehose = await startAwsJsonService();
});
afterAll(async () => {
  await firehose.close();
});
afterEach(() => {
  firehose.calls.length = 0;
  firehose.on('PutRecordBatch', acceptAll);
});

describe('FirehoseSink records', () => {
  it('sends each row as one JSON line of the data columns, timestamps as the Hive SerDe reads them, to its table\'s stream', async () => {
    firehose.on('PutRecordBatch', acceptAll);
    const logs = sink();
    logs.append('requests', [request(1, { created_at: '2026-11-27T10:15:03.123Z' }), request(2, { cost: null })]);
    logs.append('spans', [{ span_id: 's1', trace_id: 'trace_1', started_at: Date.UTC(2026, 0, 2, 3, 4, 5, 6), duration_ms: 12, day: '2026-01-02' }]);
    await logs.flush();

    const requests = allSent('gw-requests');
    expect(requests).toHaveLength(2);
    for (const line of requests) expect(line.endsWith('\n') && line.indexOf('\n') === line.length - 1).toBe(true);
    const first = JSON.parse(requests[0]) as Record<string, unknown>;
    expect(first).toMatchObject({ id: 'req_1', created_at: '2026-11-27 10:15:03.123', status: 200, stream: false, metadata: { team: 'search', 'env=prod, x': "it's" } });
    expect(first).not.toHaveProperty('day');
    // Every data column is present (null when the row has none), so the Parquet schema never depends on a row.
    expect(Object.keys(first).sort()).toEqual(PROVISIONAL_ENGINE_COLUMNS.requests.map((column) => column.name).filter((name) => name !== 'day').sort());
    expect((JSON.parse(requests[1]) as Record<string, unknown>).cost).toBeNull();
    expect(allSent('gw-spans').map((line) => JSON.parse(line) as Record<string, unknown>)).toEqual([
      expect.objectContaining({ span_id: 's1', started_at: '2026-01-02 03:04:05.006', duration_ms: 12 }),
    ]);
  });

  it('sends nothing until flushed or its delay has passed, then on its own', async () => {
    const logs = sink({ maxDelayMs: 20 });
    logs.append('requests', [request(1)]);
    expect(firehose.callsOf('PutRecordBatch')).toHaveLength(0);
    await expect.poll(() => allSent('gw-requests').length).toBe(1);
    await logs.flush();
  });
});

describe('FirehoseSink flush', () => {
  it('waits for a send its timer started that is still in flight (a drain must not return before it)', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    firehose.on('PutRecordBatch', async (input) => {
      await held;
      return acceptAll(input);
    });
    const logs = sink({ maxDelayMs: 1 });
    logs.append('requests', [request(1)]);
    await expect.poll(() => firehose.callsOf('PutRecordBatch').length).toBe(1);
    let flushed = false;
    const flushing = logs.flush().then(() => (flushed = true));
    // Give the flush every chance to return early: a few turns of the event loop.
    for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(flushed).toBe(false);
    release();
    await flushing;
    expect(flushed).toBe(true);
  });
});

describe('FirehoseSink batching', () => {
  it('record packing (billing class: each record is billed rounded up to 5 KB): a flush of many requests sends one record per table, not one per row', async () => {
    const logs = sink();
    logs.append('requests', Array.from({ length: 20 }, (_unused, index) => request(index)));
    logs.append('spans', Array.from({ length: 80 }, (_unused, index) => ({ span_id: `s${index}`, trace_id: `trace_${index % 20}`, day: '2026-11-27' })));
    await logs.flush();
    expect(recordsSent('gw-requests')).toHaveLength(1);
    expect(recordsSent('gw-spans')).toHaveLength(1);
    expect(allSent('gw-requests').map((line) => (JSON.parse(line) as { id: string }).id)).toEqual(Array.from({ length: 20 }, (_unused, index) => `req_${index}`));
    expect(allSent('gw-spans')).toHaveLength(80);
  });

  it('packs 1,234 rows into records of at most 500 rows (Firehose deaggregates no more), each row sent once', async () => {
    const logs = sink();
    logs.append('requests', Array.from({ length: 1_234 }, (_unused, index) => request(index)));
    await logs.flush();
    const rowsPerRecord = firehose.callsOf('PutRecordBatch').flatMap((call) => recordsOf(call.input).map((record) => idsOf(record).length));
    // The appends start sends as each record's worth of rows arrives, so the calls may arrive in any order.
    expect(rowsPerRecord.sort((a, b) => a - b)).toEqual([234, MAX_ROWS_PER_RECORD, MAX_ROWS_PER_RECORD]);
    const ids = allSent('gw-requests').map((line) => (JSON.parse(line) as { id: string }).id);
    expect(new Set(ids).size).toBe(1_234);
    expect(ids.sort()).toEqual(Array.from({ length: 1_234 }, (_unused, index) => `req_${index}`).sort());
  });

  it('keeps every call under 4 MiB however few records that makes', async () => {
    const logs = sink();
    const big = 'x'.repeat(300 * 1024);
    logs.append('requests', Array.from({ length: 30 }, (_unused, index) => request(index, { target_path: big })));
    await logs.flush();
    const calls = firehose.callsOf('PutRecordBatch');
    expect(calls.length).toBeGreaterThan(2);
    for (const call of calls) {
      const bytes = recordsOf(call.input).reduce((sum, record) => sum + Buffer.from(record.Data, 'base64').byteLength, 0);
      expect(bytes).toBeLessThanOrEqual(MAX_BYTES_PER_CALL);
      expect(recordsOf(call.input).length).toBeLessThanOrEqual(MAX_RECORDS_PER_CALL);
      // Rows of 300 KiB pack three to a record of at most 1,000 KiB.
      for (const record of recordsOf(call.input)) expect(Buffer.from(record.Data, 'base64').byteLength).toBeLessThanOrEqual(MAX_BYTES_PER_RECORD);
    }
    expect(allSent('gw-requests')).toHaveLength(30);
  });

  it('drops a row over the 1,000 KiB record limit (and only it) instead of failing the call', async () => {
    const logs = sink();
    expect(() => logs.append('requests', [request(1), request(2, { target_path: 'y'.repeat(MAX_BYTES_PER_RECORD) }), request(3)])).not.toThrow();
    await logs.flush();
    expect(allSent('gw-requests').map((line) => (JSON.parse(line) as { id: string }).id)).toEqual(['req_1', 'req_3']);
    expect(logs.dropped).toBe(1);
  });
});

describe('FirehoseSink failures', () => {
  it('sends again exactly the records a call reported as failed', async () => {
    let call = 0;
    firehose.on('PutRecordBatch', (input) => {
      call++;
      const records = recordsOf(input);
      if (call > 1) return acceptAll(input);
      return {
        json: {
          FailedPutCount: 2,
          RequestResponses: records.map((_record, index) =>
            index === 1 || index === 3 ? { ErrorCode: 'ServiceUnavailableException', ErrorMessage: 'Slow down.' } : { RecordId: `r${index}` },
          ),
        },
      };
    });
    const logs = sink();
    // Rows of 600 KiB: one to a record, so five records.
    const big = 'x'.repeat(600 * 1024);
    logs.append('requests', [0, 1, 2, 3, 4].map((index) => request(index, { target_path: big })));
    await logs.flush();
    const calls = firehose.callsOf('PutRecordBatch');
    // Five records of 600 KiB fit one call (under 4 MiB); the retry holds only the two that failed.
    expect(calls).toHaveLength(2);
    expect(recordsOf(calls[0].input).map(idsOf)).toEqual([['req_0'], ['req_1'], ['req_2'], ['req_3'], ['req_4']]);
    expect(recordsOf(calls[1].input).map(idsOf)).toEqual([['req_1'], ['req_3']]);
    expect(logs.dropped).toBe(0);
  });

  it('gives up on a record after its bounded retries, counts the rows it held as dropped (not the record), and resolves the flush', async () => {
    firehose.on('PutRecordBatch', (input) => ({
      json: { FailedPutCount: 1, RequestResponses: recordsOf(input).map((_record, index) => (index === 0 ? { ErrorCode: 'InternalFailure' } : { RecordId: `r${index}` })) },
    }));
    const logs = sink({ retryDelaysMs: [1, 1, 1] });
    logs.append('requests', [request(1), request(2), request(3)]);
    await logs.flush();
    // One call and three retries of the record (all three rows) that keeps failing.
    expect(firehose.callsOf('PutRecordBatch').map((call) => recordsOf(call.input).map(idsOf))).toEqual(Array.from({ length: 4 }, () => [['req_1', 'req_2', 'req_3']]));
    expect(logs.dropped).toBe(3);
  });

  it('rides out throttling of a whole call (the SDK retries it)', async () => {
    let call = 0;
    firehose.on('PutRecordBatch', (input) => (++call === 1 ? { error: 'ThrottlingException', message: 'Rate exceeded' } : acceptAll(input)));
    const logs = sink();
    logs.append('requests', [request(1)]);
    await logs.flush();
    expect(firehose.callsOf('PutRecordBatch')).toHaveLength(2);
    expect(logs.dropped).toBe(0);
  });

  it('never throws into the caller when the stream is gone: the rows are counted as dropped', async () => {
    firehose.on('PutRecordBatch', () => ({ error: 'ResourceNotFoundException', message: 'Firehose gw-requests not found' }));
    const logs = sink();
    expect(() => logs.append('requests', [request(1), request(2)])).not.toThrow();
    await expect(logs.flush()).resolves.toBeUndefined();
    expect(logs.dropped).toBe(2);
  });

  it('never throws on a row that does not fit its columns', async () => {
    const logs = sink();
    expect(() => logs.append('requests', [request(1, { created_at: 'not a time' }), request(2)])).not.toThrow();
    await logs.flush();
    expect(allSent('gw-requests')).toHaveLength(1);
    expect(logs.dropped).toBe(1);
  });
});

describe('the AWS engine from settings', () => {
  it('flushes its sink at the Lambda drain, as the function that appended, and the recorder sees PutRecordBatch on the stream', async () => {
    process.env.GW_FIREHOSE_ENDPOINT = firehose.endpoint;
    const { sink: logs } = createAwsLogEngine(PROVISIONAL_ENGINE_COLUMNS);
    resetRecordedOperationCounts();
    runAsFunction('gateway', () => {
      logs.append('requests', [request(7)]);
      logs.append('spans', [{ span_id: 's7', trace_id: 'trace_7', day: '2026-11-27' }]);
    });
    await drainAllBackgroundWork();
    expect(allSent('gw-requests')).toHaveLength(1);
    expect(allSent('gw-spans')).toHaveLength(1);
    expect(recordedOperationCounts().sort((a, b) => a.resource.localeCompare(b.resource))).toEqual([
      { fn: 'gateway', service: 'firehose', action: 'PutRecordBatch', resource: 'deliverystream/gw-requests', count: 1 },
      { fn: 'gateway', service: 'firehose', action: 'PutRecordBatch', resource: 'deliverystream/gw-spans', count: 1 },
    ]);
  });
});
