import { Aws, Duration, RemovalPolicy, Stack, Validations, type CfnElement, type CfnResource } from 'aws-cdk-lib';
import { CfnWorkGroup } from 'aws-cdk-lib/aws-athena';
import { CfnDatabase, type CfnTable } from 'aws-cdk-lib/aws-glue';
import { Effect, PolicyStatement, Role, ServicePrincipal, type IRole } from 'aws-cdk-lib/aws-iam';
import { CfnDeliveryStream } from 'aws-cdk-lib/aws-kinesisfirehose';
import { LogGroup, LogStream, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership, type LifecycleRule } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { PARTITION_COLUMN, type EngineColumnsByTable } from '../../../shared/observability/engine/aws/table-columns.js';
import { compactedTable } from '../../../shared/observability/engine/sql.js';
import type { EngineTable } from '../../../shared/observability/engine/types.js';
import { logGlueTable } from './request-log-tables.js';

/**
 * Firehose's buffer interval: a delivery stream writes one Parquet file per table when this much time has passed
 * since its first buffered record (or 128 MB, ~100,000 requests, are buffered first). 45 s leaves room for gw's own
 * flush (at the end of each invocation) and Firehose's conversion and S3 write within the 60 s freshness the read
 * APIs promise; shorter means more, smaller files (an S3 PUT each, and more files for every Athena query to open).
 */
export const BUFFER_INTERVAL_SECONDS = 45;
/** What the read APIs say about freshness (GW_LOG_FRESHNESS_MS): the buffer interval plus delivery. */
export const FRESHNESS_MS = 60_000;
/** Format conversion needs a buffer of at least 64 MB. */
const BUFFER_SIZE_MB = 128;

/** Query results are read once, by the request that ran the query; exports are downloaded within days. */
const RESULTS_EXPIRE_DAYS = 1;
const EXPORTS_EXPIRE_DAYS = 7;

const TABLES: readonly EngineTable[] = ['requests', 'spans'];
/** The column whose UTC day is a row's `day` (columns.ts: REQUEST_VALUES.day, SPAN_VALUES.day), as row-json.ts writes it. */
const DAY_SOURCE: Readonly<Record<EngineTable, string>> = { requests: 'created_at', spans: 'start_time' };

export interface RequestLogsProps {
  /** The one column list (shared/observability/engine/columns.ts): the Glue tables, hence the Parquet schema. */
  columns: EngineColumnsByTable;
  /** Rows (and Firehose's error output) are deleted this many days after they were written. */
  retentionDays: number;
  /** Athena cancels a query of the workgroup that would scan more than this (BytesScannedCutoffPerQuery). */
  scanLimitBytes: number;
  /**
   * The same for the daily compaction's own workgroup: an UNLOAD reads a whole day of both tables, far more than a
   * read API query may, and a day it cannot compact stays raw (slower, dearer reads) until the limit is raised.
   */
  compactionScanLimitBytes: number;
  /** First day the `day` partition projection covers ('YYYY-MM-DD'); it runs to NOW. */
  projectionStartDate: string;
  logRetention: RetentionDays;
  production: boolean;
}

/**
 * Request logs on AWS (issue #32): per table a Firehose delivery stream that converts JSON lines to Parquet
 * (schema from the Glue table) into `s3://<data bucket>/<table>/day=YYYY-MM-DD/`; a Glue database with one table per
 * engine table, partitioned by `day` through partition projection (no crawler, no partition to add); an Athena
 * workgroup whose enforced configuration writes encrypted results to a bucket that expires them, with a per-query
 * scan limit. Retention is an S3 lifecycle rule. Names derive from the stack's, so two stacks never share one.
 */
export class RequestLogs extends Construct {
  readonly dataBucket: Bucket;
  readonly resultsBucket: Bucket;
  readonly databaseName: string;
  readonly workgroupName: string;
  /** The daily compaction's workgroup: its own scan limit and result prefix, apart from the read APIs'. */
  readonly compactionWorkgroupName: string;
  readonly streamNames: Readonly<Record<EngineTable, string>>;
  readonly tableNames: Readonly<Record<EngineTable, string>> = { requests: 'requests', spans: 'spans' };
  /** The daily compaction's tables (`<table>_compacted`, under `compacted/<table>/` of the data bucket). */
  readonly compactedTableNames: Readonly<Record<EngineTable, string>> = { requests: compactedTable('requests'), spans: compactedTable('spans') };
  readonly workgroup: CfnWorkGroup;
  readonly compactionWorkgroup: CfnWorkGroup;
  readonly streams: Readonly<Record<EngineTable, CfnDeliveryStream>>;

