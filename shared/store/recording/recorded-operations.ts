import { settings } from '../../settings.js';
import { recordConsumedCapacity, tableResource, type RecordedService } from './aws-operation-recorder.js';

/**
 * What each recorded AWS command needs (sdk-recording-middleware.ts): loaded with the first command a recording
 * client sends, so deployed code, which never records, does not carry it in its cold start.
 */
type Input = Record<string, unknown>;

/** The bucket name the tests' S3 stand-in serves the blob store under (shared/store/blobs/blob-store-factory.ts). */
export const BLOB_STAND_IN_BUCKET = 'gw-blobs-stand-in';

interface Operation {
  action: string;
  resource: string;
}
type OperationsOf = (command: string, input: Input) => Operation[];

/** S3 commands whose IAM action has another name; the rest need `s3:<command>`. */
const S3_ACTIONS: Readonly<Record<string, { action: string; on: 'bucket' | 'object' }>> = {
  HeadObject: { action: 'GetObject', on: 'object' },
  ListObjects: { action: 'ListBucket', on: 'bucket' },
  ListObjectsV2: { action: 'ListBucket', on: 'bucket' },
  HeadBucket: { action: 'ListBucket', on: 'bucket' },
  DeleteObjects: { action: 'DeleteObject', on: 'object' },
  ListObjectVersions: { action: 'ListBucketVersions', on: 'bucket' },
};

/**
 * `bucket/blobs` for the stack's blob bucket (GW_BLOB_BUCKET or the test stand-in's), `bucket/log-results` for the
 * request-log results and exports bucket (GW_LOG_RESULTS_BUCKET), `bucket/log-data` for the bucket Firehose delivers
 * to (GW_LOG_DATA_BUCKET, which the daily compaction rewrites), `bucket/?<name>` otherwise.
 */
function bucketResource(bucket: unknown): string {
  const name = String(bucket ?? '*');
  const current = settings();
  if (name === current.GW_BLOB_BUCKET || name === BLOB_STAND_IN_BUCKET) return 'bucket/blobs';
  if (name === current.GW_LOG_DATA_BUCKET) return 'bucket/log-data';
  return name === current.GW_LOG_RESULTS_BUCKET ? 'bucket/log-results' : `bucket/?${name}`;
}

export const OPERATIONS_OF: Readonly<Record<RecordedService, OperationsOf>> = {
  // DynamoDB (plain or document client): the table, or index, of every item and batch command.
  dynamodb: (command, input) => {
    const current = settings();
    const on = (resource: string) => ({ action: command, resource });
    if (typeof input.TableName === 'string') return [on(tableResource(current, input.TableName, input.IndexName as string | undefined))];
    if (input.RequestItems && typeof input.RequestItems === 'object') return Object.keys(input.RequestItems).map((name) => on(tableResource(current, name)));
    if (Array.isArray(input.TransactItems)) {
      return (input.TransactItems as Array<Record<string, { TableName?: string }>>).flatMap((entry) =>
        Object.values(entry).flatMap((part) => (part?.TableName ? [on(tableResource(current, part.TableName))] : [])),
      );
    }
    return [on('table/*')];
  },
  // Secrets Manager: the full secret name (`Name` on create, `SecretId` otherwise).
  secretsmanager: (command, input) => [{ action: command, resource: `secret/${String(input.Name ?? input.SecretId ?? '*')}` }],
  // S3: objects as `bucket/blobs/<key>`, bucket-level actions as `bucket/blobs`.
  s3: (command, input) => {
    const mapped = S3_ACTIONS[command] ?? { action: command, on: typeof input.Key === 'string' ? 'object' : 'bucket' };
    const bucket = bucketResource(input.Bucket);
    const operation = { action: mapped.action, resource: mapped.on === 'object' ? `${bucket}/${String(input.Key ?? '*')}` : bucket };
    // Reading a key that may be missing also needs s3:ListBucket: without it S3 answers 403 AccessDenied, not 404
    // NoSuchKey, and a gone log body or export would be an error instead of "not found".
    return mapped.action === 'GetObject' ? [operation, { action: 'ListBucket', resource: bucket }] : [operation];
  },
  // Services checked by action only (grant-check.ts): their resources are named in the template in ways a recording
  // cannot reproduce (delivery streams, work groups, roles to assume), so the resource is what the input names.
  firehose: (command, input) => [{ action: command, resource: `deliverystream/${String(input.DeliveryStreamName ?? '*')}` }],
  // A query id names no workgroup: a call is in the one its client was made for (`recordedClient`'s `implied`).
  athena: (command, input) => [{ action: command, resource: `workgroup/${String(input.WorkGroup ?? settings().GW_ATHENA_WORKGROUP)}` }],
  glue: (command, input) => [{ action: command, resource: `table/${String(input.DatabaseName ?? '*')}/${String(input.TableName ?? input.Name ?? '*')}` }],
  sts: (command, input) => [{ action: command, resource: `role/${String(input.RoleArn ?? '*')}` }],
};

/** The DynamoDB commands that can return the capacity they consumed. */
export const CAPACITY_COMMANDS = new Set(['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query', 'Scan', 'BatchGetItem', 'BatchWriteItem', 'TransactGetItems', 'TransactWriteItems']);

interface ConsumedCapacity {
  TableName?: string;
  CapacityUnits?: number;
}

/** The units the store answered, per table (a batch answers one entry per table). */
export function recordCapacity(command: string, consumed: ConsumedCapacity | ConsumedCapacity[] | undefined): void {
  const current = settings();
  for (const entry of consumed === undefined ? [] : Array.isArray(consumed) ? consumed : [consumed]) {
    if (entry.TableName === undefined || entry.CapacityUnits === undefined) continue;
    recordConsumedCapacity({ service: 'dynamodb', action: command, resource: tableResource(current, entry.TableName) }, entry.CapacityUnits);
  }
}

