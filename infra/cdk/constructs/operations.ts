import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  Alarm,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  MathExpression,
  TreatMissingData,
  type IMetric,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic, type ITopic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { FunctionSpec } from '../function-table.js';
import type { DataTables } from './data-tables.js';

const PERIOD = Duration.minutes(5);

export interface OperationsProps {
  api: RestApi;
  functions: ReadonlyArray<{ spec: FunctionSpec; fn: IFunction }>;
  tables: DataTables;
  /** The scheduled functions' dead letters (FailedRuns): one alarm as soon as a failed run lands there. */
  failedRuns?: IQueue;
  /** An existing topic for alarms (and their recovery); without it the stack creates an encrypted one. */
  alarmTopicArn?: string;
  /** Subscribed to the alarm topic by e-mail (the address must confirm the subscription once). */
  alarmEmail?: string;
  production: boolean;
  /** The API's 5XX share (%) that alarms. */
  api5xxRatePercent?: number;
}

/**
 * What an operator watches: alarms on the API's 5XX rate, each function's errors, throttles and p99 duration,
 * and DynamoDB throttling; and one dashboard with the same signals. Missing data (no traffic) is never an alarm.
 */
export class Operations extends Construct {
  readonly alarms: Alarm[] = [];
  readonly dashboard: Dashboard;
  /** Where every alarm and OK notification goes. */
  readonly alarmTopic: ITopic;