  constructor(scope: Construct, id: string, props: RequestLogsProps) {
    super(scope, id);
    const stack = Stack.of(this);
    // Firehose names are ≤ 64 characters, Glue names lower case with underscores.
    const base = stack.stackName.slice(0, 55);
    this.streamNames = { requests: `${base}-requests`, spans: `${base}-spans` };
    this.workgroupName = `${stack.stackName}-logs`;
    this.compactionWorkgroupName = `${stack.stackName}-logs-compaction`;
    this.databaseName = `${stack.stackName.toLowerCase().replace(/[^a-z0-9]/g, '_')}_logs`;
    const removalPolicy = props.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;

    this.dataBucket = this.bucket('Data', 'bucket/log-data', removalPolicy, [
      { id: 'expire-with-log-retention', enabled: true, expiration: Duration.days(props.retentionDays) },
    ]);
    this.resultsBucket = this.bucket('Results', 'bucket/log-results', removalPolicy, [
      { id: 'expire-query-results', enabled: true, prefix: 'results/', expiration: Duration.days(RESULTS_EXPIRE_DAYS) },
      { id: 'expire-exports', enabled: true, prefix: 'exports/', expiration: Duration.days(EXPORTS_EXPIRE_DAYS) },
      // UNLOAD manifests of the compaction: nothing reads them after the run.
      { id: 'expire-compaction-results', enabled: true, prefix: 'compaction/', expiration: Duration.days(RESULTS_EXPIRE_DAYS) },
    ]);

    const database = new CfnDatabase(this, 'Database', {
      catalogId: stack.account,
      databaseInput: { name: this.databaseName, description: `gw ${stack.stackName}: request logs and spans (Parquet, by day)` },
    });
    const tables = Object.fromEntries(TABLES.map((table) => [table, this.glueTable(table, props, database)])) as Record<EngineTable, CfnTable>;
    for (const table of TABLES) this.glueTable(table, props, database, 'compacted');

    const delivery = this.deliveryRole(props);
    this.streams = Object.fromEntries(TABLES.map((table) => [table, this.deliveryStream(table, delivery, tables[table])])) as Record<EngineTable, CfnDeliveryStream>;

    this.workgroup = this.athenaWorkgroup('Workgroup', this.workgroupName, 'request-log queries and exports', props.scanLimitBytes, 'results/', props.production);
    this.compactionWorkgroup = this.athenaWorkgroup('CompactionWorkgroup', this.compactionWorkgroupName, 'daily request-log compaction', props.compactionScanLimitBytes, 'compaction/', props.production);
  }

  /** The gateway: `firehose:PutRecordBatch` on the two delivery streams, nothing else. */
  grantWrite(role: IRole): void {
    role.addToPrincipalPolicy(
      new PolicyStatement({ sid: 'requestLogStreams', effect: Effect.ALLOW, actions: ['firehose:PutRecordBatch'], resources: TABLES.map((table) => this.streamArn(table)) }),
    );
  }

