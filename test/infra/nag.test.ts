import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack, Validations } from 'aws-cdk-lib';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { describe, expect, it, onTestFinished } from 'vitest';
import { synthGwStack, tableWithScheduledFixtures } from './support/synth.js';

/** Violations as `rule at construct path` lines, so a failure says exactly what to fix. */
function violationsOf(app: App, scope: IConstruct): string[] {
  const report = new AwsSolutionsChecks(app).validateScope(scope);
  return report.violations.flatMap((violation) =>
    violation.violatingResources.map((resource) => `${violation.ruleName} at ${resource.constructPath ?? resource.resourceLogicalId}`),
  );
}

/** Every acknowledgement recorded anywhere in the tree: rule id → reason. */
function acknowledgementsOf(scope: IConstruct): Array<{ path: string; id: string; reason: string }> {
  const found: Array<{ path: string; id: string; reason: string }> = [];
  for (const construct of scope.node.findAll()) {
    for (const entry of construct.node.metadata) {
      if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue;
      for (const [id, reason] of Object.entries(entry.data as Record<string, string>)) found.push({ path: construct.node.path, id, reason });
    }
  }
  return found;
}

describe('cdk-nag AwsSolutions checks', () => {
  it('pass on the default stack with every function present', () => {
    const { app, stack } = synthGwStack({ functions: tableWithScheduledFixtures() });
    expect(violationsOf(app, stack)).toEqual([]);
  });

  it('pass with every optional part switched on: domain, WAF, KMS key, alarm topic and e-mail, development data', () => {
    const { app, stack } = synthGwStack({
      functions: tableWithScheduledFixtures(),
      context: {
        environment: 'development',
        domainName: 'ai.example.com',
        certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/abcd',
        webAclArn: 'arn:aws:wafv2:eu-west-1:123456789012:regional/webacl/gw/1234',
        secretsKmsKey: 'create',
        alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:gw-ops',
        alarmEmail: 'oncall@example.com',
      },
    });
    expect(violationsOf(app, stack)).toEqual([]);
  });

  it("pass with the stack's own WAF web ACL and alarm topic, under another stack name", () => {
    const { app, stack } = synthGwStack({ functions: tableWithScheduledFixtures(), context: { waf: true, stackName: 'gw-staging', alarmEmail: 'oncall@example.com' } });
    expect(violationsOf(app, stack)).toEqual([]);
  });

  it('pass with the gateway on Lambda Managed Instances (VPC, NAT, capacity provider)', () => {
    const { app, stack } = synthGwStack({ functions: tableWithScheduledFixtures(), context: { gatewayCompute: 'managed-instances', managedInstanceTypes: '["m7g.large"]' } });
    expect(violationsOf(app, stack)).toEqual([]);
  });

  it('pass with NAT instances instead of NAT gateways (managedEgress=nat-instance)', () => {
    const { app, stack } = synthGwStack({ context: { gatewayCompute: 'managed-instances', managedEgress: 'nat-instance' } });
    expect(violationsOf(app, stack)).toEqual([]);
  });

  it('pass with API execution logging switched off', () => {
    const { app, stack } = synthGwStack({ context: { apiExecutionLogging: 'OFF' } });
    expect(violationsOf(app, stack)).toEqual([]);
  });

  it('give every acknowledgement a written reason', () => {
    const { stack } = synthGwStack({ functions: tableWithScheduledFixtures(), context: { secretsKmsKey: 'create', waf: 'false' } });
    const acknowledgements = acknowledgementsOf(stack);
    expect(acknowledgements.map((entry) => entry.id.replace(/^Annotation::/, '').replace(/\[.*$/, ''))).toEqual(
      expect.arrayContaining(['AwsSolutions-APIG2', 'AwsSolutions-APIG4', 'AwsSolutions-COG4', 'AwsSolutions-APIG3', 'AwsSolutions-IAM5', 'AwsSolutions-IAM4', 'AwsSolutions-S1']),
    );
    for (const { id, reason } of acknowledgements) {
      expect(reason.length, `reason for ${id}`).toBeGreaterThan(60);
    }
  });

  it('do find problems when there are some (the checks are not vacuous)', () => {
    // An outdir of its own, removed after: without one, cdk leaves a cdk.out* folder in the temporary folder.
    const outdir = mkdtempSync(join(tmpdir(), 'cdk.out'));
    onTestFinished(() => rmSync(outdir, { recursive: true, force: true }));
    const app = new App({ outdir });
    const scratch = new Stack(app, 'Scratch');
    new Table(scratch, 'NoRecovery', { partitionKey: { name: 'pk', type: AttributeType.STRING } });
    new LambdaFunction(scratch, 'OldRuntime', { runtime: Runtime.NODEJS_18_X, handler: 'index.handler', code: Code.fromInline('exports.handler = async () => 1') });
    const violations = violationsOf(app, scratch);
    expect(violations).toEqual(expect.arrayContaining([expect.stringMatching(/^AwsSolutions-DDB3 /), expect.stringMatching(/^AwsSolutions-L1 /), expect.stringMatching(/^AwsSolutions-IAM4\[/)]));
  });
});
