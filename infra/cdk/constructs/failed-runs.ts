import { Duration, Validations } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

/**
 * Where a scheduled function's failed runs go (issue #44): EventBridge invokes the scheduled functions
 * asynchronously, so a run that throws is retried by Lambda and then, without a destination, dropped without a
 * trace but the error metric. Each scheduled function's on-failure destination is this queue (the event and the
 * error, kept 14 days for a look and a replay), and so is each schedule's dead-letter queue (an event EventBridge could
 * not deliver at all); the operations construct alarms as soon as a message is in it.
 */
export class FailedRuns extends Construct {
  readonly queue: Queue;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.queue = new Queue(this, 'Queue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(this.queue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'This queue is itself the dead-letter queue and on-failure destination of the scheduled functions; a queue behind it would only move the same messages.',
    });
  }

  /** Sends `fn`'s failed asynchronous runs here, after Lambda's two retries. */
  catchFailuresOf(fn: IFunction): void {
    fn.configureAsyncInvoke({ onFailure: new SqsDestination(this.queue), retryAttempts: 2 });
  }
}
