import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { Annotations, CfnOutput, RemovalPolicy, Stack, Tags, Validations, type CfnElement, type StackProps } from 'aws-cdk-lib';
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Key, type IKey } from 'aws-cdk-lib/aws-kms';
import { Tracing } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { parseSettings } from '../../shared/settings.js';
import { secretNamePrefix } from '../../shared/store/secrets/secrets-manager-secret-store.js';
import { LAMBDA_BUNDLE } from './bundle-options.js';
import type { GwConfig } from './config.js';
import { grantFunctionAccess } from './constructs/access-grants.js';
import { BlobBucket } from './constructs/blob-bucket.js';
import { DataTables } from './constructs/data-tables.js';
import { GwFunction } from './constructs/gw-function.js';
import { MANAGED_MIN_MEMORY_MB, ManagedCompute } from './constructs/managed-compute.js';
import { Operations } from './constructs/operations.js';
import { GwRestApi, STREAMING_IDLE_TIMEOUT } from './constructs/rest-api.js';
import { FunctionSchedule } from './constructs/schedule.js';
import { FailedRuns } from './constructs/failed-runs.js';
import { GwWebAcl } from './constructs/web-acl.js';
import { MANAGED_XRAY_SAMPLE_RATE, TraceSampling } from './constructs/trace-sampling.js';
import { RequestLogs } from './constructs/request-logs.js';
import type { EngineColumnsByTable } from '../../shared/observability/engine/aws/table-columns.js';
import { REQUEST_LOG_COLUMNS } from './request-log-columns.js';
import { FUNCTION_TABLE, type FunctionName, type FunctionSpec } from './function-table.js';
import { OUTPUT_KEYS, tableOutputKey } from './outputs.js';

/** The name prefix of the roles the gateway may assume by default (bedrockAssumableRoleArns). */
export const ASSUMABLE_ROLE_PREFIX = 'gw-bedrock-';

export interface GwStackProps extends StackProps {
  config: GwConfig;
  /** Absolute path of the repository: handler entries are relative to it, package-lock.json is in it. */
  projectRoot: string;
  /** The function table; tests point rows at fixture handlers. */
  functions?: readonly FunctionSpec[];
  /** The request-log column list (infra/cdk/request-log-columns.ts by default). */
  requestLogColumns?: EngineColumnsByTable;
}

export class MissingBundleError extends Error {}

/** Functions the API cannot do without; the scheduled ones join when their handler exists. */
const REQUIRED_FUNCTIONS: readonly FunctionName[] = ['gateway', 'control-plane'];

/**
 * gw on AWS: DynamoDB tables, one Lambda per row of the function table (with exactly its grants), the REST API in
 * front of the gateway and control plane, EventBridge schedules for the scheduled functions, alarms and a
 * dashboard.
 */
export class GwStack extends Stack {
  readonly tables: DataTables;
  readonly functions: ReadonlyMap<FunctionName, GwFunction>;
  readonly restApi: GwRestApi;
  readonly operations: Operations;
  readonly secretsKey?: IKey;
  readonly blobs: BlobBucket;
  readonly requestLogs: RequestLogs;
  readonly webAcl?: GwWebAcl;
  /** The gateway's capacity provider and VPC, when `gatewayCompute` is `managed-instances`. */
  readonly managedCompute?: ManagedCompute;
  /** The scheduled functions' failed runs (dead letters), when there is a scheduled function. */
  readonly failedRuns?: FailedRuns;