  constructor(scope: Construct, id: string, props: OperationsProps) {
    super(scope, id);
    const stage = props.api.deploymentStage;

    const api5xxRate = new MathExpression({
      expression: '100 * errors',
      usingMetrics: { errors: stage.metricServerError({ statistic: 'Average', period: PERIOD }) },
      label: '5XX responses (%)',
      period: PERIOD,
    });
    this.alarm('Api5xxRate', api5xxRate, props.api5xxRatePercent ?? 5, 2, 'More than the allowed share of API responses were 5XX (gateway and control plane, provider failures that survived fallback included).');

    for (const { spec, fn } of props.functions) {
      const errors = fn.metricErrors({ statistic: 'Sum', period: PERIOD });
      if (spec.api) {
        const rate = new MathExpression({
          expression: 'IF(invocations > 0, 100 * errors / invocations, 0)',
          usingMetrics: { errors, invocations: fn.metricInvocations({ statistic: 'Sum', period: PERIOD }) },
          label: `${spec.name} errors (%)`,
          period: PERIOD,
        });
        this.alarm(`${pascal(spec.name)}ErrorRate`, rate, spec.errorAlarmThreshold, 2, `The ${spec.name} function failed more than ${spec.errorAlarmThreshold}% of its invocations.`);
      } else {
        this.alarm(`${pascal(spec.name)}Errors`, errors, spec.errorAlarmThreshold, 1, `The scheduled ${spec.name} function failed.`);
      }
      this.alarm(`${pascal(spec.name)}Throttles`, fn.metricThrottles({ statistic: 'Sum', period: PERIOD }), 1, 1, `Invocations of ${spec.name} were throttled (account or reserved concurrency exhausted).`);
      this.alarm(
        `${pascal(spec.name)}DurationP99`,
        fn.metricDuration({ statistic: 'p99', period: PERIOD }),
        spec.p99DurationAlarmMs,
        3,
        `The ${spec.name} function's p99 duration stayed above ${spec.p99DurationAlarmMs} ms (timeout ${spec.timeoutSeconds} s).`,
      );
    }

    for (const [id, { table }] of props.tables.byId) {
      const throttles = new MathExpression({
        expression: 'FILL(reads, 0) + FILL(writes, 0)',
        usingMetrics: {
          reads: table.metric('ReadThrottleEvents', { statistic: 'Sum', period: PERIOD }),
          writes: table.metric('WriteThrottleEvents', { statistic: 'Sum', period: PERIOD }),
        },
        label: `${id} table throttled requests`,
        period: PERIOD,
      });
      this.alarm(`${pascal(id)}TableThrottles`, throttles, 1, 1, `DynamoDB throttled requests on the ${id} table.`);
    }

    if (props.failedRuns) {
      this.alarm(
        'ScheduledRunsFailed',
        props.failedRuns.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period: PERIOD }),
        1,
        1,
        'A scheduled function (key expiry, budget restore, compaction) failed after its retries, or its event could not be delivered: the event and the error are in the failed-runs queue.',
      );
    }

    this.alarmTopic = props.alarmTopicArn ? Topic.fromTopicArn(this, 'AlarmTopic', props.alarmTopicArn) : this.createAlarmTopic(props.production);
    if (props.alarmEmail) this.alarmTopic.addSubscription(new EmailSubscription(props.alarmEmail));
    const action = new SnsAction(this.alarmTopic);
    for (const alarm of this.alarms) {
      alarm.addAlarmAction(action);
      alarm.addOkAction(action);
    }

    this.dashboard = this.buildDashboard(props, api5xxRate);
  }

  /**
   * An SNS topic encrypted with a customer-managed key: CloudWatch can only publish to an encrypted topic when the
   * key's policy lets cloudwatch.amazonaws.com use it, which the AWS-managed aws/sns key does not.
   */
  private createAlarmTopic(production: boolean): Topic {
    const key = new Key(this, 'AlarmTopicKey', {
      description: 'gw: encrypts the alarm topic',
      enableKeyRotation: true,
      removalPolicy: production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    key.grant(new ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
    return new Topic(this, 'AlarmTopic', { displayName: 'gw alarms', masterKey: key, enforceSSL: true });
  }

  private alarm(id: string, metric: IMetric, threshold: number, evaluationPeriods: number, description: string): Alarm {
    const alarm = new Alarm(this, id, {
      metric,
      threshold,
      evaluationPeriods,
      datapointsToAlarm: evaluationPeriods,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
      alarmDescription: description,
    });
    this.alarms.push(alarm);
    return alarm;
  }

  private buildDashboard(props: OperationsProps, api5xxRate: IMetric): Dashboard {
    const stage = props.api.deploymentStage;
    const dashboard = new Dashboard(this, 'Dashboard', { defaultInterval: Duration.hours(3) });
    dashboard.addWidgets(new AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 24 }));
    dashboard.addWidgets(
      new GraphWidget({ title: 'API requests', left: [stage.metricCount({ statistic: 'Sum', period: PERIOD })], right: [api5xxRate], width: 8 }),
      new GraphWidget({
        title: 'API 4XX / 5XX',
        left: [stage.metricClientError({ statistic: 'Sum', period: PERIOD }), stage.metricServerError({ statistic: 'Sum', period: PERIOD })],
        width: 8,
      }),
      new GraphWidget({
        title: 'API latency p50 / p99 (ms)',
        left: [stage.metricLatency({ statistic: 'p50', period: PERIOD }), stage.metricLatency({ statistic: 'p99', period: PERIOD })],
        right: [stage.metricIntegrationLatency({ statistic: 'p99', period: PERIOD })],
        width: 8,
      }),
    );
    const perFunction = (title: string, metric: (fn: IFunction, name: string) => IMetric) =>
      new GraphWidget({ title, left: props.functions.map(({ spec, fn }) => metric(fn, spec.name)), width: 6 });
    dashboard.addWidgets(
      perFunction('Invocations', (fn, name) => fn.metricInvocations({ statistic: 'Sum', period: PERIOD, label: name })),
      perFunction('Errors', (fn, name) => fn.metricErrors({ statistic: 'Sum', period: PERIOD, label: name })),
      perFunction('Throttles', (fn, name) => fn.metricThrottles({ statistic: 'Sum', period: PERIOD, label: name })),
      perFunction('Duration p99 (ms)', (fn, name) => fn.metricDuration({ statistic: 'p99', period: PERIOD, label: name })),
    );
    const tables = [...props.tables.byId.entries()];
    dashboard.addWidgets(
      new GraphWidget({
        title: 'DynamoDB consumed read / write units',
        left: tables.map(([id, { table }]) => table.metricConsumedReadCapacityUnits({ period: PERIOD, label: `${id} reads` })),
        right: tables.map(([id, { table }]) => table.metricConsumedWriteCapacityUnits({ period: PERIOD, label: `${id} writes` })),
        width: 12,
      }),
      new GraphWidget({
        title: 'DynamoDB throttled requests',
        left: tables.flatMap(([id, { table }]) => [
          table.metric('ReadThrottleEvents', { statistic: 'Sum', period: PERIOD, label: `${id} reads` }),
          table.metric('WriteThrottleEvents', { statistic: 'Sum', period: PERIOD, label: `${id} writes` }),
        ]),
        width: 12,
      }),
    );
    return dashboard;
  }
}

function pascal(name: string): string {
  return name
    .split(/[^A-Za-z0-9]/)
    .filter(Boolean)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}
