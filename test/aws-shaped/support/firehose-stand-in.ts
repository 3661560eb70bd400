import type { ObjectBacking } from '../../../shared/store/recording/stand-ins/s3-stand-in.js';
import type { StandInAuthorizer } from '../../../shared/store/recording/stand-ins/wire.js';
import { AwsServiceError, accessDenied, jsonProtocolHandler } from './json-protocol.js';

/**
 * Amazon Data Firehose on loopback, as far as the gateway's sink uses it: `PutRecordBatch` on the stack's delivery
 * streams, each call checked against the caller's IAM statements. What a stream would deliver to S3 is kept as
 * decoded rows: each record is one JSON line (firehose-sink.ts), and its `day` is the UTC day it arrived, as the
 * stream's `day=!{timestamp:yyyy-MM-dd}/` prefix makes it (the Athena stand-in reads these rows as the tables).
 */
export interface DeliveredRow {
  row: Record<string, unknown>;
  day: string;
}

export interface FirehoseStandIn {
  handler: ReturnType<typeof jsonProtocolHandler>;
  /** Stream name → the rows it received, in arrival order. */
  delivered: Map<string, DeliveredRow[]>;
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
}

export function firehoseStandIn(options: FirehoseStandInOptions): FirehoseStandIn {
  const delivered = new Map(options.streams.map((stream) => [stream, [] as DeliveredRow[]]));
  let files = 0;
  const handler = jsonProtocolHandler('Firehose_20150804', {
    PutRecordBatch: async ({ input, caller }) => {
      const stream = String(input.DeliveryStreamName ?? '');
      const arn = `arn:aws:firehose:${options.region}:${options.account}:deliverystream/${stream}`;
      if (!options.authorize(caller, 'firehose:PutRecordBatch', arn)) throw accessDenied(caller, 'firehose:PutRecordBatch', arn);
      const rows = delivered.get(stream);
      if (!rows) throw new AwsServiceError('ResourceNotFoundException', `Firehose ${stream} under account ${options.account} not found.`);
      const records = (input.Records as Array<{ Data?: string }> | undefined) ?? [];
      if (records.length === 0 || records.length > 500) throw new AwsServiceError('InvalidArgumentException', `Records must hold 1 to 500 records, not ${records.length}`);
      const day = new Date().toISOString().slice(0, 10);
      const lines: string[] = [];
      for (const record of records) {
        // A record is bytes as Firehose stores them; the record format conversion reads JSON objects out of them.
        const text = Buffer.from(record.Data ?? '', 'base64').toString('utf8');
        for (const line of text.split('\n').filter((entry) => entry.trim() !== '')) {
          rows.push({ row: JSON.parse(line) as Record<string, unknown>, day });
          lines.push(line);
        }
      }
      const prefix = options.destination?.prefixes[stream];
      if (options.destination && prefix !== undefined && lines.length > 0) {
        await options.destination.objects.put(`${prefix}day=${day}/${stream}-${++files}`, Buffer.from(`${lines.join('\n')}\n`));
      }
      return { FailedPutCount: 0, Encrypted: false, RequestResponses: records.map((_record, index) => ({ RecordId: `stand-in-${rows.length}-${index}` })) };
    },
  }, { iamPrefix: 'firehose', authorize: options.authorize, resourceOf: (input) => `arn:aws:firehose:${options.region}:${options.account}:deliverystream/${String(input.DeliveryStreamName ?? '*')}` });
  return { handler, delivered };
}
