import type { CfnElement } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUFFER_INTERVAL_SECONDS } from '../../infra/cdk/constructs/request-logs.js';
import type { GwStack } from '../../infra/cdk/gw-stack.js';
import type { EngineColumnsByTable } from '../../shared/observability/engine/aws/table-columns.js';
import { TABLE_COLUMNS } from '../../shared/observability/engine/columns.js';
import { synthGwStack } from './support/synth.js';
import { functionProperties, resources } from './support/template-queries.js';

/**
 * Request logs on AWS in the synthesised template (infra/cdk/constructs/request-logs.ts): Firehose → S3 Parquet by
 * day → Glue tables with partition projection → an Athena workgroup; buckets, retention, encryption and roles.
 * The function grants are asserted with the others in functions.test.ts.
 */
let stack: GwStack;
let template: Template;
const idOf = (element: unknown) => stack.getLogicalId(element as CfnElement);

beforeAll(() => {
  ({ stack, template } = synthGwStack({ context: { settings: { LOG_RETENTION_DISPLAY: 30 }, logQueryScanLimitMb: 200, compactionScanLimitMb: 50_000, requestLogsStartDate: '2026-06-01' } }));
});

function streamOf(table: string) {
  const [, stream] = Object.entries(resources(template, 'AWS::KinesisFirehose::DeliveryStream')).find(([, resource]) => resource.Properties?.DeliveryStreamName === `gw-${table}`) ?? [];
  if (!stream) throw new Error(`no delivery stream gw-${table}`);
  return stream.Properties as Record<string, unknown>;
}

function glueTableOf(name: string) {
  const table = Object.values(resources(template, 'AWS::Glue::Table')).find((resource) => (resource.Properties?.TableInput as { Name: string }).Name === name);
  if (!table) throw new Error(`no Glue table ${name}`);
  return table.Properties as { DatabaseName: string; TableInput: Record<string, unknown> & { StorageDescriptor: { Columns: unknown[]; Location: unknown } } };
}

describe('the delivery streams', () => {
  it.each(['requests', 'spans'])("%s: direct PUT, encrypted, Parquet under <table>/day=YYYY-MM-DD/ of the row's own day in the data bucket, errors apart", (table) => {
    const dataBucket = idOf(stack.requestLogs.dataBucket.node.defaultChild);
    expect(streamOf(table)).toMatchObject({
      DeliveryStreamType: 'DirectPut',
      DeliveryStreamEncryptionConfigurationInput: { KeyType: 'AWS_OWNED_CMK' },
      ExtendedS3DestinationConfiguration: {
        BucketARN: { 'Fn::GetAtt': [dataBucket, 'Arn'] },
        // The row's own day, not its arrival's (issue #41): dynamic partitioning on the column the reads filter on.
        Prefix: `${table}/day=!{partitionKeyFromQuery:day}/`,
        ErrorOutputPrefix: `errors/${table}/!{firehose:error-output-type}/day=!{timestamp:yyyy-MM-dd}/`,
        BufferingHints: { IntervalInSeconds: BUFFER_INTERVAL_SECONDS, SizeInMBs: 128 },
        DynamicPartitioningConfiguration: { Enabled: true },
        ProcessingConfiguration: {
          Enabled: true,
          Processors: [
            // Records carry many rows (firehose-sink.ts packs them): split first, then each row's day is read.
            { Type: 'RecordDeAggregation', Parameters: [{ ParameterName: 'SubRecordType', ParameterValue: 'JSON' }] },
            {
              Type: 'MetadataExtraction',
              Parameters: [
                { ParameterName: 'MetadataExtractionQuery', ParameterValue: `{day: .${table === 'requests' ? 'created_at' : 'start_time'}[0:10]}` },
                { ParameterName: 'JsonParsingEngine', ParameterValue: 'JQ-1.6' },
              ],
            },
          ],
        },
        CompressionFormat: 'UNCOMPRESSED',
        CloudWatchLoggingOptions: { Enabled: true },
        DataFormatConversionConfiguration: {
          Enabled: true,
          InputFormatConfiguration: { Deserializer: { HiveJsonSerDe: {} } },
          OutputFormatConfiguration: { Serializer: { ParquetSerDe: { Compression: 'SNAPPY' } } },
          SchemaConfiguration: { DatabaseName: 'gw_logs', TableName: table, VersionId: 'LATEST' },
        },
      },
    });
    expect(BUFFER_INTERVAL_SECONDS).toBeLessThanOrEqual(60);
  });

  it("gives Firehose a role of its own: write the data bucket, read the tables' schemas, log its errors", () => {
    const roleId = (streamOf('requests').ExtendedS3DestinationConfiguration as { RoleARN: { 'Fn::GetAtt': [string] } }).RoleARN['Fn::GetAtt'][0];
    const role = resources(template, 'AWS::IAM::Role')[roleId].Properties as { AssumeRolePolicyDocument: { Statement: unknown[] } };
    expect(role.AssumeRolePolicyDocument.Statement).toEqual([
      expect.objectContaining({ Principal: { Service: 'firehose.amazonaws.com' }, Condition: { StringEquals: { 'sts:ExternalId': { Ref: 'AWS::AccountId' } } } }),
    ]);
    const actions = Object.values(resources(template, 'AWS::IAM::Policy'))
      .filter((policy) => (policy.Properties?.Roles as Array<{ Ref: string }>).some((ref) => ref.Ref === roleId))
      .flatMap((policy) => (policy.Properties?.PolicyDocument as { Statement: Array<{ Action: string | string[] }> }).Statement.flatMap((statement) => [statement.Action].flat()));
    expect(actions.sort()).toEqual(
      [
        's3:AbortMultipartUpload', 's3:GetBucketLocation', 's3:GetObject', 's3:ListBucket', 's3:ListBucketMultipartUploads', 's3:PutObject',
        'glue:GetTable', 'glue:GetTableVersion', 'glue:GetTableVersions', 'logs:PutLogEvents',
      ].sort(),
    );
  });
});

