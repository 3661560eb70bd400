import { join } from 'node:path';
import type { CfnElement } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { BLOB_ACTIONS, BLOB_BUCKET_ACTIONS, SECRET_ACTIONS } from '../../infra/cdk/constructs/access-grants.js';
import { effectiveTableGrants, FUNCTION_TABLE } from '../../infra/cdk/function-table.js';
import type { GwStack } from '../../infra/cdk/gw-stack.js';
import { FIXTURES, synthGwStack, tableWithScheduledFixtures } from './support/synth.js';
import { functionLogicalId, functionProperties, grantsOf, managedPolicyArnsOf, resources } from './support/template-queries.js';

/** Logical ids → readable names for the grant strings (`dynamodb:Query main/index/gsi2`). */
function aliasesOf(stack: GwStack): Record<string, string> {
  const aliases: Record<string, string> = {};
  const logicalId = (element: unknown) => stack.getLogicalId(element as CfnElement);
  for (const [id, { table }] of stack.tables.byId) aliases[logicalId(table.node.defaultChild)] = id;
  for (const [, fn] of stack.functions) aliases[logicalId(fn.logGroup.node.defaultChild)] = 'own-log-group';
  if (stack.secretsKey) aliases[logicalId(stack.secretsKey.node.defaultChild)] = 'secrets-key';
  aliases[logicalId(stack.blobs.bucket.node.defaultChild)] = 'blob-bucket';
  aliases[logicalId(stack.requestLogs.dataBucket.node.defaultChild)] = 'log-data';
  aliases[logicalId(stack.requestLogs.resultsBucket.node.defaultChild)] = 'log-results';
  if (stack.failedRuns) aliases[logicalId(stack.failedRuns.queue.node.defaultChild)] = 'failed-runs';
  return aliases;
}

const SECRETS = 'arn:${Partition}:secretsmanager:${Region}:${AccountId}:secret:gw/*';
const BLOBS = 'blob-bucket/*';
const FOUNDATION_MODELS = 'arn:${Partition}:bedrock:${Region}::foundation-model/*';
const ALWAYS = ['logs:CreateLogStream own-log-group', 'logs:PutLogEvents own-log-group', 'xray:PutTelemetryRecords *', 'xray:PutTraceSegments *'];
const ARN = (service: string, resource: string) => `arn:\${Partition}:${service}:\${Region}:\${AccountId}:${resource}`;
const GLUE_TABLES = ['catalog', 'database/gw_logs', 'table/gw_logs/requests', 'table/gw_logs/spans'].map((resource) => ARN('glue', resource));
const COMPACTED_GLUE_TABLES = ['table/gw_logs/requests_compacted', 'table/gw_logs/spans_compacted'].map((resource) => ARN('glue', resource));
/** Request-log grants (infra/cdk/constructs/request-logs.ts): exactly the calls of the sink, the engine, and Athena for them. */
const REQUEST_LOG_GRANTS = {
  write: ['requests', 'spans'].map((table) => `firehose:PutRecordBatch ${ARN('firehose', `deliverystream/gw-${table}`)}`),
  query: [
    ...['StartQueryExecution', 'GetQueryExecution', 'GetQueryResults', 'GetQueryRuntimeStatistics', 'StopQueryExecution'].map((action) => `athena:${action} ${ARN('athena', 'workgroup/gw-logs')}`),
    ...GLUE_TABLES.slice(0, 2).map((resource) => `glue:GetDatabase ${resource}`),
    ...['GetTable', 'GetPartitions'].flatMap((action) => [...GLUE_TABLES, ...COMPACTED_GLUE_TABLES].map((resource) => `glue:${action} ${resource}`)),
    's3:GetObject log-data/*',
    ...['ListBucket', 'GetBucketLocation'].flatMap((action) => [`s3:${action} log-data`, `s3:${action} log-results`]),
    ...['GetObject', 'PutObject', 'AbortMultipartUpload', 'ListMultipartUploadParts'].flatMap((action) => [`s3:${action} log-results/results/*`, `s3:${action} log-results/exports/*`]),
  ],
  // The daily compaction: UNLOADs read the raw tables and write compacted/; it deletes the raw files it replaced.
  // Its queries run in its own workgroup (its own scan limit), never the read APIs'.
  compact: [
    ...['StartQueryExecution', 'GetQueryExecution', 'GetQueryRuntimeStatistics', 'StopQueryExecution'].map((action) => `athena:${action} ${ARN('athena', 'workgroup/gw-logs-compaction')}`),
    ...GLUE_TABLES.slice(0, 2).map((resource) => `glue:GetDatabase ${resource}`),
    ...['GetTable', 'GetPartitions'].flatMap((action) => GLUE_TABLES.map((resource) => `glue:${action} ${resource}`)),
    's3:ListBucket log-data',
    ...['log-data', 'log-results'].map((bucket) => `s3:GetBucketLocation ${bucket}`),
    ...['GetObject', 'DeleteObject'].flatMap((action) => [`s3:${action} log-data/requests/*`, `s3:${action} log-data/spans/*`]),
    ...['GetObject', 'PutObject', 'DeleteObject', 'AbortMultipartUpload', 'ListMultipartUploadParts'].map((action) => `s3:${action} log-data/compacted/*`),
    ...['PutObject', 'AbortMultipartUpload', 'ListMultipartUploadParts'].map((action) => `s3:${action} log-results/compaction/*`),
  ],
} as const;
const FAILED_RUN_GRANTS = ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'].map((action) => `${action} failed-runs`);
const KMS_VIA_SECRETS_MANAGER = ' if {"StringEquals":{"kms:ViaService":{"Fn::Join":["",["secretsmanager.",{"Ref":"AWS::Region"},".",{"Ref":"AWS::URLSuffix"}]]}}}';

