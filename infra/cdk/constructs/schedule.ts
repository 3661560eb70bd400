import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';

export interface FunctionScheduleProps {
  fn: IFunction;
  everyMinutes: number;
  description: string;
}

/**
 * An EventBridge rule that invokes a scheduled function every N minutes. A failed delivery is retried twice,
 * and an invocation older than one period is dropped: the next run picks up the same work anyway.
 */
export class FunctionSchedule extends Construct {
  readonly rule: Rule;

  constructor(scope: Construct, id: string, props: FunctionScheduleProps) {
    super(scope, id);
    this.rule = new Rule(this, 'Rule', {
      description: props.description,
      schedule: Schedule.rate(Duration.minutes(props.everyMinutes)),
      targets: [new LambdaFunction(props.fn, { retryAttempts: 2, maxEventAge: Duration.minutes(props.everyMinutes) })],
    });
  }
}
