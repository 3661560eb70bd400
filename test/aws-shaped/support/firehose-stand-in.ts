import type { ObjectBacking } from '../../../shared/store/recording/stand-ins/s3-stand-in.js';
import type { StandInAuthorizer } from '../../../shared/store/recording/stand-ins/wire.js';
import { AwsServiceError, accessDenied, jsonProtocolHandler } from './json-protocol.js';

/**
 * Amazon Data Firehose on loopback, as far as the gateway's sink uses it: `PutRecordBatch` on the stack's delivery
 * streams, each call checked against the caller's IAM statements. What a stream would deliver to S3 is kept as
 * decoded rows: each record holds JSON lines (firehose-sink.ts), split into rows by the stream's multi-record
 * deaggregation (at most 500 a record; a stream without it takes a record as one row, so a record of several rows
 * fails its processing and lands under `errors/`, as on AWS), and a row's `day` is the UTC day of its own
 * `created_at` (spans: `start_time`), as the stream's dynamic partitioning makes it, `day=!{partitionKeyFromQuery:day}/`
 * from jq's `.created_at[0:10]` (the Athena stand-in reads these rows as the tables).
 */
export interface DeliveredRow {
  row: Record<string, unknown>;
  day: string;
}

export interface FirehoseStandIn {
  handler: ReturnType<typeof jsonProtocolHandler>;
  /** Stream name → the rows it received, in arrival order. */
  delivered: Map<string, DeliveredRow[]>;
  /** Stream name → the byte size of every record it accepted, in arrival order (Firehose bills records, not rows). */
  records: Map<string, number[]>;
  /** Stream name → the records that failed processing (none are delivered), as their text. */
  processingFailed: Map<string, string[]>;
}

export interface FirehoseStandInOptions {
  region: string;
  account: string;
  streams: readonly string[];
  authorize: StandInAuthorizer;
  /**
   * Where each stream delivers: the data bucket's objects and the stream's prefix (`<table>/`). Each call becomes one
   * object `<prefix>day=YYYY-MM-DD/<stream>-<n>` of its JSON lines (JSON, not Parquet: the Athena stand-in reads
   * either), as a buffer becomes one file on S3, so the compaction lists, reads and deletes files as on AWS.
   */
  destination?: { objects: ObjectBacking; prefixes: Record<string, string> };
  /** The streams' RecordDeAggregation processor (`JSON`), as the template configures it; none by default. */
  deaggregation?: 'JSON';
}

/** Firehose's cap on the sub-records one record deaggregates into. */
const MAX_SUB_RECORDS = 500;

/**
 * The multi-record deaggregation the template's delivery streams configure (every stream the same), so the
 * stand-in splits records exactly when the stack's streams would.
 */
export function templateDeaggregation(template: { Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }> }): 'JSON' | undefined {
  const stream = Object.values(template.Resources).find((resource) => resource.Type === 'AWS::KinesisFirehose::DeliveryStream');
  const destination = stream?.Properties?.ExtendedS3DestinationConfiguration as
    | { ProcessingConfiguration?: { Processors?: Array<{ Type: string; Parameters?: Array<{ ParameterName: string; ParameterValue: string }> }> } }
    | undefined;
  const processor = destination?.ProcessingConfiguration?.Processors?.find((entry) => entry.Type === 'RecordDeAggregation');
  return processor?.Parameters?.find((parameter) => parameter.ParameterName === 'SubRecordType')?.ParameterValue === 'JSON' ? 'JSON' : undefined;
}

export function firehoseStandIn(options: FirehoseStandInOptions): FirehoseStandIn {
  const delivered = new Map(options.streams.map((stream) => [stream, [] as DeliveredRow[]]));
  const received = new Map(options.streams.map((stream) => [stream, [] as number[]]));
  let files = 0;
  /** Records that failed processing, by stream (Firehose writes them under the error output prefix). */
  const processingFailed = new Map<string, string[]>();
  const handler = jsonProtocolHandler('Firehose_20150804', {
    PutRecordBatch: async ({ input, caller }) => {
      const stream = String(input.DeliveryStreamName ?? '');
      const arn = `arn:aws:firehose:${options.region}:${options.account}:deliverystream/${stream}`;
      if (!options.authorize(caller, 'firehose:PutRecordBatch', arn)) throw accessDenied(caller, 'firehose:PutRecordBatch', arn);
      const rows = delivered.get(stream);
      if (!rows) throw new AwsServiceError('ResourceNotFoundException', `Firehose ${stream} under account ${options.account} not found.`);
      const records = (input.Records as Array<{ Data?: string }> | undefined) ?? [];
      if (records.length === 0 || records.length > 500) throw new AwsServiceError('InvalidArgumentException', `Records must hold 1 to 500 records, not ${records.length}`);
      const byDay = new Map<string, string[]>();
      for (const record of records) {
        // A record is bytes as Firehose stores them; the record format conversion reads JSON objects out of them.
        const bytes = Buffer.from(record.Data ?? '', 'base64');
        received.get(stream)!.push(bytes.byteLength);
        const text = bytes.toString('utf8');
        const lines = text.split('\n').filter((entry) => entry.trim() !== '');
        // Without deaggregation a record is one row; with it, at most 500 sub-records. Either way a record that
        // breaks the rule fails processing as a whole: none of its rows is delivered.
        if (lines.length > (options.deaggregation === 'JSON' ? MAX_SUB_RECORDS : 1)) {
          processingFailed.set(stream, [...(processingFailed.get(stream) ?? []), text]);
          continue;
        }
        for (const line of lines) {
          const row = JSON.parse(line) as Record<string, unknown>;
          const day = String(row.created_at ?? row.start_time ?? '').slice(0, 10);
          if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) throw new AwsServiceError('InvalidArgumentException', 'a record without the day its partition key query reads');
          rows.push({ row, day });
          byDay.set(day, [...(byDay.get(day) ?? []), line]);
        }
      }
      const prefix = options.destination?.prefixes[stream];
      // One object per partition of the call, as a buffer becomes one file per dynamic partition.
      for (const [day, lines] of byDay) {
        if (options.destination && prefix !== undefined) await options.destination.objects.put(`${prefix}day=${day}/${stream}-${++files}`, Buffer.from(`${lines.join('\n')}\n`));
      }
      return { FailedPutCount: 0, Encrypted: false, RequestResponses: records.map((_record, index) => ({ RecordId: `stand-in-${rows.length}-${index}` })) };
    },
  }, { iamPrefix: 'firehose', authorize: options.authorize, resourceOf: (input) => `arn:aws:firehose:${options.region}:${options.account}:deliverystream/${String(input.DeliveryStreamName ?? '*')}` });
  return { handler, delivered, records: received, processingFailed };
}
