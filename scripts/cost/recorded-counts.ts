import { readFileSync, writeFileSync } from 'node:fs';

/**
 * The billed AWS operations of one warm gateway request, as measured on the built gateway bundle against the AWS
 * stand-ins (test/infra/gateway-concurrency.test.ts, "billed operations per warm request"): every call the IAM check
 * saw and every record Firehose received. `npm run cost` prices these counts; it never guesses them. The test fails
 * when the code's counts drift from the committed file, and rewrites it with GW_WRITE_RECORDED_COUNTS=1.
 */
export interface RecordedCounts {
  scenario: string;
  measuredBy: string;
  /** Requests measured (after one warm-up). */
  requests: number;
  /** Per request, by `<service>:<action> <resource>` (Firehose calls left out: their number depends on buffering, and Firehose bills records, not calls). */
  operations: Record<string, number>;
  dynamodb: {
    readsPerRequest: number;
    writesPerRequest: number;
    /** Index entries DynamoDB writes with each write (the charged item carries a global-index key: +1 WRU each). */
    indexEntriesPerWrite: number;
  };
  /**
   * Records Firehose received and the KB it billed, divided by the requests. The gateway packs the rows of a flush
   * into one record per table (firehose-sink.ts), so these are per flush: measured with one flush per request, as a
   * Lambda drains at the end of every invocation (the dearest case: ~2 records, one per table). Where invocations
   * overlap (managed instances, concurrency) a flush carries several requests' rows and a request costs less.
   */
  firehose: {
    recordsPerRequest: number;
    /** Firehose bills each record rounded up to 5 KB: the sum over a request's records. */
    billedKbPerRequest: number;
    /** Rows (a request row and its spans) per request: what the records carry, whatever their packing. */
    rowsPerRequest: number;
    /** The bytes of those records per request, in KB to 0.1 (what crosses a NAT gateway). */
    kbPerRequest: number;
  };
  secretsManagerCallsPerRequest: number;
  s3CallsPerRequest: number;
}

export const RECORDED_COUNTS_FILE = new URL('./recorded-counts.json', import.meta.url);
const FIREHOSE_BILLING_UNIT_BYTES = 5 * 1024;

const round = (value: number) => Math.round(value * 1000) / 1000;

/**
 * Counts per request from what the stand-ins saw: `calls` as `<function> <service>:<action> <arn>` (the IAM check's
 * log), `recordBytes` the size of every Firehose record, `rows` the rows they carried.
 */
export function recordedCountsFrom(requests: number, calls: readonly string[], recordBytes: readonly number[], rows: number): RecordedCounts {
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
    if (service === 'dynamodb' && /^(PutItem|UpdateItem|DeleteItem|BatchWriteItem)$/.test(verb)) writes++;
    if (service === 'secretsmanager') secrets++;
    if (service === 's3') s3++;
  }
  const billedKb = recordBytes.reduce((sum, bytes) => sum + Math.max(1, Math.ceil(bytes / FIREHOSE_BILLING_UNIT_BYTES)) * 5, 0);
  return {
    scenario: 'warm non-streamed chat completion, gw API key, no policies or budgets, request logs on',
    measuredBy: 'test/infra/gateway-concurrency.test.ts',
    requests,
    operations: Object.fromEntries(Object.entries(operations).sort().map(([key, count]) => [key, round(count / requests)])),
    dynamodb: { readsPerRequest: round(reads / requests), writesPerRequest: round(writes / requests), indexEntriesPerWrite: 0 },
    firehose: {
      recordsPerRequest: round(recordBytes.length / requests),
      billedKbPerRequest: round(billedKb / requests),
      rowsPerRequest: round(rows / requests),
      // To 0.1 KB: ids and times vary a few bytes from run to run, and the NAT line needs no more.
      kbPerRequest: Math.round((recordBytes.reduce((sum, bytes) => sum + bytes, 0) / 1024 / requests) * 10) / 10,
    },
    secretsManagerCallsPerRequest: round(secrets / requests),
    s3CallsPerRequest: round(s3 / requests),
  };
}

export function readRecordedCounts(file: URL | string = RECORDED_COUNTS_FILE): RecordedCounts {
  return JSON.parse(readFileSync(file, 'utf8')) as RecordedCounts;
}

export function writeRecordedCounts(counts: RecordedCounts, file: URL | string = RECORDED_COUNTS_FILE): void {
  writeFileSync(file, `${JSON.stringify(counts, null, 2)}\n`);
}
