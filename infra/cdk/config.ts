import * as z from 'zod';
import { parseSettings } from '../../shared/settings.js';
import type { FunctionName } from './function-table.js';

/**
 * The stack's configuration, read from CDK context (`cdk.json` defaults, `-c key=value` on the command line) and
 * validated once with zod, so a typo fails `cdk synth` with the key's name instead of deploying something odd.
 * Values given with `-c` arrive as strings: numbers, booleans and JSON objects are parsed from them.
 */

/** Log retention values CloudWatch Logs accepts (days). */
const RETENTION_DAYS = [1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653] as const;

const FUNCTION_NAMES = ['gateway', 'control-plane', 'expire-api-keys', 'restore-budgets', 'compact-request-logs'] as const satisfies readonly FunctionName[];

/**
 * Settings the stack itself decides (table names, secret store, local-only switches): they cannot be set
 * through the `settings` context key.
 */
export const STACK_OWNED_SETTINGS: readonly string[] = [
  'AWS_REGION',
  'GW_TABLE_MAIN',
  'GW_TABLE_CACHE',
  'GW_TABLE_LOGS',
  'GW_DYNAMODB_ENDPOINT',
  'GW_SECRET_STORE',
  'GW_SECRET_NAME_PREFIX',
  'GW_BLOB_BUCKET',
  'GW_BLOB_DIR',
  'GW_S3_ENDPOINT',
  'GW_SECRETS_MANAGER_ENDPOINT',
  'GW_LOCAL_SECRET_DIR',
  'GW_LOCAL_SECRET_KEY',
  'GW_ALLOW_LOOPBACK_HOSTS',
  'GW_LOG_STREAM_REQUESTS',
  'GW_LOG_STREAM_SPANS',
  'GW_ATHENA_WORKGROUP',
  'GW_ATHENA_COMPACTION_WORKGROUP',
  'GW_ATHENA_DATABASE',
  'GW_ATHENA_TABLE_REQUESTS',
  'GW_ATHENA_TABLE_SPANS',
  'GW_LOG_RESULTS_BUCKET',
  'GW_LOG_FRESHNESS_MS',
  'GW_FIREHOSE_ENDPOINT',
  'GW_ATHENA_ENDPOINT',
];

/**
 * Secrets would land in plain text in the template and the functions' configuration: refused as context
 * settings (JWT verification in AWS uses GW_JWT_JWKS_URL).
 */
export const SECRET_SETTINGS: readonly string[] = ['GW_JWT_SECRET'];

const jsonFromString = (value: unknown) => {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
};

const emptyToUndefined = (value: unknown) => (value === '' || value === null ? undefined : value);

const optionalText = z.preprocess(emptyToUndefined, z.string().min(1).optional());
const positiveInt = (fallback: number) => z.preprocess(emptyToUndefined, z.coerce.number().int().positive().default(fallback));
const flag = (fallback: boolean) =>
  z.preprocess((value) => (typeof value === 'string' ? value.trim().toLowerCase() === 'true' : value ?? fallback), z.boolean());

const perFunction = <T extends z.ZodType>(value: T) =>
  z.preprocess(jsonFromString, z.partialRecord(z.enum(FUNCTION_NAMES), value).default({}));

const settingValue = z.union([z.string(), z.number(), z.boolean()]).transform((value) => {
  if (typeof value === 'boolean') return value ? 'ON' : 'OFF';
  return String(value);
});

const arn = (service: string) => z.string().regex(new RegExp(`^arn:aws[a-z-]*:${service}:`), `must be an ${service} ARN`);

