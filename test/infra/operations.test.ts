import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { OUTPUT_KEYS, TABLE_OUTPUTS } from '../../infra/cdk/outputs.js';
import { synthGwStack, tableWithScheduledFixtures } from './support/synth.js';
import { functionLogicalId, resources } from './support/template-queries.js';

interface AlarmView {
  threshold: number;
  periods: number;
  metrics: string[];
  expression?: string;
  dimensions: string[];
  actions: unknown[];
}

/** Alarm construct id (the part of the logical id before CDK's hash) → what it watches. */
function alarms(template: Template): Record<string, AlarmView> {
  const view: Record<string, AlarmView> = {};
  for (const [logicalId, alarm] of Object.entries(resources(template, 'AWS::CloudWatch::Alarm'))) {
    const properties = alarm.Properties as Record<string, unknown>;
    const queries = (properties.Metrics as Array<{ Expression?: string; MetricStat?: { Metric: { MetricName: string; Dimensions?: Array<{ Value: unknown }> } } }>) ?? [];
    const single = properties.MetricName ? [{ MetricStat: { Metric: { MetricName: properties.MetricName as string, Dimensions: properties.Dimensions as Array<{ Value: unknown }> } } }] : [];
    const stats = [...queries, ...single].filter((query) => query.MetricStat);
    view[logicalId.replace(/^Operations/, '').replace(/[0-9A-F]{8}$/, '')] = {
      threshold: properties.Threshold as number,
      periods: properties.EvaluationPeriods as number,
      metrics: stats.map((query) => query.MetricStat!.Metric.MetricName).sort(),
      expression: queries.find((query) => query.Expression)?.Expression,
      dimensions: stats.flatMap((query) => (query.MetricStat!.Metric.Dimensions ?? []).map((dimension) => JSON.stringify(dimension.Value))),
      actions: (properties.AlarmActions as unknown[]) ?? [],
    };
  }
  return view;
}

describe('alarms, dashboard and outputs', () => {
  const topicArn = 'arn:aws:sns:eu-west-1:123456789012:gw-ops';
  let template: Template;
  beforeAll(() => {
    ({ template } = synthGwStack({ functions: tableWithScheduledFixtures(), context: { alarmTopicArn: topicArn } }));
  });

  it('alarms on the API 5XX rate above 5% for 10 minutes', () => {
    expect(alarms(template).Api5xxRate).toMatchObject({ threshold: 5, periods: 2, metrics: ['5XXError'], expression: '100 * errors' });
  });

  it('alarms on errors, throttles and p99 duration of every function', () => {
    const view = alarms(template);
    const expected = {
      Gateway: { errors: 'GatewayErrorRate', p99: 840_000 },
      ControlPlane: { errors: 'ControlPlaneErrorRate', p99: 5_000 },
      ExpireApiKeys: { errors: 'ExpireApiKeysErrors', p99: 96_000 },
      RestoreBudgets: { errors: 'RestoreBudgetsErrors', p99: 96_000 },
    };
    for (const [prefix, { errors, p99 }] of Object.entries(expected)) {
      expect(view[errors].metrics).toContain('Errors');
      expect(view[`${prefix}Throttles`]).toMatchObject({ threshold: 1, metrics: ['Throttles'] });
      expect(view[`${prefix}DurationP99`]).toMatchObject({ threshold: p99, periods: 3, metrics: ['Duration'] });
    }
    expect(view.GatewayErrorRate).toMatchObject({ threshold: 5, metrics: ['Errors', 'Invocations'] });
    expect(view.ExpireApiKeysErrors).toMatchObject({ threshold: 1, metrics: ['Errors'] });
    expect(view.GatewayErrorRate.dimensions).toEqual(expect.arrayContaining([JSON.stringify({ Ref: functionLogicalId(template, 'gateway') })]));
  });

  it('alarms on DynamoDB read and write throttling of each table', () => {
    const view = alarms(template);
    for (const table of ['Main', 'Cache', 'Logs']) {
      expect(view[`${table}TableThrottles`]).toMatchObject({ threshold: 1, metrics: ['ReadThrottleEvents', 'WriteThrottleEvents'] });
    }
  });

  it('sends every alarm, and its recovery, to the SNS topic from context, and treats no traffic as OK', () => {
    const all = Object.values(resources(template, 'AWS::CloudWatch::Alarm'));
    expect(all).toHaveLength(1 + 5 * 3 + 3 + 1); // API 5XX, three per function, one per table, failed scheduled runs
    for (const alarm of all) {
      expect(alarm.Properties).toMatchObject({ AlarmActions: [topicArn], OKActions: [topicArn], TreatMissingData: 'notBreaching' });
    }
  });

  it('builds one dashboard with API, function and table widgets', () => {
    const dashboards = Object.values(resources(template, 'AWS::CloudWatch::Dashboard'));
    expect(dashboards).toHaveLength(1);
    const body = JSON.stringify(dashboards[0].Properties?.DashboardBody);
    for (const title of ['Alarms', 'API requests', 'API latency p50 / p99 (ms)', 'Duration p99 (ms)', 'DynamoDB throttled requests']) expect(body).toContain(title);
  });

  it('outputs the API URL, the /v1 base URL, the region and every table name', () => {
    const outputs = Object.keys((template.toJSON() as { Outputs: Record<string, unknown> }).Outputs);
    expect(outputs).toEqual(
      expect.arrayContaining([OUTPUT_KEYS.apiUrl, OUTPUT_KEYS.gatewayBaseUrl, OUTPUT_KEYS.region, OUTPUT_KEYS.dashboardName, ...TABLE_OUTPUTS.map((output) => output.outputKey)]),
    );
    expect(TABLE_OUTPUTS.map((output) => output.outputKey)).toEqual(['MainTableName', 'CacheTableName', 'LogsTableName']);
  });
});

describe('alarms without a given topic', () => {
  it("notify the stack's own alarm topic (alarms that notify nobody are not alarms)", () => {
    const { template } = synthGwStack();
    const topic = Object.keys(resources(template, 'AWS::SNS::Topic'))[0];
    const all = Object.values(alarms(template));
    expect(all.length).toBeGreaterThan(0);
    for (const alarm of all) expect(alarm.actions).toEqual([{ Ref: topic }]);
  });
});