  constructor(scope: Construct, id: string, props: GwStackProps) {
    super(scope, id, props);
    const { config } = props;
    const production = config.environment === 'production';
    const logRetention = config.logRetentionDays as RetentionDays;
    // Every taggable resource carries the configured tags (cost allocation, ownership), whatever construct made it.
    // A CloudWatch dashboard takes no tags in CloudFormation (CDK's Tags aspect would still set them).
    for (const [key, value] of Object.entries(config.tags)) Tags.of(this).add(key, value, { excludeResourceTypes: ['AWS::CloudWatch::Dashboard'] });

    this.tables = new DataTables(this, 'Tables', { production });
    this.secretsKey = this.secretsKmsKey(config, production);
    // Objects expire with the request logs that point at them (LOG_RETENTION_DISPLAY, days).
    this.blobs = new BlobBucket(this, 'Blobs', { expireAfterDays: parseSettings(config.settings).LOG_RETENTION_DISPLAY, production });
    this.requestLogs = new RequestLogs(this, 'RequestLogs', {
      columns: props.requestLogColumns ?? REQUEST_LOG_COLUMNS,
      retentionDays: parseSettings(config.settings).LOG_RETENTION_DISPLAY,
      scanLimitBytes: config.logQueryScanLimitMb * 1024 * 1024,
      compactionScanLimitBytes: config.compactionScanLimitMb * 1024 * 1024,
      projectionStartDate: config.requestLogsStartDate,
      logRetention,
      production,
    });

    const specs = (props.functions ?? FUNCTION_TABLE).map((spec) => ({ spec, entry: resolveEntry(props.projectRoot, spec.entry) }));
    for (const name of REQUIRED_FUNCTIONS) {
      const row = specs.find(({ spec }) => spec.name === name);
      if (!row || !existsSync(row.entry)) throw new Error(`The ${name} function is required, but its handler ${row?.entry ?? '(no row)'} does not exist`);
    }

    const environment = this.functionEnvironment(config);
    const managed = config.gatewayCompute === 'managed-instances';
    // X-Ray: traces are billed per request recorded, and AWS's default rule keeps 5 % (+1 a second); managed instances,
    // chosen for volume, default to 1 %. The stage decides, and the functions follow its decision; 0 traces nothing.
    const xraySampleRate = config.xraySampleRate ?? (managed ? MANAGED_XRAY_SAMPLE_RATE : undefined);
    if (managed) {
      this.managedCompute = new ManagedCompute(this, 'GatewayCompute', {
        instanceTypes: config.managedInstanceTypes,
        concurrencyPerEnvironment: config.managedConcurrencyPerEnvironment,
        minEnvironments: config.managedMinEnvironments,
        maxEnvironments: config.managedMaxEnvironments,
        maxVCpus: config.managedMaxVCpus,
        natGateways: config.natGateways,
        egress: config.managedEgress,
        natInstanceType: config.natInstanceType,
      });
    }
    const functions = new Map<FunctionName, GwFunction>();
    let failedRuns: FailedRuns | undefined;
    for (const { spec, entry } of specs) {
      // A scheduled function whose handler has not been written yet is left out until it lands.
      if (!existsSync(entry)) continue;
      const onInstances = managed && spec.name === 'gateway';
      const fn = new GwFunction(this, constructId(spec.name), {
        spec,
        entry,
        prebuiltBundleDir: prebuiltBundleDir(props.projectRoot, config.prebuiltBundles, spec.name),
        projectRoot: props.projectRoot,
        // On a capacity provider the gateway serves many invocations at once: its edge then flushes the after-path in
        // the background instead of at the end of each invocation (functions/lib/streaming-handler.ts).
        // Each invocation in flight holds its own connection to its provider: as many per origin as it serves at once.
        environment: onInstances
          ? { ...environment, GW_CONCURRENT_INVOCATIONS: 'ON', GW_UPSTREAM_MAX_SOCKETS_PER_ORIGIN: String(Math.max(256, config.managedConcurrencyPerEnvironment)) }
          : spec.name === 'gateway'
            ? classicGatewayEnvironment(environment)
            : environment,
        // An execution environment on managed instances has at least 2 GiB (one vCPU at 2 GiB per vCPU).
        memoryMb: onInstances ? Math.max(MANAGED_MIN_MEMORY_MB, config.memoryMb[spec.name] ?? 0) : config.memoryMb[spec.name],
        // Reserved concurrency is a classic-Lambda limit; on instances the capacity provider's scaling bounds it.
        reservedConcurrency: onInstances ? undefined : config.reservedConcurrency[spec.name],
        // With tracing off the gateway traces only what a caller's own sampled trace header asks for.
        tracing: spec.name === 'gateway' && xraySampleRate === 0 ? Tracing.PASS_THROUGH : Tracing.ACTIVE,
        logRetention,
        production,
        sourceMaps: config.sourceMaps ?? !production,
        // Lambda's START/END/REPORT lines: kept on classic Lambda (REPORT's duration and memory are what its bill and
        // sizing follow), dropped on instances, where neither is billed per invocation (`lambdaSystemLogLevel`).
        systemLogLevel: spec.name === 'gateway' ? (config.lambdaSystemLogLevel ?? (managed ? 'WARN' : 'INFO')) : undefined,
        logLevel: config.logLevel,
      });
      if (onInstances) this.managedCompute!.attach(fn.function);
      grantFunctionAccess(fn.role, spec, { tables: this.tables, settings: config.settings, secretsKey: this.secretsKey, blobBucket: this.blobs.bucket, requestLogs: this.requestLogs });
      if (spec.name === 'gateway' && environment.GW_BEDROCK_FUNCTION_ROLE !== 'OFF') {
        this.grantBedrock(fn, config.bedrockModelArns);
        this.grantAssumeRole(fn, config.bedrockAssumableRoleArns);
      }
      this.acknowledgeFunctionNagRules(fn, spec);
      if (spec.scheduleMinutes || spec.scheduleDaily) {
        const daily = spec.scheduleDaily;
        failedRuns ??= new FailedRuns(this, 'FailedRuns');
        failedRuns.catchFailuresOf(fn.function);
        new FunctionSchedule(this, `${constructId(spec.name)}Schedule`, {
          fn: fn.function,
          deadLetterQueue: failedRuns.queue,
          everyMinutes: spec.scheduleMinutes,
          daily,
          description: daily
            ? `Runs gw ${spec.name} daily at ${String(daily.hour).padStart(2, '0')}:${String(daily.minute).padStart(2, '0')} UTC`
            : `Runs gw ${spec.name} every ${spec.scheduleMinutes} minutes`,
        });
      }
      functions.set(spec.name, fn);
    }
    this.functions = functions;
    this.failedRuns = failedRuns;
    // On by default in production (unless an ACL of your own is named): a flood from one address is refused before
    // it reaches a function or costs a store write; `waf=false` opts out.
    if (config.waf ?? (production && !config.webAclArn)) this.webAcl = new GwWebAcl(this, 'Firewall', { ratePerFiveMinutes: config.wafRateLimit });

    this.restApi = new GwRestApi(this, 'Api', {
      gateway: this.requireFunction('gateway').function,
      controlPlane: this.requireFunction('control-plane').function,
      stageName: config.apiStageName,
      throttleRateLimit: config.throttleRateLimit,
      throttleBurstLimit: config.throttleBurstLimit,
      executionLogging: config.apiExecutionLogging,
      accessLog: config.apiAccessLog,
      tracing: xraySampleRate !== 0,
      logRetention,
      production,
      domain: config.domainName && config.certificateArn
        ? {
            domainName: config.domainName,
            certificateArn: config.certificateArn,
            hostedZone: config.hostedZoneId && config.hostedZoneName ? { id: config.hostedZoneId, name: config.hostedZoneName } : undefined,
          }
        : undefined,
      webAclArn: this.webAcl?.webAcl.attrArn ?? config.webAclArn,
    });
    if (xraySampleRate !== undefined && xraySampleRate > 0) {
      new TraceSampling(this, 'TraceSampling', { serviceName: `${this.stackName}/${config.apiStageName}`, fixedRate: xraySampleRate });
    }

    this.operations = new Operations(this, 'Operations', {
      api: this.restApi.api,
      functions: [...functions.values()].map((fn) => ({ spec: fn.spec, fn: fn.function })),
      tables: this.tables,
      failedRuns: failedRuns?.queue,
      alarmTopicArn: config.alarmTopicArn,
      alarmEmail: config.alarmEmail,
      production,
    });
    if (!config.alarmEmail && !config.alarmTopicArn) {
      // (productionChecks turns this into a synth error, config.ts.)
      Annotations.of(this.operations).addWarningV2(
        'gw:alarms-notify-no-one',
        `The ${this.operations.alarms.length} alarms notify an SNS topic with no subscriber: set alarmEmail or alarmTopicArn (cdk.json context or -c) so someone hears of them.`,
      );
    }

    this.addOutputs(config);
  }