const contextSchema = z
  .object({
    stackName: z.preprocess(emptyToUndefined, z.string().regex(/^[A-Za-z][A-Za-z0-9-]{0,127}$/).default('gw')),
    /** `production` keeps data: deletion protection on the main table, tables and logs retained on delete. */
    environment: z.preprocess(emptyToUndefined, z.enum(['production', 'development']).default('production')),
    apiStageName: z.preprocess(emptyToUndefined, z.string().regex(/^[A-Za-z0-9_]+$/).default('prod')),
    throttleRateLimit: positiveInt(100),
    throttleBurstLimit: positiveInt(200),
    apiExecutionLogging: z.preprocess(emptyToUndefined, z.enum(['OFF', 'ERROR', 'INFO']).default('ERROR')),
    domainName: optionalText,
    certificateArn: z.preprocess(emptyToUndefined, arn('acm').optional()),
    hostedZoneId: optionalText,
    hostedZoneName: optionalText,
    webAclArn: z.preprocess(emptyToUndefined, arn('wafv2').optional()),
    /** `create` for a new customer-managed key (rotated yearly), or the ARN of an existing one. */
    secretsKmsKey: z.preprocess(emptyToUndefined, z.union([z.literal('create'), arn('kms')]).optional()),
    alarmTopicArn: z.preprocess(emptyToUndefined, arn('sns').optional()),
    /** Subscribed by e-mail to the alarm topic (the stack's own, or alarmTopicArn). */
    alarmEmail: z.preprocess(emptyToUndefined, z.email().optional()),
    /**
     * Create a WAF web ACL with a rate-based rule per client IP in front of the API. Default (issue #44): on in
     * production unless `webAclArn` names your own ACL, off in development; `-c waf=false` opts out.
     */
    waf: z.preprocess((value) => (typeof value === 'string' ? (value.trim() === '' ? undefined : value.trim().toLowerCase() === 'true') : value ?? undefined), z.boolean().optional()),
    /** The WAF rule's limit: requests per client IP per 5-minute window. */
    wafRateLimit: z.preprocess(emptyToUndefined, z.coerce.number().int().min(10).max(2_000_000_000).default(2000)),
    logRetentionDays: z.preprocess(
      emptyToUndefined,
      z.coerce
        .number()
        .refine((days) => (RETENTION_DAYS as readonly number[]).includes(days), `must be one of ${RETENTION_DAYS.join(', ')}`)
        .default(30),
    ),
    logLevel: z.preprocess(emptyToUndefined, z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR', 'CRITICAL', 'SILENT']).default('INFO')),
    metricsNamespace: z.preprocess(emptyToUndefined, z.string().min(1).max(255).default('gw')),
    reservedConcurrency: perFunction(z.coerce.number().int().min(0)),
    memoryMb: perFunction(z.coerce.number().int().min(128).max(10240)),
    /** gw settings (shared/settings.ts) for every function, e.g. feature flags: `{"GUARDRAILS_ENABLED": "OFF"}`. */
    settings: z.preprocess(jsonFromString, z.record(z.string(), settingValue).default({})),
    /** Deploy the bundles `npm run build` wrote under this directory (e.g. `dist`) instead of bundling again. */
    prebuiltBundles: optionalText,
    /**
     * Athena's per-query scan limit for request-log queries and exports (MB, BytesScannedCutoffPerQuery; Athena's
     * minimum is 10): a query that would read more is cancelled, at $5 per TB a 10 GB query costs 5 cents.
     */
    logQueryScanLimitMb: z.preprocess(emptyToUndefined, z.coerce.number().int().min(10).max(10_000_000).default(10_240)),
    /**
     * The same for the daily compaction's own workgroup (MB): its UNLOAD reads a whole day of a table, so a busy day
     * needs far more than a read query may scan; 1 TiB (at most $5 a run) by default.
     */
    compactionScanLimitMb: z.preprocess(emptyToUndefined, z.coerce.number().int().min(10).max(10_000_000).default(1_048_576)),
    /** First day the request-log tables' `day` partition projection covers (it runs to today). */
    requestLogsStartDate: z.preprocess(emptyToUndefined, z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be YYYY-MM-DD').default('2026-01-01')),
    /** Run cdk-nag's AwsSolutions checks during synth. */
    nag: flag(true),
    /**
     * NODE_OPTIONS=--enable-source-maps on every function: stack traces point into the TypeScript sources, but each
     * cold start reads and parses the bundle's .map files (~25 ms of the gateway's). Default: off in production,
     * on in development. The .map files ship either way (map a production trace offline).
     */
    sourceMaps: z.preprocess((value) => (typeof value === 'string' ? (value.trim() === '' ? undefined : value.trim().toLowerCase() === 'true') : value ?? undefined), z.boolean().optional()),
    /** Tags on every taggable resource of the stack (cost allocation, ownership), e.g. `{"project": "gw", "team": "ml"}`. */
    tags: z.preprocess(jsonFromString, z.record(z.string().regex(/^[\p{L}\p{Z}\p{N}_.:/=+\-@]{1,128}$/u, 'a tag key (1–128 letters, digits, spaces or _.:/=+-@)').refine((key) => !key.toLowerCase().startsWith('aws:'), 'tag keys may not start with aws:'), z.string().max(256)).default({ project: 'gw' })),
    /**
     * Production checks become errors instead of warnings: a stack whose alarms notify no one (neither alarmEmail
     * nor alarmTopicArn) does not synthesise.
     */
    productionChecks: flag(false),
    /**
     * What the gateway function runs on (issue #44): `lambda` (the default) scales to zero and bills each invocation's
     * duration; `managed-instances` puts it on a Lambda capacity provider (EC2 instances Lambda manages, many
     * concurrent invocations per execution environment, billed per instance-hour plus a management fee, no duration
     * charge), in a VPC of the stack's own with NAT egress to the providers. The other functions stay classic.
     * docs/deploy.md ("Choosing the gateway's compute") has the break-even volume.
     */
    gatewayCompute: z.preprocess(emptyToUndefined, z.enum(['lambda', 'managed-instances']).default('lambda')),
    /** managed-instances: the EC2 instance types the capacity provider may launch (arm64), e.g. `["m7g.large"]`; default: Lambda chooses. */
    managedInstanceTypes: z.preprocess(jsonFromString, z.array(z.string().regex(/^[a-z][a-z0-9-]*\.[a-z0-9]+$/, 'an EC2 instance type such as m7g.large')).min(1).optional()),
    /**
     * The stage's access log (CloudWatch Logs are billed per GB ingested, one line per request): `full` (every field,
     * ~0.6 KB), `lean` (request id, time, address, method, path, status, latency, error and WAF codes, ~0.3 KB) or
     * `off` (nothing per request; API Gateway's metrics and the functions' own logs remain).
     */
    apiAccessLog: z.preprocess(emptyToUndefined, z.enum(['full', 'lean', 'off']).default('lean')),
    /**
     * X-Ray's share of requests traced, set on the API stage by a sampling rule of the stack (plus one request a
     * second); 0 turns tracing of the API and the gateway off. Unset: AWS's default rule (1 a second + 5 %) with
     * classic Lambda, 1 % with managed instances.
     */
    xraySampleRate: z.preprocess(emptyToUndefined, z.coerce.number().min(0).max(1).optional()),
    /**
     * managed-instances: concurrent invocations one execution environment takes (PerExecutionEnvironmentMaxConcurrency;
     * AWS accepts 1–1600, Lambda API reference, LambdaManagedInstancesCapacityProviderConfig).
     */
    managedConcurrencyPerEnvironment: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(1600).default(64)),
    /** managed-instances: execution environments kept running at all times (AWS's default is 3, one per Availability Zone). */
    managedMinEnvironments: z.preprocess(emptyToUndefined, z.coerce.number().int().min(0).max(15_000).default(3)),
    /** managed-instances: the most execution environments the gateway may scale to (default: no limit but the vCPU cap). */
    managedMaxEnvironments: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(15_000).optional()),
    /** managed-instances: the capacity provider's vCPU ceiling (12–15000; AWS's default is 400). */
    managedMaxVCpus: z.preprocess(emptyToUndefined, z.coerce.number().int().min(12).max(15_000).optional()),
    /** managed-instances: NAT gateways of the VPC (the instances' way out to the providers); one per AZ for zone-failure tolerance. */
    natGateways: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(3).default(1)),
    /**
     * managed-instances: what the NAT is (natGateways of them). `nat-gateway` (default): AWS's managed NAT gateway,
     * billed per hour and per GB it processes. `nat-instance`: a small EC2 instance of natInstanceType per NAT, billed
     * per hour only (no per-GB processing charge), but yours: no managed failover, its type's bandwidth, patched by
     * replacing it (docs/deploy.md, "Egress").
     */
    managedEgress: z.preprocess(emptyToUndefined, z.enum(['nat-gateway', 'nat-instance']).default('nat-gateway')),
    /** managed-instances with managedEgress=nat-instance: the NAT instance's EC2 type (Graviton t4g.nano by default). */
    natInstanceType: z.preprocess(emptyToUndefined, z.string().regex(/^[a-z][a-z0-9-]*\.[a-z0-9]+$/, 'an EC2 instance type such as t4g.nano').default('t4g.nano')),
    /**
     * The gateway function's system log level: Lambda's own lines. `INFO` (Lambda's default, plain-text format):
     * START, END and REPORT for every invocation, REPORT with the billed duration and memory used. `WARN`: JSON log
     * format and only Lambda's warnings (a failed or timed-out invocation still logs), no line per successful
     * invocation. Unset: `INFO` with classic Lambda, where REPORT's duration and memory are what sizing reads, `WARN`
     * with managed instances, where neither is billed per invocation.
     */
    lambdaSystemLogLevel: z.preprocess(emptyToUndefined, z.enum(['INFO', 'WARN']).optional()),
    /**
     * Bedrock models the gateway's role may invoke (bedrock:InvokeModel, InvokeModelWithResponseStream) when a call
     * carries no credentials of its own (GW_BEDROCK_FUNCTION_ROLE). Default: every foundation model in the stack's
     * region. Add inference-profile ARNs for cross-region profiles; `[]` grants nothing.
     */
    bedrockModelArns: z.preprocess(jsonFromString, z.array(arn('bedrock')).optional()),
    /**
     * Roles the gateway's role may assume (sts:AssumeRole) for virtual keys that name one (aws.role_arn), when
     * GW_BEDROCK_FUNCTION_ROLE is on. Default: roles of the stack's account named gw-bedrock-*. `[]` grants none.
     */
    bedrockAssumableRoleArns: z.preprocess(jsonFromString, z.array(arn('iam')).optional()),
  })
  .superRefine((config, ctx) => {
    if (config.domainName && !config.certificateArn) {
      ctx.addIssue({ code: 'custom', path: ['certificateArn'], message: 'is required when domainName is set (an ACM certificate in the stack region)' });
    }
    if (Boolean(config.hostedZoneId) !== Boolean(config.hostedZoneName)) {
      ctx.addIssue({ code: 'custom', path: ['hostedZoneId'], message: 'hostedZoneId and hostedZoneName go together' });
    }
    if (config.hostedZoneId && !config.domainName) {
      ctx.addIssue({ code: 'custom', path: ['domainName'], message: 'is required when a hosted zone is given' });
    }
    if (config.waf === true && config.webAclArn) {
      ctx.addIssue({ code: 'custom', path: ['waf'], message: 'waf creates a web ACL; it cannot be combined with webAclArn (an existing one)' });
    }
    if (config.productionChecks && !config.alarmEmail && !config.alarmTopicArn) {
      ctx.addIssue({ code: 'custom', path: ['alarmEmail'], message: 'productionChecks requires alarmEmail or alarmTopicArn: without either, the alarms notify a topic no one subscribes to' });
    }
    if (config.managedMaxEnvironments !== undefined && config.managedMaxEnvironments < config.managedMinEnvironments) {
      ctx.addIssue({ code: 'custom', path: ['managedMaxEnvironments'], message: 'must be at least managedMinEnvironments' });
    }
    if (config.throttleBurstLimit < config.throttleRateLimit) {
      ctx.addIssue({ code: 'custom', path: ['throttleBurstLimit'], message: 'must be at least throttleRateLimit' });
    }
  });

