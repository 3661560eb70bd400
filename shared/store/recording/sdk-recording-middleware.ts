import type { HandlerExecutionContext, InitializeHandler, InitializeHandlerArguments, InitializeMiddleware } from '@smithy/types';
import { settings } from '../../settings.js';
import { isMeasuringConsumedCapacity, isRecordingAwsOperations, recordAwsOperation, recordConsumedCapacity, tableResource, type RecordedService } from './aws-operation-recorder.js';

/**
 * The one hook every AWS SDK v3 client gw constructs goes through: `recordedClient(new XClient(…), 'x')`. It attaches
 * the test-only operation recorder (aws-operation-recorder.ts) to the client's middleware stack at the initialize
 * step, so it sees every command the client sends, with its input, whichever module sent it; the grant check
 * (scripts/check-grants.ts) then compares those operations with the function's role. Nothing is attached unless
 * recording is switched on, and the client is returned as it is, so the hook costs deployed code one comparison.
 *
 * Each recording names the IAM action the command needs (S3 `ListObjectsV2` → `s3:ListBucket`, `HeadObject` →
 * `s3:GetObject`; every other service's command names are its action names) and the resource in the terms the
 * grant check renders grants in.
 */
interface RecordableClient {
  middlewareStack: { add(middleware: InitializeMiddleware<object, object>, options: { step: 'initialize'; name: string; override?: boolean }): void };
}

type Input = Record<string, unknown>;
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

/** The bucket name the tests' S3 stand-in serves the blob store under (shared/store/blobs/blob-store-factory.ts). */
export const BLOB_STAND_IN_BUCKET = 'gw-blobs-stand-in';

const OPERATIONS_OF: Readonly<Record<RecordedService, OperationsOf>> = {
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
const CAPACITY_COMMANDS = new Set(['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query', 'Scan', 'BatchGetItem', 'BatchWriteItem', 'TransactGetItems', 'TransactWriteItems']);

interface ConsumedCapacity {
  TableName?: string;
  CapacityUnits?: number;
}

/** The units the store answered, per table (a batch answers one entry per table). */
function recordCapacity(command: string, consumed: ConsumedCapacity | ConsumedCapacity[] | undefined): void {
  const current = settings();
  for (const entry of consumed === undefined ? [] : Array.isArray(consumed) ? consumed : [consumed]) {
    if (entry.TableName === undefined || entry.CapacityUnits === undefined) continue;
    recordConsumedCapacity({ service: 'dynamodb', action: command, resource: tableResource(current, entry.TableName) }, entry.CapacityUnits);
  }
}

/**
 * Records every command `client` sends as the operation(s) it needs on `service` (see the module comment), and
 * returns `client`. Use it on every AWS SDK client, right where it is constructed.
 */
export function recordedClient<C extends RecordableClient>(client: C, service: RecordedService, implied: Input = {}): C {
  if (!isRecordingAwsOperations()) return client;
  const operationsOf = OPERATIONS_OF[service];
  const middleware: InitializeMiddleware<object, object> =
    (next: InitializeHandler<object, object>, context: HandlerExecutionContext) => async (args: InitializeHandlerArguments<object>) => {
      const command = (context.commandName ?? 'Unknown').replace(/Command$/, '');
      for (const { action, resource } of operationsOf(command, { ...implied, ...((args.input ?? {}) as Input) })) recordAwsOperation({ service, action, resource });
      if (service !== 'dynamodb' || !CAPACITY_COMMANDS.has(command) || !isMeasuringConsumedCapacity()) return next(args);
      const input = { ReturnConsumedCapacity: 'TOTAL', ...(args.input as Input) };
      const result = await next({ ...args, input });
      recordCapacity(command, (result.output as { ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[] }).ConsumedCapacity);
      return result;
    };
  client.middlewareStack.add(middleware, { step: 'initialize', name: 'gwAwsOperationRecorder', override: true });
  return client;
}