describe('the functions, with the scheduled ones present (fixture handlers)', () => {
  let stack: GwStack;
  let template: Template;
  let aliases: Record<string, string>;
  beforeAll(() => {
    ({ stack, template } = synthGwStack({ functions: tableWithScheduledFixtures(), context: { secretsKmsKey: 'create' } }));
    aliases = aliasesOf(stack);
  });

  it('runs every function on nodejs24.x, arm64, with X-Ray active and the handler of an ESM bundle', () => {
    expect(Object.keys(resources(template, 'AWS::Lambda::Function'))).toHaveLength(5);
    for (const { name } of FUNCTION_TABLE) {
      expect(functionProperties(template, name)).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        TracingConfig: { Mode: 'Active' },
      });
    }
  });

  it('sizes each function as the table says, the gateway long enough for a 15-minute stream', () => {
    const sizes = Object.fromEntries(FUNCTION_TABLE.map(({ name }) => [name, [functionProperties(template, name).MemorySize, functionProperties(template, name).Timeout]]));
    expect(sizes).toEqual({ gateway: [512, 900], 'control-plane': [512, 30], 'expire-api-keys': [256, 120], 'restore-budgets': [256, 120], 'compact-request-logs': [256, 900] });
  });

  it('gives every function the table names, blob bucket, Powertools settings, secret store and prefix, and no source maps in production', () => {
    for (const { name } of FUNCTION_TABLE) {
      const variables = (functionProperties(template, name).Environment as { Variables: Record<string, unknown> }).Variables;
      const refs = Object.fromEntries(['GW_TABLE_MAIN', 'GW_TABLE_CACHE', 'GW_TABLE_LOGS'].map((key) => [key, aliases[(variables[key] as { Ref: string }).Ref]]));
      expect(refs).toEqual({ GW_TABLE_MAIN: 'main', GW_TABLE_CACHE: 'cache', GW_TABLE_LOGS: 'logs' });
      expect(aliases[(variables.GW_BLOB_BUCKET as { Ref: string }).Ref]).toBe('blob-bucket');
      expect(variables).toMatchObject({
        POWERTOOLS_SERVICE_NAME: `gw-${name}`,
        POWERTOOLS_LOG_LEVEL: 'INFO',
        POWERTOOLS_METRICS_NAMESPACE: 'gw',
        GW_SECRET_STORE: 'secrets-manager',
        GW_SECRET_NAME_PREFIX: 'gw',
        // Under API Gateway's 5-minute idle cut-off for streams.
        GW_STREAM_IDLE_TIMEOUT_MS: '280000',
      });
      // A production cold start reads no .map file (test/infra/operability.test.ts, bundles.test.ts).
      expect(variables.NODE_OPTIONS).toBeUndefined();
      expect(aliases[(variables.GW_SECRETS_KMS_KEY_ID as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0]]).toBe('secrets-key');
    }
  });

  it('writes each function to its own log group, kept for 30 days, with no reserved concurrency by default', () => {
    for (const { name } of FUNCTION_TABLE) {
      const properties = functionProperties(template, name);
      expect(aliases[(properties.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref]).toBe('own-log-group');
      // Not even the compaction's (its lock keeps it to one run): a reservation fails deployments on new accounts.
      expect(properties.ReservedConcurrentExecutions).toBeUndefined();
    }
    const retentions = Object.values(resources(template, 'AWS::Logs::LogGroup')).map((group) => group.Properties?.RetentionInDays);
    expect(retentions).toEqual(new Array(8).fill(30)); // five functions, the API's access and execution logs, Firehose's delivery errors
  });

  it('attaches no AWS managed policy to any function role', () => {
    for (const { name } of FUNCTION_TABLE) expect(managedPolicyArnsOf(template, name)).toEqual([]);
  });

  it('grants each function exactly what its row in the function table lists, and nothing on Resource * but X-Ray', () => {
    // Which rows are right is decided by behaviour (scripts/check-grants.ts over the recorded operations); here the
    // stack must turn each row into exactly those grants.
    for (const spec of FUNCTION_TABLE) {
      const expected = [...ALWAYS];
      for (const grant of effectiveTableGrants(spec, {})) {
        expected.push(...grant.actions.map((action) => `dynamodb:${action} ${grant.table}`));
        expected.push(...(grant.queryIndexes ?? []).map((index) => `dynamodb:Query ${grant.table}/index/${index}`));
      }
      if (spec.secrets) {
        expected.push(...SECRET_ACTIONS[spec.secrets].map((action) => `${action} ${SECRETS}`));
        expected.push(...(spec.secrets === 'manage' ? ['kms:Decrypt', 'kms:GenerateDataKey'] : ['kms:Decrypt']).map((action) => `${action} secrets-key${KMS_VIA_SECRETS_MANAGER}`));
      }
      if (spec.blobs) expected.push(...BLOB_ACTIONS[spec.blobs].map((action) => `${action} ${BLOBS}`));
      // ListBucket on the bucket itself: a missing key is then 404 NoSuchKey, not 403 AccessDenied.
      if (spec.blobs) expected.push(...BLOB_BUCKET_ACTIONS[spec.blobs].map((action) => `${action} blob-bucket`));
      // Bedrock calls without credentials are signed with the gateway's role: any foundation model of the region.
      if (spec.name === 'gateway') expected.push(...['InvokeModel', 'InvokeModelWithResponseStream'].map((action) => `bedrock:${action} ${FOUNDATION_MODELS}`));
      // Roles a virtual key may name for Bedrock (bedrockAssumableRoleArns, default: the account's gw-bedrock-* roles).
      if (spec.name === 'gateway') expected.push('sts:AssumeRole arn:${Partition}:iam::${AccountId}:role/gw-bedrock-*');
      if (spec.requestLogs) expected.push(...REQUEST_LOG_GRANTS[spec.requestLogs]);
      // A scheduled function's failed runs go to the failed-runs queue (its on-failure destination, issue #44).
      if (spec.scheduleMinutes || spec.scheduleDaily) expected.push(...FAILED_RUN_GRANTS);
      const grants = grantsOf(template, spec.name, aliases);
      expect(grants, spec.name).toEqual(expected.sort());
      expect(grants.filter((grant) => grant.split(' ')[1] === '*').every((grant) => grant.startsWith('xray:')), spec.name).toBe(true);
    }
  });

  it('gives the gateway no write on the logs table (request logs go to the log engine) and secrets of this stack only', () => {
    const grants = grantsOf(template, 'gateway', aliases);
    expect(grants).toContain('dynamodb:BatchWriteItem main');
    expect(grants.filter((grant) => /^dynamodb:\w+ logs/.test(grant))).toEqual([]);
    expect(grants.filter((grant) => grant.startsWith('secretsmanager:')).every((grant) => grant.endsWith(SECRETS))).toBe(true);
  });

  it('gives the scheduled functions no secrets, no blobs and no logs table', () => {
    for (const name of ['expire-api-keys', 'restore-budgets']) {
      const grants = grantsOf(template, name, aliases).filter((grant) => !ALWAYS.includes(grant));
      expect(grants.every((grant) => /^dynamodb:\w+ main(\/index\/gsi2)?$/.test(grant) || FAILED_RUN_GRANTS.includes(grant)), grants.join('\n')).toBe(true);
    }
  });

  it('invokes each scheduled function from an EventBridge rule every 5 minutes, retrying twice', () => {
    for (const name of ['expire-api-keys', 'restore-budgets']) {
      template.hasResourceProperties('AWS::Events::Rule', {
        ScheduleExpression: 'rate(5 minutes)',
        State: 'ENABLED',
        Targets: [
          Match.objectLike({
            Arn: { 'Fn::GetAtt': [functionLogicalId(template, name), 'Arn'] },
            RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 300 },
          }),
        ],
      });
      template.hasResourceProperties('AWS::Lambda::Permission', {
        Action: 'lambda:InvokeFunction',
        Principal: 'events.amazonaws.com',
        FunctionName: { 'Fn::GetAtt': [functionLogicalId(template, name), 'Arn'] },
      });
    }
    template.resourceCountIs('AWS::Events::Rule', 3);
  });

  it('invokes the request-log compaction once a day at 00:30 UTC, an event at most an hour old', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'cron(30 0 * * ? *)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [functionLogicalId(template, 'compact-request-logs'), 'Arn'] }, RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 3600 } })],
    });
  });

  it('rotates the customer-managed key it creates for secrets', () => {
    template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
  });
});

