import type { HandlerExecutionContext, InitializeHandler, InitializeHandlerArguments, InitializeMiddleware } from '@smithy/types';
import { isMeasuringConsumedCapacity, isRecordingAwsOperations, recordAwsOperation, type RecordedService } from './aws-operation-recorder.js';

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

/**
 * Records every command `client` sends as the operation(s) it needs on `service` (see the module comment), and
 * returns `client`. Use it on every AWS SDK client, right where it is constructed.
 */
export function recordedClient<C extends RecordableClient>(client: C, service: RecordedService, implied: Input = {}): C {
  if (!isRecordingAwsOperations()) return client;
  const middleware: InitializeMiddleware<object, object> =
    (next: InitializeHandler<object, object>, context: HandlerExecutionContext) => async (args: InitializeHandlerArguments<object>) => {
      const { OPERATIONS_OF, CAPACITY_COMMANDS, recordCapacity } = await import('./recorded-operations.js');
      const command = (context.commandName ?? 'Unknown').replace(/Command$/, '');
      for (const { action, resource } of OPERATIONS_OF[service](command, { ...implied, ...((args.input ?? {}) as Input) })) recordAwsOperation({ service, action, resource });
      if (service !== 'dynamodb' || !CAPACITY_COMMANDS.has(command) || !isMeasuringConsumedCapacity()) return next(args);
      const input = { ReturnConsumedCapacity: 'TOTAL', ...(args.input as Input) };
      const result = await next({ ...args, input });
      recordCapacity(command, (result.output as { ConsumedCapacity?: Parameters<typeof recordCapacity>[1] }).ConsumedCapacity);
      return result;
    };
  client.middlewareStack.add(middleware, { step: 'initialize', name: 'gwAwsOperationRecorder', override: true });
  return client;
}