  /**
   * The gateway's role may invoke the configured Bedrock models (default: every foundation model in the region), for
   * calls that carry no credentials of their own (GW_BEDROCK_FUNCTION_ROLE, shared/gateway/function-role.ts).
   */
  private grantBedrock(fn: GwFunction, modelArns: readonly string[] | undefined): void {
    const resources = modelArns ?? [this.formatArn({ service: 'bedrock', account: '', resource: 'foundation-model', resourceName: '*' })];
    if (resources.length === 0) return;
    fn.role.addToPrincipalPolicy(
      new PolicyStatement({ sid: 'bedrockModels', effect: Effect.ALLOW, actions: ['bedrock:InvokeModel', 'bedrock:InvokeModelWithResponseStream'], resources: [...resources] }),
    );
    if (modelArns === undefined) {
      Validations.of(fn.role.node.tryFindChild('DefaultPolicy')!).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:bedrock:<AWS::Region>::foundation-model/*]',
        reason: 'Which foundation model a request names is the caller\'s choice; the default grants invoking any in the stack\'s region (nothing else). List the allowed models in bedrockModelArns to narrow it.',
      });
    }
  }

  /**
   * The gateway's role may assume the roles virtual keys name for Bedrock (aws.role_arn, shared/gateway/assumed-role.ts):
   * the listed ARNs, by default the account's roles named gw-bedrock-*, so a workspace admin cannot name any role of
   * the account that happens to trust the gateway. Each role must also trust the gateway's role.
   */
  private grantAssumeRole(fn: GwFunction, roleArns: readonly string[] | undefined): void {
    const resources = roleArns ?? [this.formatArn({ service: 'iam', region: '', resource: 'role', resourceName: `${ASSUMABLE_ROLE_PREFIX}*` })];
    if (resources.length === 0) return;
    fn.role.addToPrincipalPolicy(new PolicyStatement({ sid: 'assumeBedrockRoles', effect: Effect.ALLOW, actions: ['sts:AssumeRole'], resources: [...resources] }));
    if (roleArns === undefined) {
      Validations.of(fn.role.node.tryFindChild('DefaultPolicy')!).acknowledge({
        id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:iam::<AWS::AccountId>:role/${ASSUMABLE_ROLE_PREFIX}*]`,
        reason: `Virtual keys name the role to assume; the default allows only the account's roles named ${ASSUMABLE_ROLE_PREFIX}* (each must trust the gateway's role too). List them in bedrockAssumableRoleArns to narrow it.`,
      });
    }
  }

  private requireFunction(name: FunctionName): GwFunction {
    const fn = this.functions.get(name);
    if (!fn) throw new Error(`The ${name} function is missing from the function table`);
    return fn;
  }

  private secretsKmsKey(config: GwConfig, production: boolean): IKey | undefined {
    if (!config.secretsKmsKey) return undefined;
    if (config.secretsKmsKey !== 'create') return Key.fromKeyArn(this, 'SecretsKey', config.secretsKmsKey);
    return new Key(this, 'SecretsKey', {
      description: `gw ${this.stackName}: encrypts credentials in Secrets Manager`,
      enableKeyRotation: true,
      removalPolicy: production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
  }

  /** What every function reads at start (shared/settings.ts), plus Powertools' own variables. */
  private functionEnvironment(config: GwConfig): Record<string, string> {
    const environment: Record<string, string> = {
      // API Gateway cuts a regional stream after 5 minutes of silence; gw's own idle timeout fires first, so the
      // client gets gw's explicit error event instead of a dropped connection.
      GW_STREAM_IDLE_TIMEOUT_MS: String(STREAMING_IDLE_TIMEOUT.toMilliseconds() - 20_000),
      // Bedrock calls without credentials are signed with the gateway's role (granted below, bedrockModelArns).
      GW_BEDROCK_FUNCTION_ROLE: 'ON',
      ...config.settings,
    };
    for (const [, { table, definition }] of this.tables.byId) environment[definition.nameSetting] = table.tableName;
    environment.GW_SECRET_STORE = 'secrets-manager';
    // Secret names start with the stack's name, and each role is granted exactly that prefix (access-grants.ts).
    environment.GW_SECRET_NAME_PREFIX = this.stackName;
    environment.GW_BLOB_BUCKET = this.blobs.bucket.bucketName;
    Object.assign(environment, this.requestLogs.environment());
    // The control-plane bundle carries the console's assets beside its code (nodejs-bundling.ts, scripts/build-console.ts).
    environment.GW_CONSOLE_DIR = '/var/task/console';
    // gpt-tokenizer ships as its own file beside each bundle, loaded on first use (shared/tokenizer.ts).
    environment.GW_TOKENIZER_MODULE = './gpt-tokenizer.mjs';
    if (this.secretsKey) environment.GW_SECRETS_KMS_KEY_ID = this.secretsKey.keyArn;
    environment.POWERTOOLS_LOG_LEVEL = config.logLevel;
    environment.POWERTOOLS_METRICS_NAMESPACE = config.metricsNamespace;
    return environment;
  }

  private acknowledgeFunctionNagRules(fn: GwFunction, spec: FunctionSpec): void {
    const policy = fn.role.node.tryFindChild('DefaultPolicy');
    if (!policy) return;
    Validations.of(policy).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'X-Ray tracing (PutTraceSegments, PutTelemetryRecords) has no resource-level permissions; this is the only statement with Resource *.',
    });
    if (spec.secrets) {
      Validations.of(policy).acknowledge({
        id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:${secretNamePrefix(this.stackName)}*]`,
        reason: `Credentials are created at run time, one secret per virtual key, saved config, MCP server or integration, all under this stack's ${secretNamePrefix(this.stackName)} prefix; the wildcard is that prefix (and the random suffix Secrets Manager appends), nothing wider and nothing of another stack.`,
      });
    }
    if (spec.requestLogs === 'query') this.requestLogs.acknowledgeQueryWildcards(policy);
    if (spec.requestLogs === 'compact') this.requestLogs.acknowledgeCompactWildcards(policy);
    if (spec.blobs) {
      Validations.of(policy).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${this.getLogicalId(this.blobs.bucket.node.defaultChild as CfnElement)}.Arn>/*]`,
        reason: 'Blob keys (log bodies, exports, stored conversations) are created at run time; the grant is object actions (Get/Put/Delete) on this stack\'s own bucket only; the one bucket-level action, ListBucket, is on the bucket ARN (no wildcard) so a missing key is 404, not 403.',
      });
    }
  }

  private addOutputs(config: GwConfig): void {
    new CfnOutput(this, OUTPUT_KEYS.apiUrl, { value: this.restApi.api.url, description: 'The API stage URL' });
    new CfnOutput(this, OUTPUT_KEYS.gatewayBaseUrl, { value: this.restApi.v1Url, description: 'Base URL for OpenAI-compatible clients (…/v1)' });
    new CfnOutput(this, OUTPUT_KEYS.region, { value: this.region, description: 'The stack region' });
    for (const [, { table, definition }] of this.tables.byId) {
      new CfnOutput(this, tableOutputKey(definition), { value: table.tableName, description: `DynamoDB table for ${definition.nameSetting}` });
    }
    new CfnOutput(this, OUTPUT_KEYS.blobBucketName, { value: this.blobs.bucket.bucketName, description: 'S3 bucket for large payloads and exports (GW_BLOB_BUCKET)' });
    new CfnOutput(this, OUTPUT_KEYS.alarmTopicArn, { value: this.operations.alarmTopic.topicArn, description: 'SNS topic every alarm notifies' });
    new CfnOutput(this, OUTPUT_KEYS.dashboardName, { value: this.operations.dashboard.dashboardName, description: 'CloudWatch dashboard' });
    const domain = this.restApi.api.domainName;
    if (domain && config.domainName && !config.hostedZoneId) {
      new CfnOutput(this, OUTPUT_KEYS.customDomainTarget, {
        value: domain.domainNameAliasDomainName,
        description: `Point a CNAME (or alias) for ${config.domainName} at this name`,
      });
    }
  }
}

/** `<prebuiltBundles>/<function>`, which must hold the function's index.mjs. */
function prebuiltBundleDir(projectRoot: string, root: string | undefined, name: FunctionName): string | undefined {
  if (!root) return undefined;
  const dir = resolveEntry(projectRoot, join(root, name));
  if (!existsSync(join(dir, LAMBDA_BUNDLE.outputFile))) {
    throw new MissingBundleError(`prebuiltBundles: ${join(dir, LAMBDA_BUNDLE.outputFile)} does not exist (run \`npm run build\` first)`);
  }
  return dir;
}

function resolveEntry(projectRoot: string, entry: string): string {
  return isAbsolute(entry) ? entry : join(projectRoot, entry);
}

/** `control-plane` → `ControlPlane`. */
function constructId(name: FunctionName): string {
  return name
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

/**
 * A classic Lambda environment is frozen between invocations and may be reclaimed frozen. Its quota leases are
 * recorded on their counters and given back by the next refusal after expiry + grace (docs/architecture.md, "Quota
 * leases"), but until then a frozen environment's shares stay counted (its idle timer does not run), and each
 * invocation's drain would write a report per leased counter; so the classic gateway still admits with one exact
 * write per limit. Managed instances keep running between invocations and lease. An operator's own
 * GW_QUOTA_LEASES setting wins.
 */
function classicGatewayEnvironment(environment: Record<string, string>): Record<string, string> {
  return { GW_QUOTA_LEASES: 'OFF', ...environment };
}