describe('functions whose handler does not exist yet', () => {
  it('leaves a scheduled function and its schedule out of the stack until its handler lands', () => {
    const missing = FUNCTION_TABLE.map((spec) =>
      spec.name === 'restore-budgets' ? { ...spec, entry: join(FIXTURES, 'no-such-handler.ts') } : spec.scheduleMinutes || spec.scheduleDaily ? { ...spec, entry: join(FIXTURES, 'scheduled-handler.ts') } : spec,
    );
    const { template } = synthGwStack({ functions: missing });
    expect(() => functionLogicalId(template, 'restore-budgets')).toThrow('No gw-restore-budgets function');
    expect(functionLogicalId(template, 'expire-api-keys')).toMatch(/^ExpireApiKeys/);
    // expire-api-keys' and the compaction's.
    template.resourceCountIs('AWS::Events::Rule', 2);
  });

  it('refuses to synthesize without the gateway handler', () => {
    const noGateway = FUNCTION_TABLE.map((spec) => (spec.name === 'gateway' ? { ...spec, entry: join(FIXTURES, 'no-such-handler.ts') } : spec));
    expect(() => synthGwStack({ functions: noGateway })).toThrow(/The gateway function is required/);
  });
});

describe('per-function overrides from context', () => {
  it('applies reserved concurrency and memory overrides to the named functions only', () => {
    const { template } = synthGwStack({ context: { reservedConcurrency: '{"gateway": 50}', memoryMb: { 'control-plane': 1024 } } });
    expect(functionProperties(template, 'gateway')).toMatchObject({ ReservedConcurrentExecutions: 50, MemorySize: 512 });
    expect(functionProperties(template, 'control-plane')).toMatchObject({ MemorySize: 1024 });
    expect(functionProperties(template, 'control-plane').ReservedConcurrentExecutions).toBeUndefined();
  });

  it('passes gw settings from context to every function, feature flags as ON/OFF', () => {
    const { template } = synthGwStack({ context: { settings: { GUARDRAILS_ENABLED: false, GW_AUTH_CACHE_TTL_MS: 5000, GW_STREAM_IDLE_TIMEOUT_MS: 120000 }, logLevel: 'DEBUG' } });
    for (const name of ['gateway', 'control-plane']) {
      expect((functionProperties(template, name).Environment as { Variables: Record<string, unknown> }).Variables).toMatchObject({
        GUARDRAILS_ENABLED: 'OFF',
        GW_AUTH_CACHE_TTL_MS: '5000',
        GW_STREAM_IDLE_TIMEOUT_MS: '120000',
        POWERTOOLS_LOG_LEVEL: 'DEBUG',
      });
    }
  });

  it('lets the gateway read the logs table only when model prices or capabilities are kept there', () => {
    const { stack, template } = synthGwStack({ context: { settings: { MODEL_CONFIGS_PRICING_LOG_STORE_PATH: 'pricing' } } });
    const logsGrants = grantsOf(template, 'gateway', aliasesOf(stack)).filter((grant) => grant.endsWith(' logs'));
    expect(logsGrants).toContain('dynamodb:GetItem logs');
    const { stack: plain, template: plainTemplate } = synthGwStack();
    expect(grantsOf(plainTemplate, 'gateway', aliasesOf(plain)).filter((grant) => grant.endsWith(' logs'))).not.toContain('dynamodb:GetItem logs');
  });

  it('lets the gateway invoke the Bedrock models of bedrockModelArns, or none when GW_BEDROCK_FUNCTION_ROLE is OFF', () => {
    const bedrockGrants = (context: Record<string, unknown>) => {
      const synthesised = synthGwStack({ functions: tableWithScheduledFixtures(), context });
      return grantsOf(synthesised.template, 'gateway', aliasesOf(synthesised.stack)).filter((grant) => grant.startsWith('bedrock:'));
    };
    const profile = 'arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-3-5-sonnet-20240620-v1:0';
    expect(bedrockGrants({ bedrockModelArns: [profile] })).toEqual([`bedrock:InvokeModel ${profile}`, `bedrock:InvokeModelWithResponseStream ${profile}`]);
    expect(bedrockGrants({ settings: { GW_BEDROCK_FUNCTION_ROLE: 'OFF' } })).toEqual([]);
    expect(bedrockGrants({ bedrockModelArns: [] })).toEqual([]);
  });

  it('lets the gateway assume the roles of bedrockAssumableRoleArns (default: the account\'s gw-bedrock-* roles), or none when GW_BEDROCK_FUNCTION_ROLE is OFF', () => {
    const stsGrants = (context: Record<string, unknown>) => {
      const synthesised = synthGwStack({ functions: tableWithScheduledFixtures(), context });
      return grantsOf(synthesised.template, 'gateway', aliasesOf(synthesised.stack)).filter((grant) => grant.startsWith('sts:'));
    };
    const [byDefault] = stsGrants({});
    expect(byDefault).toMatch(/^sts:AssumeRole arn:.*:iam::.*:role\/gw-bedrock-\*$/);
    const role = 'arn:aws:iam::123456789012:role/team-a-bedrock';
    expect(stsGrants({ bedrockAssumableRoleArns: [role] })).toEqual([`sts:AssumeRole ${role}`]);
    expect(stsGrants({ settings: { GW_BEDROCK_FUNCTION_ROLE: 'OFF' } })).toEqual([]);
    expect(stsGrants({ bedrockAssumableRoleArns: [] })).toEqual([]);
    expect(() => synthGwStack({ context: { bedrockAssumableRoleArns: ['arn:aws:s3:::bucket'] } })).toThrow(/bedrockAssumableRoleArns/);
  });

  it('grants KMS on an existing key given by ARN instead of creating one', () => {
    const keyArn = 'arn:aws:kms:eu-west-1:123456789012:key/11111111-2222-3333-4444-555555555555';
    const { template } = synthGwStack({ context: { secretsKmsKey: keyArn } });
    template.resourcePropertiesCountIs('AWS::KMS::Key', { Description: Match.stringLikeRegexp('Secrets Manager') }, 0);
    const grants = grantsOf(template, 'gateway', {});
    const kms = grants.filter((grant) => grant.startsWith('kms:'));
    expect(kms).toContain(`kms:Decrypt ${keyArn}${KMS_VIA_SECRETS_MANAGER}`);
    expect(kms.every((grant) => grant.endsWith(`${keyArn}${KMS_VIA_SECRETS_MANAGER}`))).toBe(true);
  });
});
