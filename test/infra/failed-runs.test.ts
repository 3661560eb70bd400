import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { FUNCTION_TABLE } from '../../infra/cdk/function-table.js';
import type { GwStack } from '../../infra/cdk/gw-stack.js';
import { synthGwStack, tableWithScheduledFixtures } from './support/synth.js';
import { functionLogicalId, resources } from './support/template-queries.js';

/**
 * Issue #44: a scheduled function (key expiry, budget restore, compaction) that failed after its retries used to leave
 * no trace but an error metric. Its failures now land in a queue (on-failure destination, and the schedule's
 * dead-letter queue for undeliverable events), and an alarm fires on the first one.
 */
describe('failed scheduled runs (dead letters)', () => {
  let stack: GwStack;
  let template: Template;
  const scheduled = FUNCTION_TABLE.filter((spec) => spec.scheduleMinutes || spec.scheduleDaily).map((spec) => spec.name);
  beforeAll(() => {
    ({ stack, template } = synthGwStack({ functions: tableWithScheduledFixtures() }));
  });

  it('sends every scheduled function\'s failed runs to one encrypted queue, and no API function\'s', () => {
    const queueId = stack.getLogicalId(stack.failedRuns!.queue.node.defaultChild as never);
    expect(resources(template, 'AWS::SQS::Queue')[queueId].Properties).toMatchObject({ SqsManagedSseEnabled: true });
    const configs = Object.values(resources(template, 'AWS::Lambda::EventInvokeConfig'));
    const onFailure = new Map(configs.map((config) => [JSON.stringify(config.Properties!.FunctionName), config.Properties!.DestinationConfig]));
    expect(scheduled.length).toBeGreaterThan(0);
    for (const name of scheduled) {
      expect(onFailure.get(JSON.stringify({ Ref: functionLogicalId(template, name) })), name).toEqual({ OnFailure: { Destination: { 'Fn::GetAtt': [queueId, 'Arn'] } } });
    }
    for (const name of ['gateway', 'control-plane']) expect(onFailure.has(JSON.stringify({ Ref: functionLogicalId(template, name) })), name).toBe(false);
  });

  it('gives every schedule the queue as its dead-letter queue', () => {
    const queueId = stack.getLogicalId(stack.failedRuns!.queue.node.defaultChild as never);
    const rules = Object.values(resources(template, 'AWS::Events::Rule'));
    expect(rules).toHaveLength(scheduled.length);
    for (const rule of rules) {
      const [target] = rule.Properties!.Targets as Array<{ DeadLetterConfig?: unknown }>;
      expect(target.DeadLetterConfig).toEqual({ Arn: { 'Fn::GetAtt': [queueId, 'Arn'] } });
    }
  });

  it('alarms on the first failed run', () => {
    const queueId = stack.getLogicalId(stack.failedRuns!.queue.node.defaultChild as never);
    const alarm = Object.values(resources(template, 'AWS::CloudWatch::Alarm')).find((candidate) => JSON.stringify(candidate.Properties).includes(queueId));
    expect(alarm?.Properties).toMatchObject({ MetricName: 'ApproximateNumberOfMessagesVisible', Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
    expect(alarm?.Properties?.AlarmActions).toBeDefined();
  });
});
