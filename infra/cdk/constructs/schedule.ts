import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface FunctionScheduleProps {
  fn: IFunction;
  /** Every N minutes, or once a day at a UTC time. */
  everyMinutes?: number;
  daily?: { hour: number; minute: number };
  description: string;
  /** Where an event EventBridge could not deliver goes (FailedRuns). */
  deadLetterQueue?: IQueue;
}

/**
 * An EventBridge rule that invokes a scheduled function every N minutes, or once a day at a UTC time. A failed
 * delivery is retried twice, and an invocation older than one period (a daily one: an hour) is dropped: the next
 * run picks up the same work anyway.
 */
export class FunctionSchedule extends Construct {
  readonly rule: Rule;

  constructor(scope: Construct, id: string, props: FunctionScheduleProps) {
    super(scope, id);
    const daily = props.daily;
    if (!daily && !props.everyMinutes) throw new Error('a schedule needs everyMinutes or daily');
    // A daily run's event is still worth delivering an hour late; a frequent one's no later than its period.
    const period = daily ? 60 : props.everyMinutes!;
    this.rule = new Rule(this, 'Rule', {
      description: props.description,
      schedule: daily ? Schedule.cron({ hour: String(daily.hour), minute: String(daily.minute) }) : Schedule.rate(Duration.minutes(period)),
      targets: [new LambdaFunction(props.fn, { retryAttempts: 2, maxEventAge: Duration.minutes(period), deadLetterQueue: props.deadLetterQueue })],
    });
  }
}
