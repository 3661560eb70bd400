import type { CfnElement } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { InvalidContextError } from '../../infra/cdk/config.js';
import { FUNCTION_TABLE } from '../../infra/cdk/function-table.js';
import { grantPairs, type TemplateJson } from '../../infra/cdk/ops/grant-check.js';
import { synthGwStack, tableWithScheduledFixtures } from './support/synth.js';
import { functionProperties, resources } from './support/template-queries.js';

/** IAM's wildcard match, as the role evaluates a resource pattern against a secret's ARN name. */
const matches = (pattern: string, name: string) => new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`).test(name);

const secretPatternsOf = (template: Template) =>
  [...grantPairs(template.toJSON() as TemplateJson).entries()].flatMap(([fn, pairs]) =>
    pairs.filter((pair) => pair.action.startsWith('secretsmanager:')).map((pair) => ({ fn, pattern: pair.resource.replace(/^secret\//, '') })),
  );

describe('two stacks in one account', () => {
  let staging: Template;
  let production: Template;
  beforeAll(() => {
    ({ template: staging } = synthGwStack({ context: { stackName: 'gw-staging' }, functions: tableWithScheduledFixtures() }));
    ({ template: production } = synthGwStack({ context: { stackName: 'gw-prod' }, functions: tableWithScheduledFixtures() }));
  });

  it("name every function's secrets after their own stack", () => {
    for (const [template, name] of [[staging, 'gw-staging'], [production, 'gw-prod']] as const) {
      for (const { name: fn } of FUNCTION_TABLE) {
        const variables = (functionProperties(template, fn).Environment as { Variables: Record<string, unknown> }).Variables;
        expect(variables.GW_SECRET_NAME_PREFIX, fn).toBe(name);
      }
      const patterns = secretPatternsOf(template);
      expect(patterns.length).toBeGreaterThan(0);
      for (const { pattern } of patterns) expect(pattern).toBe(`${name}/*`);
    }
  });

  it("grant neither stack's roles any secret of the other (nor of a stack whose name extends it)", () => {
    const secretsOf = (stackName: string) => [`${stackName}/virtual-keys/ws_1/vk_1`, `${stackName}/config-secrets/ws_1/cfg_1/1`, `${stackName}/mcp-servers/ws_1/m_1`];
    for (const [template, own, others] of [
      [staging, 'gw-staging', ['gw-prod', 'gw', 'gw-staging2']],
      [production, 'gw-prod', ['gw-staging', 'gw', 'gw-prod-eu']],
    ] as const) {
      const patterns = secretPatternsOf(template);
      for (const { fn, pattern } of patterns) {
        for (const other of others) for (const name of secretsOf(other)) expect(matches(pattern, `${name}-AbCdEf`), `${fn} of ${own} reaches ${name}`).toBe(false);
        for (const name of secretsOf(own)) expect(matches(pattern, `${name}-AbCdEf`), `${fn} of ${own} cannot reach ${name}`).toBe(true);
      }
    }
  });

  it('keep every other account-global name apart: API name, and no fixed table, bucket, topic or key names', () => {
    staging.hasResourceProperties('AWS::ApiGateway::RestApi', { Name: 'gw-staging' });
    production.hasResourceProperties('AWS::ApiGateway::RestApi', { Name: 'gw-prod' });
    for (const template of [staging, production]) {
      for (const table of Object.values(resources(template, 'AWS::DynamoDB::Table'))) expect(table.Properties?.TableName).toBeUndefined();
      for (const bucket of Object.values(resources(template, 'AWS::S3::Bucket'))) expect(bucket.Properties?.BucketName).toBeUndefined();
      for (const topic of Object.values(resources(template, 'AWS::SNS::Topic'))) expect(topic.Properties?.TopicName).toBeUndefined();
    }
  });
});

describe('the blob bucket', () => {
  it('is private, encrypted, TLS-only, expires objects at the log retention, and is named to the functions', () => {
    const { stack, template } = synthGwStack({ context: { settings: { LOG_RETENTION_DISPLAY: 30 } } });
    // The blob bucket and the request-log data and results buckets (test/infra/request-logs.test.ts).
    template.resourceCountIs('AWS::S3::Bucket', 3);
    template.hasResourceProperties('AWS::S3::Bucket', {
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      LifecycleConfiguration: { Rules: Match.arrayWith([Match.objectLike({ ExpirationInDays: 30, Status: 'Enabled' })]) },
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
      },
    });
    const bucket = stack.getLogicalId(stack.blobs.bucket.node.defaultChild as CfnElement);
    for (const name of ['gateway', 'control-plane']) {
      expect((functionProperties(template, name).Environment as { Variables: Record<string, unknown> }).Variables.GW_BLOB_BUCKET).toEqual({ Ref: bucket });
    }
  });

  it('defaults the expiry to LOG_RETENTION_DISPLAY (90 days) and is retained with a production stack', () => {
    const { template } = synthGwStack();
    template.hasResourceProperties('AWS::S3::Bucket', { LifecycleConfiguration: { Rules: Match.arrayWith([Match.objectLike({ ExpirationInDays: 90 })]) } });
    template.hasResource('AWS::S3::Bucket', { DeletionPolicy: 'Retain' });
  });
});

describe('alarms', () => {
  const actionsOf = (template: Template) =>
    Object.values(resources(template, 'AWS::CloudWatch::Alarm')).map((alarm) => ({ alarm: alarm.Properties?.AlarmActions, ok: alarm.Properties?.OKActions }));

  it("notify the stack's own KMS-encrypted topic, alarm and recovery alike, when no topic is given", () => {
    const { template } = synthGwStack({ functions: tableWithScheduledFixtures() });
    const topics = Object.keys(resources(template, 'AWS::SNS::Topic'));
    expect(topics).toHaveLength(1);
    template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: Match.anyValue() });
    // CloudWatch can publish to the encrypted topic: the key lets cloudwatch.amazonaws.com use it.
    template.hasResourceProperties('AWS::KMS::Key', {
      EnableKeyRotation: true,
      KeyPolicy: { Statement: Match.arrayWith([Match.objectLike({ Principal: { Service: 'cloudwatch.amazonaws.com' } })]) },
    });
    const actions = actionsOf(template);
    expect(actions).toHaveLength(20); // three more with the fifth function (the request-log compaction), one on the failed scheduled runs
    for (const { alarm, ok } of actions) {
      expect(alarm).toEqual([{ Ref: topics[0] }]);
      expect(ok).toEqual([{ Ref: topics[0] }]);
    }
    template.resourceCountIs('AWS::SNS::Subscription', 0);
  });

  it('notify the given topic instead, and subscribe an e-mail address when one is given', () => {
    const alarmTopicArn = 'arn:aws:sns:eu-west-1:123456789012:ops';
    const { template } = synthGwStack({ context: { alarmTopicArn, alarmEmail: 'oncall@example.com' } });
    template.resourceCountIs('AWS::SNS::Topic', 0);
    for (const { alarm, ok } of actionsOf(template)) {
      expect(alarm).toEqual([alarmTopicArn]);
      expect(ok).toEqual([alarmTopicArn]);
    }
    template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'oncall@example.com', TopicArn: alarmTopicArn });
  });

  it('refuses an alarm e-mail that is not an address', () => {
    expect(() => synthGwStack({ context: { alarmEmail: 'not an address' } })).toThrow(InvalidContextError);
  });
});

describe('the optional WAF web ACL', () => {
  it('is on by default in production (a flood is refused before it costs a function or a store write)', () => {
    synthGwStack().template.resourceCountIs('AWS::WAFv2::WebACL', 1);
  });

  it('is off with waf=false and in development', () => {
    synthGwStack({ context: { waf: 'false' } }).template.resourceCountIs('AWS::WAFv2::WebACL', 0);
    synthGwStack({ context: { environment: 'development' } }).template.resourceCountIs('AWS::WAFv2::WebACL', 0);
  });

  it('is not created when webAclArn names an ACL of your own', () => {
    const own = synthGwStack({ context: { webAclArn: 'arn:aws:wafv2:eu-west-1:123456789012:regional/webacl/gw/1234' } }).template;
    own.resourceCountIs('AWS::WAFv2::WebACL', 0);
    own.resourceCountIs('AWS::WAFv2::WebACLAssociation', 1);
  });

  it('with waf=true: a regional ACL whose rate-based rule per client IP answers 429, associated with the stage', () => {
    const { template } = synthGwStack({ context: { waf: 'true', wafRateLimit: '500' } });
    template.hasResourceProperties('AWS::WAFv2::WebACL', {
      Scope: 'REGIONAL',
      DefaultAction: { Allow: {} },
      Rules: [
        Match.objectLike({
          Statement: { RateBasedStatement: { Limit: 500, AggregateKeyType: 'IP', EvaluationWindowSec: 300 } },
          Action: { Block: { CustomResponse: { ResponseCode: 429, CustomResponseBodyKey: 'rateLimited' } } },
        }),
        // The Lambda payload limits (test/infra/payload-limit.test.ts).
        Match.objectLike({ Name: 'lambda-payload-limit' }),
        Match.objectLike({ Name: 'lambda-payload-limit-multipart' }),
      ],
    });
    const acl = Object.keys(resources(template, 'AWS::WAFv2::WebACL'))[0];
    template.hasResourceProperties('AWS::WAFv2::WebACLAssociation', { WebACLArn: { 'Fn::GetAtt': [acl, 'Arn'] } });
    const body = (Object.values(resources(template, 'AWS::WAFv2::WebACL'))[0].Properties?.CustomResponseBodies as Record<string, { Content: string }>).rateLimited.Content;
    expect(JSON.parse(body)).toMatchObject({ error: { type: 'rate_limit_error', code: 'rate_limited', param: null }, status: 'failure' });
  });

  it('cannot be combined with an existing web ACL', () => {
    expect(() => synthGwStack({ context: { waf: true, webAclArn: 'arn:aws:wafv2:eu-west-1:123456789012:regional/webacl/gw/1234' } })).toThrow(/waf/);
  });
});
