import type { HandlerExecutionContext, InitializeHandler, InitializeHandlerArguments, InitializeMiddleware } from '@smithy/types';
import { dynamoDocumentClient } from '../../shared/store/dynamo-client.js';

/**
 * Runs `watch` before every command this process's store client sends (a test gateway started in-process uses that
 * client), so a test can count the store work a request costs, or hold a write to make a race certain. `watch` may
 * wait; the command goes on when it resolves. A watcher added again under the same name replaces the first.
 */
export function watchStoreCommands(name: string, watch: (command: string, input: object) => void | Promise<void>): void {
  // The same view of the stack the operation recorder takes (shared/store/recording/sdk-recording-middleware.ts).
  const stack = dynamoDocumentClient().middlewareStack as unknown as {
    add(middleware: InitializeMiddleware<object, object>, options: { step: 'initialize'; name: string; override?: boolean }): void;
  };
  stack.add(
    (next: InitializeHandler<object, object>, context: HandlerExecutionContext) => async (args: InitializeHandlerArguments<object>) => {
      await watch(context.commandName ?? '?', args.input);
      return next(args);
    },
    { step: 'initialize', name, override: true },
  );
}