  /**
   * The control plane: the four Athena calls on the workgroup; and what Athena does with the caller's permissions
   * while a query runs: read the Glue database and tables, read the data bucket, write results (and UNLOAD's
   * exports) to the results bucket; the engine itself lists an export's files and downloads go by presigned GET.
   */
  grantQuery(role: IRole): void {
    const stack = Stack.of(this);
    const glue = (resource: string) => stack.formatArn({ service: 'glue', resource });
    const statements = [
      new PolicyStatement({
        sid: 'requestLogQueries',
        // GetQueryRuntimeStatistics: an export's row count (UNLOAD returns no result set).
        actions: ['athena:StartQueryExecution', 'athena:GetQueryExecution', 'athena:GetQueryResults', 'athena:GetQueryRuntimeStatistics', 'athena:StopQueryExecution'],
        resources: [this.workgroupArn(this.workgroupName)],
      }),
      new PolicyStatement({ sid: 'requestLogDatabase', actions: ['glue:GetDatabase'], resources: [glue('catalog'), glue(`database/${this.databaseName}`)] }),
      new PolicyStatement({
        sid: 'requestLogTables',
        actions: ['glue:GetTable', 'glue:GetPartitions'],
        // Reads take compacted days from the compacted tables and recent ones from the raw tables.
        resources: [glue('catalog'), glue(`database/${this.databaseName}`), ...this.tableArns('raw'), ...this.tableArns('compacted')],
      }),
      new PolicyStatement({ sid: 'requestLogDataRead', actions: ['s3:GetObject'], resources: [this.dataBucket.arnForObjects('*')] }),
      new PolicyStatement({ sid: 'requestLogBuckets', actions: ['s3:ListBucket', 's3:GetBucketLocation'], resources: [this.dataBucket.bucketArn, this.resultsBucket.bucketArn] }),
      new PolicyStatement({
        sid: 'requestLogResults',
        actions: ['s3:GetObject', 's3:PutObject', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts'],
        resources: [this.resultsBucket.arnForObjects('results/*'), this.resultsBucket.arnForObjects('exports/*')],
      }),
    ];
    for (const statement of statements) role.addToPrincipalPolicy(statement);
  }

  /**
   * The daily compaction (functions/compact-request-logs): Athena UNLOADs on the workgroup (polled, counted, stopped
   * at its deadline); what Athena does with its permissions while one runs: read the raw tables' schema and files,
   * write the compacted files under `compacted/` and its manifest under the workgroup's result prefix; and its own
   * S3 calls on the data bucket: list days, write and read a day's marker under `compacted/`, delete the raw files it
   * replaced (and a failed attempt's partial output under `compacted/`).
   */
  grantCompact(role: IRole): void {
    const stack = Stack.of(this);
    const glue = (resource: string) => stack.formatArn({ service: 'glue', resource });
    const raw = TABLES.map((table) => this.dataBucket.arnForObjects(`${table}/*`));
    const compacted = this.dataBucket.arnForObjects('compacted/*');
    const statements = [
      new PolicyStatement({
        sid: 'requestLogCompactionQueries',
        actions: ['athena:StartQueryExecution', 'athena:GetQueryExecution', 'athena:GetQueryRuntimeStatistics', 'athena:StopQueryExecution'],
        resources: [this.workgroupArn(this.compactionWorkgroupName)],
      }),
      new PolicyStatement({ sid: 'requestLogCompactionDatabase', actions: ['glue:GetDatabase'], resources: [glue('catalog'), glue(`database/${this.databaseName}`)] }),
      new PolicyStatement({
        sid: 'requestLogCompactionTables',
        actions: ['glue:GetTable', 'glue:GetPartitions'],
        resources: [glue('catalog'), glue(`database/${this.databaseName}`), ...this.tableArns('raw')],
      }),
      new PolicyStatement({ sid: 'requestLogCompactionList', actions: ['s3:ListBucket'], resources: [this.dataBucket.bucketArn] }),
      new PolicyStatement({ sid: 'requestLogCompactionBuckets', actions: ['s3:GetBucketLocation'], resources: [this.dataBucket.bucketArn, this.resultsBucket.bucketArn] }),
      new PolicyStatement({ sid: 'requestLogCompactionRawFiles', actions: ['s3:GetObject', 's3:DeleteObject'], resources: raw }),
      new PolicyStatement({
        sid: 'requestLogCompactedFiles',
        actions: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts'],
        resources: [compacted],
      }),
      new PolicyStatement({
        sid: 'requestLogCompactionResults',
        actions: ['s3:PutObject', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts'],
        resources: [this.resultsBucket.arnForObjects('compaction/*')],
      }),
    ];
    for (const statement of statements) role.addToPrincipalPolicy(statement);
  }

  /** Wildcard findings cdk-nag raises on a role given `grantCompact`, with the reason each is as narrow as it can be. */
  acknowledgeCompactWildcards(policy: Construct): void {
    const stack = Stack.of(this);
    const arn = (bucket: Bucket) => `<${stack.getLogicalId(bucket.node.defaultChild as CfnElement)}.Arn>`;
    const reasons: Array<[string, string]> = [
      ...TABLES.map((table): [string, string] => [
        `${arn(this.dataBucket)}/${table}/*`,
        `Firehose writes the raw ${table} files under run-time day prefixes; the compaction reads them (through Athena) and deletes those it replaced.`,
      ]),
      [`${arn(this.dataBucket)}/compacted/*`, 'The compacted files and markers of each day are written under run-time day and bucket prefixes of compacted/ (by UNLOAD and the compaction).'],
      [`${arn(this.resultsBucket)}/compaction/*`, 'Athena writes each UNLOAD\'s manifest under a run-time query id in the compaction workgroup\'s result prefix.'],
    ];
    for (const [resource, reason] of reasons) Validations.of(policy).acknowledge({ id: `AwsSolutions-IAM5[Resource::${resource}]`, reason });
  }

  /** The settings every function reads (shared/settings.ts). */
  environment(): Record<string, string> {
    return {
      GW_LOG_STREAM_REQUESTS: this.streamNames.requests,
      GW_LOG_STREAM_SPANS: this.streamNames.spans,
      GW_ATHENA_WORKGROUP: this.workgroupName,
      GW_ATHENA_COMPACTION_WORKGROUP: this.compactionWorkgroupName,
      GW_ATHENA_DATABASE: this.databaseName,
      GW_ATHENA_TABLE_REQUESTS: this.tableNames.requests,
      GW_ATHENA_TABLE_SPANS: this.tableNames.spans,
      GW_LOG_RESULTS_BUCKET: this.resultsBucket.bucketName,
      GW_LOG_DATA_BUCKET: this.dataBucket.bucketName,
      GW_LOG_FRESHNESS_MS: String(FRESHNESS_MS),
    };
  }

  /** Wildcard findings cdk-nag raises on a role given `grantQuery`, with the reason each is as narrow as it can be. */
  acknowledgeQueryWildcards(policy: Construct): void {
    const stack = Stack.of(this);
    const arn = (bucket: Bucket) => `<${stack.getLogicalId(bucket.node.defaultChild as CfnElement)}.Arn>`;
    const reasons: Array<[string, string]> = [
      [`${arn(this.dataBucket)}/*`, 'Athena reads the Parquet files Firehose writes under run-time day prefixes of the request-log data bucket; read only, that bucket only.'],
      [`${arn(this.resultsBucket)}/results/*`, 'Athena writes each query result under a run-time query id in the workgroup result prefix, and the engine reads it back.'],
      [`${arn(this.resultsBucket)}/exports/*`, 'UNLOAD writes each export under a run-time export id in the exports prefix, downloaded through presigned GETs.'],
    ];
    for (const [resource, reason] of reasons) Validations.of(policy).acknowledge({ id: `AwsSolutions-IAM5[Resource::${resource}]`, reason });
  }

  private workgroupArn(name: string): string {
    return Stack.of(this).formatArn({ service: 'athena', resource: 'workgroup', resourceName: name });
  }

  /**
   * A workgroup whose enforced configuration writes encrypted results under `resultPrefix` of the results bucket
   * and cancels a query past `scanLimitBytes`: callers cannot choose another location, skip encryption or lift the limit.
   */
  private athenaWorkgroup(id: string, name: string, purpose: string, scanLimitBytes: number, resultPrefix: string, production: boolean): CfnWorkGroup {
    return new CfnWorkGroup(this, id, {
      name,
      description: `gw ${Stack.of(this).stackName}: ${purpose}`,
      state: 'ENABLED',
      // A development stack's workgroup goes with the stack even when it holds saved queries.
      recursiveDeleteOption: !production,
      workGroupConfiguration: {
        enforceWorkGroupConfiguration: true,
        publishCloudWatchMetricsEnabled: true,
        bytesScannedCutoffPerQuery: scanLimitBytes,
        engineVersion: { selectedEngineVersion: 'Athena engine version 3' },
        resultConfiguration: {
          outputLocation: this.resultsBucket.s3UrlForObject(resultPrefix),
          encryptionConfiguration: { encryptionOption: 'SSE_S3' },
        },
      },
    });
  }

  private tableArns(kind: 'raw' | 'compacted'): string[] {
    const names = kind === 'raw' ? this.tableNames : this.compactedTableNames;
    return TABLES.map((table) => Stack.of(this).formatArn({ service: 'glue', resource: `table/${this.databaseName}/${names[table]}` }));
  }

  private streamArn(table: EngineTable): string {
    return Stack.of(this).formatArn({ service: 'firehose', resource: 'deliverystream', resourceName: this.streamNames[table] });
  }

  private bucket(id: string, grantAlias: string, removalPolicy: RemovalPolicy, rules: LifecycleRule[]): Bucket {
    const bucket = new Bucket(this, id, {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      versioned: false,
      // Multipart uploads that never finished would otherwise be billed forever.
      lifecycleRules: [...rules, { id: 'abort-incomplete-uploads', enabled: true, abortIncompleteMultipartUploadAfter: Duration.days(1) }],
      removalPolicy,
    });
    // The name the grant check and the recorder use for this bucket (infra/cdk/ops/grant-check.ts).
    (bucket.node.defaultChild as CfnResource).addMetadata('gw:grantAlias', grantAlias);
    Validations.of(bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'Server access logs would add a bucket and a log object per access for objects only Firehose, Athena and gw itself read and write; object-level access is attributable through CloudTrail data events when an operator enables them.',
    });
    return bucket;
  }

  /** `<table>` over Firehose's files, or `<table>_compacted` over the daily compaction's (request-log-tables.ts). */
  private glueTable(table: EngineTable, props: RequestLogsProps, database: CfnDatabase, kind: 'raw' | 'compacted' = 'raw'): CfnTable {
    const capitalised = `${table.charAt(0).toUpperCase()}${table.slice(1)}`;
    return logGlueTable(this, kind === 'raw' ? `${capitalised}Table` : `${capitalised}CompactedTable`, {
      database,
      databaseName: this.databaseName,
      name: kind === 'raw' ? this.tableNames[table] : this.compactedTableNames[table],
      location: this.dataBucket.s3UrlForObject(kind === 'raw' ? `${table}/` : `compacted/${table}/`),
      columns: props.columns[table],
      projectionStartDate: props.projectionStartDate,
      compacted: kind === 'compacted',
    });
  }

  /** Firehose's own role: write the data bucket, read the table schemas for conversion, log delivery errors. */
  private deliveryRole(props: RequestLogsProps): { role: Role; errors: LogGroup } {
    const stack = Stack.of(this);
    const role = new Role(this, 'DeliveryRole', {
      assumedBy: new ServicePrincipal('firehose.amazonaws.com', { conditions: { StringEquals: { 'sts:ExternalId': Aws.ACCOUNT_ID } } }),
      description: `gw ${stack.stackName}: Firehose delivers request logs to S3 as Parquet`,
    });
    const errors = new LogGroup(this, 'DeliveryErrors', { retention: props.logRetention, removalPolicy: props.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY });
    role.addToPrincipalPolicy(
      new PolicyStatement({
        sid: 'deliverToDataBucket',
        actions: ['s3:AbortMultipartUpload', 's3:GetBucketLocation', 's3:GetObject', 's3:ListBucket', 's3:ListBucketMultipartUploads', 's3:PutObject'],
        resources: [this.dataBucket.bucketArn, this.dataBucket.arnForObjects('*')],
      }),
    );
    role.addToPrincipalPolicy(
      new PolicyStatement({
        sid: 'readTableSchemas',
        actions: ['glue:GetTable', 'glue:GetTableVersion', 'glue:GetTableVersions'],
        resources: [
          stack.formatArn({ service: 'glue', resource: 'catalog' }),
          stack.formatArn({ service: 'glue', resource: `database/${this.databaseName}` }),
          ...TABLES.map((table) => stack.formatArn({ service: 'glue', resource: `table/${this.databaseName}/${this.tableNames[table]}` })),
        ],
      }),
    );
    role.addToPrincipalPolicy(new PolicyStatement({ sid: 'logDeliveryErrors', actions: ['logs:PutLogEvents'], resources: [errors.logGroupArn] }));
    const policy = role.node.tryFindChild('DefaultPolicy');
    if (policy) {
      Validations.of(policy).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${stack.getLogicalId(this.dataBucket.node.defaultChild as CfnElement)}.Arn>/*]`,
        reason: 'Firehose writes one object per buffer under run-time day prefixes (and its error prefix) of the request-log data bucket; that bucket only.',
      });
      Validations.of(policy).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${stack.getLogicalId(errors.node.defaultChild as CfnElement)}.Arn>]`,
        reason: "A log group's ARN ends in ':*' (its streams); this is Firehose's own delivery-error log group of this construct, nothing wider.",
      });
    }
    return { role, errors };
  }

  private deliveryStream(table: EngineTable, { role, errors }: { role: Role; errors: LogGroup }, glueTable: CfnTable): CfnDeliveryStream {
    const stack = Stack.of(this);
    const streamName = this.streamNames[table];
    const logStream = new LogStream(this, `${table}DeliveryErrors`, { logGroup: errors, logStreamName: streamName });
    const stream = new CfnDeliveryStream(this, `${table.charAt(0).toUpperCase()}${table.slice(1)}Stream`, {
      deliveryStreamName: streamName,
      deliveryStreamType: 'DirectPut',
      deliveryStreamEncryptionConfigurationInput: { keyType: 'AWS_OWNED_CMK' },
      extendedS3DestinationConfiguration: {
        bucketArn: this.dataBucket.bucketArn,
        roleArn: role.roleArn,
        // The record's own day (issue #41): the UTC day of its `created_at` (spans: `start_time`), the `day` column
        // the reads filter on, so a request that starts at 23:58 and ends after midnight is under the day it is read by.
        prefix: `${table}/${PARTITION_COLUMN}=!{partitionKeyFromQuery:${PARTITION_COLUMN}}/`,
        errorOutputPrefix: `errors/${table}/!{firehose:error-output-type}/${PARTITION_COLUMN}=!{timestamp:yyyy-MM-dd}/`,
        bufferingHints: { intervalInSeconds: BUFFER_INTERVAL_SECONDS, sizeInMBs: BUFFER_SIZE_MB },
        // Dynamic partitioning reads the day out of each row with jq; it can be turned on only when a stream is created.
        dynamicPartitioningConfiguration: { enabled: true, retryOptions: { durationInSeconds: 300 } },
        processingConfiguration: {
          enabled: true,
          processors: [
            // gw packs up to 500 rows (JSON lines) into one record, since each record is billed rounded up to 5 KB
            // (firehose-sink.ts); Firehose splits them again before the day is read out of each row.
            { type: 'RecordDeAggregation', parameters: [{ parameterName: 'SubRecordType', parameterValue: 'JSON' }] },
            {
              type: 'MetadataExtraction',
              parameters: [
                { parameterName: 'MetadataExtractionQuery', parameterValue: `{${PARTITION_COLUMN}: .${DAY_SOURCE[table]}[0:10]}` },
                { parameterName: 'JsonParsingEngine', parameterValue: 'JQ-1.6' },
              ],
            },
          ],
        },
        // Parquet compresses itself (Snappy); conversion requires the delivery's own compression off.
        compressionFormat: 'UNCOMPRESSED',
        cloudWatchLoggingOptions: { enabled: true, logGroupName: errors.logGroupName, logStreamName: logStream.logStreamName },
        dataFormatConversionConfiguration: {
          enabled: true,
          inputFormatConfiguration: { deserializer: { hiveJsonSerDe: {} } },
          outputFormatConfiguration: { serializer: { parquetSerDe: { compression: 'SNAPPY' } } },
          schemaConfiguration: {
            catalogId: stack.account,
            databaseName: this.databaseName,
            tableName: this.tableNames[table],
            region: stack.region,
            roleArn: role.roleArn,
            versionId: 'LATEST',
          },
        },
      },
    });
    // Firehose checks its role and the table when the stream is created.
    stream.node.addDependency(glueTable);
    const policy = role.node.tryFindChild('DefaultPolicy');
    if (policy) stream.node.addDependency(policy);
    return stream;
  }
}