export type GwConfig = z.infer<typeof contextSchema>;

export const CONTEXT_KEYS = Object.keys(contextSchema.shape) as ReadonlyArray<keyof GwConfig>;

export class InvalidContextError extends Error {
  constructor(readonly issues: string[]) {
    super(`Invalid gw CDK context:\n  ${issues.join('\n  ')}`);
    this.name = 'InvalidContextError';
  }
}

/** Reads and validates every gw context key through `read` (usually `node.tryGetContext`). */
export function readConfig(read: (key: string) => unknown): GwConfig {
  const raw = Object.fromEntries(CONTEXT_KEYS.map((key) => [key, read(key)]));
  const result = contextSchema.safeParse(raw);
  if (!result.success) {
    throw new InvalidContextError(result.error.issues.map((issue) => `${issue.path.join('.') || '(context)'}: ${issue.message}`));
  }
  assertSettings(result.data.settings);
  return result.data;
}

/**
 * The `settings` context key goes through the same zod schema the functions parse their environment with, so an
 * unknown name or a bad value fails the synth rather than the first request. A name is known when the schema
 * keeps it (zod drops keys it does not declare).
 */
function assertSettings(values: Record<string, string>): void {
  const issues: string[] = [];
  for (const [name, value] of Object.entries(values)) {
    if (STACK_OWNED_SETTINGS.includes(name)) {
      issues.push(`settings.${name}: is set by the stack and cannot be overridden`);
      continue;
    }
    if (SECRET_SETTINGS.includes(name)) {
      issues.push(`settings.${name}: is a secret and would be stored in plain text in the template; use GW_JWT_JWKS_URL`);
      continue;
    }
    try {
      if (!(name in parseSettings({ [name]: value }))) issues.push(`settings.${name}: not a gw setting (see shared/settings.ts)`);
    } catch (error) {
      issues.push(`settings.${(error as Error).message.replace(/^Invalid gw settings:\s*/, '')}`);
    }
  }
  if (issues.length) throw new InvalidContextError(issues);
}
