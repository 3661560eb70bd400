import { readFileSync, writeFileSync } from 'node:fs';

/**
 * The billed AWS operations of one warm gateway request, as measured on the built gateway bundle against the AWS
 * stand-ins (test/infra/gateway-concurrency.test.ts, "billed operations per warm request"), once per compute: every
 * call the IAM check saw, every record Firehose received and every index entry DynamoDB would write. `npm run cost`
 * prices these counts; it never guesses them. The test fails when the code's counts drift from the committed file,
 * and rewrites it with GW_WRITE_RECORDED_COUNTS=1.
 */
/** The compute a scenario was measured for: the cost model prices each mode with its own counts. */
export type CountedCompute = 'lambda' | 'managed-instances';

/** Rows and bytes one request adds to one delivery stream, whatever their packing. */
export interface TableVolume {
  rowsPerRequest: number;
  /** KB to 0.1: ids and times vary a few bytes from run to run. */
  kbPerRequest: number;
}

export interface RecordedCounts {
  scenario: string;
  measuredBy: string;
  /** Requests measured (after the warm-up, which is left out). */
  requests: number;
  /** Per request, by `<service>:<action> <resource>` (Firehose calls left out: their number depends on buffering, and Firehose bills records, not calls). */
  operations: Record<string, number>;
  dynamodb: {
    readsPerRequest: number;
    writesPerRequest: number;
    /**
     * Global-index entries DynamoDB wrote with those writes, derived from the written items' keys (the stand-in
     * reads each item before and after its write): +1 WRU each, which the embedded store does not count.
     */
    indexEntriesPerRequest: number;
  };
  /**
   * What Firehose received. `recordsPerRequest` and `billedKbPerRequest` are measured where each request is flushed
   * alone (classic Lambda drains at the end of every invocation: ~2 records, one per table). Where invocations share
   * an environment (managed instances) the background flush packs every request of its interval into one record per
   * table, so they depend on the rate: absent here, the cost model derives them from `byTable` at the rate it prices
   * (model.ts firehosePerRequest), with the sink's packing rules.
   */
  firehose: {
    recordsPerRequest?: number;
    /** Firehose bills each record rounded up to 5 KB: the sum over a request's records. */
    billedKbPerRequest?: number;
    /** Rows (a request row and its spans) per request: what the records carry, whatever their packing. */
    rowsPerRequest: number;
    /** The bytes of those records per request, in KB to 0.1 (what crosses a NAT gateway). */
    kbPerRequest: number;
    byTable: { requests: TableVolume; spans: TableVolume };
  };
  secretsManagerCallsPerRequest: number;
  s3CallsPerRequest: number;
}

/** scripts/cost/recorded-counts.json: one scenario per compute. */
export type RecordedCountsFile = Record<CountedCompute, RecordedCounts>;

export const RECORDED_COUNTS_FILE = new URL('./recorded-counts.json', import.meta.url);
const FIREHOSE_BILLING_UNIT_BYTES = 5 * 1024;

const round = (value: number) => Math.round(value * 1000) / 1000;
const tenthKb = (bytes: number, requests: number) => Math.round((bytes / 1024 / requests) * 10) / 10;

export interface Measurement {
  scenario: string;
  measuredBy: string;
  requests: number;
  /** `<function> <service>:<action> <arn>` as the IAM check logged them. */
  calls: readonly string[];
  /** The size of every Firehose record received, by table. */
  records: { requests: readonly number[]; spans: readonly number[] };
  /** Rows received, by table. */
  rows: { requests: number; spans: number };
  /** Index entries the DynamoDB writes wrote (stand-in `writes`). */
  indexEntries: number;
  /** Whether each request was flushed alone (records and billed KB are then per request). */
  flushedPerRequest: boolean;
}

/** Counts per request from what the stand-ins saw. */
export function recordedCountsFrom(measurement: Measurement): RecordedCounts {
  const { requests, calls, records, rows } = measurement;
  const operations: Record<string, number> = {};
  let reads = 0;
  let writes = 0;
  let secrets = 0;
  let s3 = 0;
  for (const call of calls) {
    const [, action, arn] = call.split(' ');
    const [service, verb] = action.split(':');
    if (service === 'firehose') continue;
    const resource = arn.split(':').slice(5).join(':') || arn;
    const key = `${action} ${resource}`;
    operations[key] = (operations[key] ?? 0) + 1;
    if (service === 'dynamodb' && /^(GetItem|BatchGetItem|Query|Scan)$/.test(verb)) reads++;
    if (service === 'dynamodb' && /^(PutItem|UpdateItem|DeleteItem|BatchWriteItem|TransactWriteItems)$/.test(verb)) writes++;
    if (service === 'secretsmanager') secrets++;
    if (service === 's3') s3++;
  }
  const all = [...records.requests, ...records.spans];
  const billedKb = all.reduce((sum, bytes) => sum + Math.max(1, Math.ceil(bytes / FIREHOSE_BILLING_UNIT_BYTES)) * 5, 0);
  const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);
  return {
    scenario: measurement.scenario,
    measuredBy: measurement.measuredBy,
    requests,
    operations: Object.fromEntries(Object.entries(operations).sort().map(([key, count]) => [key, round(count / requests)])),
    dynamodb: { readsPerRequest: round(reads / requests), writesPerRequest: round(writes / requests), indexEntriesPerRequest: round(measurement.indexEntries / requests) },
    firehose: {
      ...(measurement.flushedPerRequest ? { recordsPerRequest: round(all.length / requests), billedKbPerRequest: round(billedKb / requests) } : {}),
      rowsPerRequest: round((rows.requests + rows.spans) / requests),
      kbPerRequest: tenthKb(sum(all), requests),
      byTable: {
        requests: { rowsPerRequest: round(rows.requests / requests), kbPerRequest: tenthKb(sum(records.requests), requests) },
        spans: { rowsPerRequest: round(rows.spans / requests), kbPerRequest: tenthKb(sum(records.spans), requests) },
      },
    },
    secretsManagerCallsPerRequest: round(secrets / requests),
    s3CallsPerRequest: round(s3 / requests),
  };
}

export function readRecordedCounts(file: URL | string = RECORDED_COUNTS_FILE): RecordedCountsFile {
  return JSON.parse(readFileSync(file, 'utf8')) as RecordedCountsFile;
}

/** Rewrites one scenario of the file (GW_WRITE_RECORDED_COUNTS=1 in test/infra/gateway-concurrency.test.ts). */
export function writeRecordedCounts(compute: CountedCompute, counts: RecordedCounts, file: URL | string = RECORDED_COUNTS_FILE): void {
  let current: Partial<RecordedCountsFile> = {};
  try {
    current = readRecordedCounts(file);
  } catch {
    // A first write.
  }
  const next = { lambda: current.lambda, 'managed-instances': current['managed-instances'], [compute]: counts };
  writeFileSync(file, `${JSON.stringify(next, null, 2)}\n`);
}
