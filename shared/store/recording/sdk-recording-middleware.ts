import type { HandlerExecutionContext, InitializeHandler, InitializeHandlerArguments, InitializeMiddleware } from '@smithy/types';
import { settings } from '../../settings.js';
import { isRecordingAwsOperations, recordAwsOperation, tableResource, type RecordedOperation } from './aws-operation-recorder.js';

/**
 * Attaches the test-only operation recorder (aws-operation-recorder.ts) to an AWS SDK v3 client's middleware
 * stack, at the initialize step, so it sees every command the client sends with its input, whichever module
 * sent it. Nothing is attached unless recording is switched on.
 */
interface RecordableClient {
  middlewareStack: { add(middleware: InitializeMiddleware<object, object>, options: { step: 'initialize'; name: string; override?: boolean }): void };
}

type Input = Record<string, unknown>;
type ResourcesOf = (action: string, input: Input) => string[];

/** `iamAction` names the IAM action a command needs where it differs from the command (ListObjectsV2 → ListBucket). */
function attach(client: RecordableClient, service: RecordedOperation['service'], resourcesOf: ResourcesOf, iamAction = (command: string) => command): void {
  if (!isRecordingAwsOperations()) return;
  const middleware: InitializeMiddleware<object, object> =
    (next: InitializeHandler<object, object>, context: HandlerExecutionContext) => async (args: InitializeHandlerArguments<object>) => {
      const command = (context.commandName ?? 'Unknown').replace(/Command$/, '');
      const action = iamAction(command);
      for (const resource of resourcesOf(command, args.input as Input)) recordAwsOperation({ service, action, resource });
      return next(args);
    };
  client.middlewareStack.add(middleware, { step: 'initialize', name: 'gwAwsOperationRecorder', override: true });
}

/** DynamoDB (plain or document client): the table, or index, of every item and batch command. */
export function recordDynamoOperations(client: RecordableClient): void {
  attach(client, 'dynamodb', (_action, input) => {
    const current = settings();
    if (typeof input.TableName === 'string') return [tableResource(current, input.TableName, input.IndexName as string | undefined)];
    if (input.RequestItems && typeof input.RequestItems === 'object') return Object.keys(input.RequestItems).map((name) => tableResource(current, name));
    if (Array.isArray(input.TransactItems)) {
      return (input.TransactItems as Array<Record<string, { TableName?: string }>>).flatMap((entry) =>
        Object.values(entry).flatMap((part) => (part?.TableName ? [tableResource(current, part.TableName)] : [])),
      );
    }
    return ['table/*'];
  });
}

/** Secrets Manager: the full secret name (`Name` on create, `SecretId` otherwise). */
export function recordSecretsManagerOperations(client: RecordableClient): void {
  attach(client, 'secretsmanager', (_action, input) => [`secret/${String(input.Name ?? input.SecretId ?? '*')}`]);
}

/** Firehose (request-log rows): the delivery stream, by name, as its IAM ARN ends. */
export function recordFirehoseOperations(client: RecordableClient): void {
  attach(client, 'firehose', (_action, input) => [`deliverystream/${String(input.DeliveryStreamName ?? '*')}`]);
}

/** Athena: every query call is authorised on the workgroup the engine runs in (a query id names no workgroup). */
export function recordAthenaOperations(client: RecordableClient, workgroup: string): void {
  attach(client, 'athena', () => [`workgroup/${workgroup}`]);
}

/**
 * S3 on the request-log results bucket: listing is `s3:ListBucket` on the bucket (whatever the command is called),
 * object reads and writes are on `bucket/log-results/<key>`.
 */
export function recordLogResultsS3Operations(client: RecordableClient): void {
  const isList = (command: string) => command.startsWith('ListObjects');
  attach(
    client,
    's3',
    (command, input) => (isList(command) ? ['bucket/log-results'] : [`bucket/log-results/${String(input.Key ?? '*')}`]),
    (command) => (isList(command) ? 'ListBucket' : command),
  );
}