describe('the Glue tables', () => {
  it.each(['requests', 'spans'] as const)('%s: the column list as Parquet columns, `day` the projected partition from the start date to NOW', (table) => {
    const { DatabaseName, TableInput } = glueTableOf(table);
    expect(DatabaseName).toBe('gw_logs');
    expect(TableInput.StorageDescriptor.Columns).toEqual(
      TABLE_COLUMNS[table].filter((column) => column.name !== 'day').map((column) => ({ Name: column.name, Type: column.type })),
    );
    expect(TableInput).toMatchObject({
      TableType: 'EXTERNAL_TABLE',
      PartitionKeys: [{ Name: 'day', Type: 'string' }],
      Parameters: {
        'projection.enabled': 'true',
        'projection.day.type': 'date',
        'projection.day.format': 'yyyy-MM-dd',
        'projection.day.range': '2026-06-01,NOW',
        'projection.day.interval': '1',
        'projection.day.interval.unit': 'DAYS',
        'storage.location.template': { 'Fn::Join': ['', ['s3://', { Ref: idOf(stack.requestLogs.dataBucket.node.defaultChild) }, `/${table}/day=\${day}/`]] },
      },
      StorageDescriptor: { SerdeInfo: { SerializationLibrary: 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe' } },
    });
  });

  it('media units are lost from request logs unless both requests tables, raw and compacted, have their Parquet columns (#47)', () => {
    const media = [
      { Name: 'images', Type: 'bigint' },
      { Name: 'characters', Type: 'bigint' },
      { Name: 'audio_seconds', Type: 'double' },
      { Name: 'image_size', Type: 'string' },
      { Name: 'image_quality', Type: 'string' },
    ];
    for (const name of ['requests', 'requests_compacted']) expect(glueTableOf(name).TableInput.StorageDescriptor.Columns).toEqual(expect.arrayContaining(media));
  });

  it('takes its columns from the list it is given (the integrator points it at columns.ts)', () => {
    const columns: EngineColumnsByTable = {
      requests: [
        { name: 'id', type: 'string' },
        { name: 'created_at', type: 'timestamp' },
        { name: 'metadata', type: 'map<string,string>' },
        { name: 'day', type: 'string' },
      ],
      spans: [{ name: 'span_id', type: 'string' }],
    };
    const { template: other } = synthGwStack({ requestLogColumns: columns });
    other.hasResourceProperties('AWS::Glue::Table', {
      TableInput: Match.objectLike({
        Name: 'requests',
        StorageDescriptor: Match.objectLike({ Columns: [{ Name: 'id', Type: 'string' }, { Name: 'created_at', Type: 'timestamp' }, { Name: 'metadata', Type: 'map<string,string>' }] }),
      }),
    });
  });
});

describe('the Athena workgroup and buckets', () => {
  it('enforces encrypted results in the results bucket and the per-query scan limit from context', () => {
    template.hasResourceProperties('AWS::Athena::WorkGroup', {
      Name: 'gw-logs',
      State: 'ENABLED',
      WorkGroupConfiguration: {
        EnforceWorkGroupConfiguration: true,
        BytesScannedCutoffPerQuery: 200 * 1024 * 1024,
        EngineVersion: { SelectedEngineVersion: 'Athena engine version 3' },
        ResultConfiguration: {
          OutputLocation: { 'Fn::Join': ['', ['s3://', { Ref: idOf(stack.requestLogs.resultsBucket.node.defaultChild) }, '/results/']] },
          EncryptionConfiguration: { EncryptionOption: 'SSE_S3' },
        },
      },
    });
  });

  it('scan-limit isolation: the compaction has a workgroup of its own, enforced, with its larger limit from context and its own result prefix', () => {
    template.hasResourceProperties('AWS::Athena::WorkGroup', {
      Name: 'gw-logs-compaction',
      State: 'ENABLED',
      WorkGroupConfiguration: {
        EnforceWorkGroupConfiguration: true,
        BytesScannedCutoffPerQuery: 50_000 * 1024 * 1024,
        EngineVersion: { SelectedEngineVersion: 'Athena engine version 3' },
        ResultConfiguration: {
          OutputLocation: { 'Fn::Join': ['', ['s3://', { Ref: idOf(stack.requestLogs.resultsBucket.node.defaultChild) }, '/compaction/']] },
          EncryptionConfiguration: { EncryptionOption: 'SSE_S3' },
        },
      },
    });
    expect(Object.values(resources(template, 'AWS::Athena::WorkGroup'))).toHaveLength(2);
    const variables = (functionProperties(template, 'compact-request-logs').Environment as { Variables: Record<string, unknown> }).Variables;
    expect(variables.GW_ATHENA_COMPACTION_WORKGROUP).toBe('gw-logs-compaction');
  });

  it('defaults the compaction limit to 1 TiB, a hundred times the read cutoff', () => {
    const { template: defaults } = synthGwStack({ context: {} });
    defaults.hasResourceProperties('AWS::Athena::WorkGroup', { Name: 'gw-logs', WorkGroupConfiguration: Match.objectLike({ BytesScannedCutoffPerQuery: 10_240 * 1024 * 1024 }) });
    defaults.hasResourceProperties('AWS::Athena::WorkGroup', { Name: 'gw-logs-compaction', WorkGroupConfiguration: Match.objectLike({ BytesScannedCutoffPerQuery: 1024 ** 4 }) });
  });

  it('expires rows at the log retention, query results after a day and exports after a week; both buckets private, encrypted, TLS only', () => {
    const bucket = (construct: unknown) => resources(template, 'AWS::S3::Bucket')[idOf(construct)].Properties as Record<string, unknown>;
    const data = bucket(stack.requestLogs.dataBucket.node.defaultChild);
    const results = bucket(stack.requestLogs.resultsBucket.node.defaultChild);
    expect((data.LifecycleConfiguration as { Rules: unknown[] }).Rules).toEqual(expect.arrayContaining([expect.objectContaining({ ExpirationInDays: 30, Status: 'Enabled' })]));
    expect((results.LifecycleConfiguration as { Rules: unknown[] }).Rules).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Prefix: 'results/', ExpirationInDays: 1 }),
        expect.objectContaining({ Prefix: 'compaction/', ExpirationInDays: 1 }),
        expect.objectContaining({ Prefix: 'exports/', ExpirationInDays: 7 }),
      ]),
    );
    for (const properties of [data, results]) {
      expect(properties).toMatchObject({
        BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
        PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      });
    }
    expect(Object.values(resources(template, 'AWS::S3::BucketPolicy'))).toHaveLength(3);
  });

  it("gives every function the names it reads (shared/settings.ts), the results bucket by reference", () => {
    const variables = (functionProperties(template, 'control-plane').Environment as { Variables: Record<string, unknown> }).Variables;
    expect(variables).toMatchObject({
      GW_LOG_STREAM_REQUESTS: 'gw-requests',
      GW_LOG_STREAM_SPANS: 'gw-spans',
      GW_ATHENA_WORKGROUP: 'gw-logs',
      GW_ATHENA_DATABASE: 'gw_logs',
      GW_ATHENA_TABLE_REQUESTS: 'requests',
      GW_ATHENA_TABLE_SPANS: 'spans',
      GW_LOG_RESULTS_BUCKET: { Ref: idOf(stack.requestLogs.resultsBucket.node.defaultChild) },
      GW_LOG_FRESHNESS_MS: '60000',
    });
  });

  it("names everything after the stack, so two stacks in one account never share a stream, table or workgroup", () => {
    const { template: staging } = synthGwStack({ context: { stackName: 'gw-staging' } });
    staging.hasResourceProperties('AWS::KinesisFirehose::DeliveryStream', { DeliveryStreamName: 'gw-staging-requests' });
    staging.hasResourceProperties('AWS::Glue::Database', { DatabaseInput: { Name: 'gw_staging_logs' } });
    staging.hasResourceProperties('AWS::Athena::WorkGroup', { Name: 'gw-staging-logs' });
    staging.hasResourceProperties('AWS::Athena::WorkGroup', { Name: 'gw-staging-logs-compaction' });
  });
});
