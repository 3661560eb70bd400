import { storeTlsSettingReaders } from './store-tls-settings.js';
import {
  integer,
  onOff,
  oneOf,
  optionalOneOf,
  optionalOneOfAnyCase,
  optionalInteger,
  optionalText,
  optionalUrl,
  positiveInteger,
  readSettings,
  text,
  type SettingIssue,
  type SettingReader,
  type SettingsOf,
} from './settings-fields.js';

/** Feature flags of the spec are on unless set to `OFF` (any case). */
const onUnlessOff = onOff(true);

/** Switches that are off unless set to `ON`. */
const offUnlessOn = onOff(false);

/** Settings whose values are secrets: an error names them but never shows the value. */
const SECRET_SETTINGS = new Set(['GW_BOOTSTRAP_API_KEY']);

const SETTING_READERS = {
  AWS_REGION: text('us-east-1'),
  GW_DYNAMODB_ENDPOINT: optionalUrl(),
  GW_TABLE_MAIN: text('gw-main', 3),
  GW_TABLE_CACHE: text('gw-cache', 3),
  GW_TABLE_LOGS: text('gw-logs', 3),
  // TLS towards a custom https store endpoint (mutual TLS included): shared/store/store-tls.ts.
  ...storeTlsSettingReaders,

  // Custom-host rules: link-local and metadata addresses are always refused; these open loopback / private ranges.
  GW_ALLOW_LOOPBACK_HOSTS: offUnlessOn,
  GW_ALLOW_PRIVATE_HOSTS: offUnlessOn,
  // Image links gw fetches for providers that take image bytes only (Bedrock): shared/gateway/remote-media.ts.
  // Same address rules as custom hosts. Default size cap: 3.75 MB, Bedrock's own image limit.
  GW_IMAGE_FETCH_MAX_BYTES: positiveInteger(3_750_000),
  GW_IMAGE_FETCH_TIMEOUT_MS: positiveInteger(10_000),
  GW_IMAGE_FETCH_MAX_REDIRECTS: integer(3, { min: 0, max: 10 }),
  GW_IMAGE_FETCH_CONCURRENCY: positiveInteger(4),
  // Bedrock calls that carry no credentials are signed with this process's own AWS credentials (the default chain:
  // on Lambda, the function's role), in its region unless x-gw-aws-region says otherwise. The stack turns it on.
  GW_BEDROCK_FUNCTION_ROLE: offUnlessOn,
  // Another STS endpoint (a VPC endpoint, tests' stand-in) for the roles virtual keys name (aws.role_arn); the
  // regional STS endpoint of AWS_REGION by default.
  GW_STS_ENDPOINT: optionalUrl(),
  // The IBM Cloud IAM token endpoint watsonx.ai API keys are exchanged at (a private endpoint, tests' stand-in);
  // https://iam.cloud.ibm.com/identity/token when unset.
  GW_WATSONX_IAM_URL: optionalUrl(),
  // The address clients reach gw at (e.g. https://gw.example.com behind a proxy or CDN): links gw hands out, such as
  // an export's local download_url, are built from it, never from the request's Host or X-Forwarded-* headers.
  // Unset: the local server's listening address (shared/http/public-base-url.ts).
  GW_PUBLIC_BASE_URL: optionalUrl(),

  // The admin key the local runtime (or `npm run cli -- bootstrap`) makes sure exists; empty means generate one.
  GW_BOOTSTRAP_API_KEY: optionalText(0, {
    test: /^(?:[A-Za-z0-9_.-]{16,256})?$/,
    message: "must be 16-256 characters of letters, digits, '_', '-' or '.' (a key like `gwk_` + 32 random characters)",
  }),
  GW_AUTH_CACHE_TTL_MS: integer(10_000, { min: 0 }),
  // Hot-path caches (keys, policies, configs, virtual keys…) serve an entry up to this long past its TTL while one
  // background refresh runs; past it a request waits for a fresh read. Unset: twice each cache's TTL (docs/architecture.md).
  GW_CACHE_MAX_STALE_MS: optionalInteger({ min: 0, max: 600_000 }),
  // JWT on control-plane routes (`Authorization: Bearer <jwt>`): verified against a JWKS URL or a shared
  // HMAC secret (JWKS wins when both are set); issuer and audience are checked when set.
  GW_JWT_JWKS_URL: optionalUrl(),
  // Its length is checked by shared/auth/jwt.ts, so a bad value is never echoed in a settings error.
  GW_JWT_SECRET: optionalText(0),
  GW_JWT_ISSUER: optionalText(),
  GW_JWT_AUDIENCE: optionalText(),
  // Tolerated clock difference between the token issuer and gw, in seconds.
  GW_JWT_CLOCK_TOLERANCE_S: integer(30, { min: 0, max: 300 }),
  // ON: accept JWTs without an `exp` claim (they never expire). Off by default: such tokens are refused.
  GW_JWT_ALLOW_NO_EXP: offUnlessOn,
  GW_MAX_BODY_BYTES: positiveInteger(10 * 1024 * 1024),
  // Connect + first byte of an upstream call, when the request gives no x-gw-request-timeout.
  GW_DEFAULT_REQUEST_TIMEOUT_MS: positiveInteger(600_000),
  // Longest silence between two chunks of a streamed upstream body.
  GW_STREAM_IDLE_TIMEOUT_MS: positiveInteger(300_000),
  // Ceiling for a whole upstream call, kept under the Lambda timeout (15 min) so gw can still answer.
  GW_UPSTREAM_MAX_DURATION_MS: positiveInteger(870_000),
  // Open connections to one provider origin at once; requests past it wait for a free one. On managed instances the
  // stack raises it to the invocations one environment serves at once, so none of them queues behind the others.
  GW_UPSTREAM_MAX_SOCKETS_PER_ORIGIN: positiveInteger(256),

  // Where credentials live: AWS Secrets Manager (names under <GW_SECRET_NAME_PREFIX>/) or, locally, an
  // AES-256-GCM encrypted file store in GW_LOCAL_SECRET_DIR.
  GW_SECRET_STORE: oneOf(['secrets-manager', 'local-file'], 'secrets-manager'),
  // Every Secrets Manager name gw uses starts with `<prefix>/` (the stack passes its name), so two stacks in one
  // account never share a credential and each role is granted exactly its own prefix.
  GW_SECRET_NAME_PREFIX: text('gw', 0, { test: /^[A-Za-z0-9_+=.@-]+$/, message: 'Invalid string: must match pattern /^[A-Za-z0-9_+=.@-]+$/' }),
  // Another Secrets Manager endpoint (a VPC endpoint, LocalStack); AWS's own by default.
  GW_SECRETS_MANAGER_ENDPOINT: optionalUrl(),
  // A customer-managed KMS key (id or ARN) new virtual-key secrets are encrypted with; aws/secretsmanager when unset.
  GW_SECRETS_KMS_KEY_ID: optionalText(),
  GW_LOCAL_SECRET_DIR: text('.data/secrets'),
  // 32 bytes, base64 or hex. Checked by the local store itself so a bad value is never echoed in an error.
  GW_LOCAL_SECRET_KEY: optionalText(0),
  // How long the gateway keeps a resolved virtual key (credential included) in memory; capped so a rotated or
  // deleted key stops working soon.
  GW_VIRTUAL_KEY_CACHE_TTL_MS: integer(30_000, { min: 0, max: 60_000 }),
  // How long saved configs, guardrails (with a workspace's default guardrails) and deployments are kept, latest
  // versions only (a pinned @version stays 10 min): an update is in force everywhere within this time.
  GW_CONFIG_CACHE_TTL_MS: integer(30_000, { min: 0, max: 300_000 }),
  // Simple-cache entries this process read or wrote are answered from memory for this long (never past the entry's
  // own expiry), so a hot entry costs no store read; 0 turns it off (docs/cache.md, "Hot entries in memory").
  GW_CACHE_MEMORY_TTL_MS: integer(30_000, { min: 0, max: 300_000 }),
  // The bound of that memory (estimated bytes, all workspaces; one workspace gets at most a quarter).
  GW_CACHE_MEMORY_MAX_BYTES: integer(16 * 1024 * 1024, { min: 0, max: 1024 * 1024 * 1024 }),

  // Enforcement (docs/policies-enforcement.md). How long a Lambda keeps a workspace's policies and budget in
  // memory: a policy change is in force everywhere within this time (a refusal is always re-checked first).
  GW_POLICY_CACHE_TTL_MS: integer(5_000, { min: 0, max: 300_000 }),
  // ON: a token policy reserves a request's max_tokens before forwarding (tighter bound, see the docs).
  GW_TOKEN_LIMIT_RESERVATION: offUnlessOn,
  // Quota leases (docs/architecture.md, "Quota leases"): a process admits `requests` limits from a share of the
  // counter it took with one conditional write. OFF: one conditional write per request and limit.
  GW_QUOTA_LEASES: onUnlessOff,
  // How long a lease lives at most (never past its counter's window), and after how long unused it goes back.
  GW_QUOTA_LEASE_TTL_MS: integer(60_000, { min: 100, max: 300_000 }),
  GW_QUOTA_LEASE_IDLE_MS: integer(15_000, { min: 50, max: 300_000 }),
  // Where charges that failed wait for a replay (a file journal); unset on AWS: pending items in the main table.
  GW_CHARGE_JOURNAL_DIR: optionalText(),
  // Local runtime only: how often expired items (the `ttl` attribute) are swept from the embedded store; 0 never.
  GW_LOCAL_TTL_SWEEP_INTERVAL_MS: integer(60_000, { min: 0 }),
  // Local runtime only: request logs older than this many hours are swept (LOG_RETENTION_DISPLAY still caps it).
  GW_LOCAL_LOG_RETENTION_HOURS: positiveInteger(168),
  // Local runtime only: where the embedded store runs: its own child process (default) or inside the gw process.
  // Read before settings are (infra/local/embedded-store.ts); listed here so a bad value is refused the same way.
  GW_LOCAL_STORE: oneOf(['child', 'in-process'], 'child'),
  // Read by Powertools Logger itself; checked here so a typo fails the start instead of logging at the default level.
  POWERTOOLS_LOG_LEVEL: optionalOneOfAnyCase(['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'CRITICAL', 'SILENT']),
  // Local runtime only: on SIGTERM/SIGINT, how long requests in flight may take to finish before they are cut.
  GW_SHUTDOWN_DRAIN_TIMEOUT_MS: integer(30_000, { min: 0 }),
  // Local runtime only: how often the scheduled functions run (EventBridge runs them every 5 minutes); 0 stops them.
  GW_LOCAL_SCHEDULE_INTERVAL_MS: integer(300_000, { min: 0 }),

  // Model pricing and capabilities, read in this order: memory (1 h) → proxy → log store → local files → the
  // data shipped with @pydantic/genai-prices.
  MODEL_CONFIGS_PROXY_FETCH_ENABLED: offUnlessOn,
  MODEL_CONFIGS_PROXY_URL: optionalUrl(),
  MODEL_CONFIGS_PRICING_LOG_STORE_PATH: optionalText(),
  MODEL_CONFIGS_CAPABILITIES_LOG_STORE_PATH: optionalText(),
  MODEL_CONFIGS_PRICING_LOCAL_PATH: optionalText(),
  MODEL_CONFIGS_CAPABILITIES_LOCAL_PATH: optionalText(),

  GW_REQUEST_LOGS: onUnlessOff,
  // The per-request console line: `json` (the logger's JSON, plus CloudWatch EMF metric lines) or `pretty` (one short
  // human line per request, no metric lines). Unset: `json`; `npm start` on a terminal chooses `pretty`. A Lambda
  // always writes JSON, whatever this says (CloudWatch reads it).
  GW_LOG_FORMAT: optionalOneOf(['json', 'pretty']),
  // Where request logs live (docs/observability.md): `duckdb` embedded, or `aws` (Firehose → S3 Parquet → Athena).
  // Unset: `aws` inside a Lambda (AWS_LAMBDA_FUNCTION_NAME set), `duckdb` everywhere else.
  GW_LOG_ENGINE: optionalOneOf(['duckdb', 'aws']),
  // DuckDB's file (the local runtime puts it under its data directory), or `:memory:`.
  GW_LOG_DUCKDB_PATH: text(':memory:'),
  // DuckDB's memory limit: big queries and exports spill to disk past it instead of growing the process.
  GW_LOG_DUCKDB_MEMORY_LIMIT: text('256MB'),
  // The request-log journal (issue #42): records wait there, one line each, until DuckDB has them (unset: beside
  // the DuckDB file, `<file>.journal`). Past GW_LOG_JOURNAL_MAX_BYTES not yet written, new records are dropped and
  // counted; records the journal cannot take (a full disk) wait in memory, up to GW_LOG_MEMORY_BUFFER_RECORDS.
  GW_LOG_JOURNAL_DIR: optionalText(),
  GW_LOG_JOURNAL_MAX_BYTES: positiveInteger(1024 * 1024 * 1024),
  GW_LOG_MEMORY_BUFFER_RECORDS: positiveInteger(20_000),
  // Where DuckDB exports are written (unset: `exports/` of the local blob folder, GW_BLOB_DIR).
  GW_LOG_EXPORT_DIR: optionalText(),
  // Request logs on AWS (issue #32, shared/observability/engine/aws/): the gateway sends rows to one Firehose delivery
  // stream per table, the control plane queries them with Athena. The stack sets every name; the defaults are the
  // names a stack called `gw` creates (infra/cdk/constructs/request-logs.ts).
  GW_LOG_STREAM_REQUESTS: text('gw-requests'),
  GW_LOG_STREAM_SPANS: text('gw-spans'),
  GW_ATHENA_WORKGROUP: text('gw-logs'),
  // The daily compaction's own workgroup (its larger scan limit, its result prefix), apart from the read APIs'.
  GW_ATHENA_COMPACTION_WORKGROUP: text('gw-logs-compaction'),
  GW_ATHENA_DATABASE: text('gw_logs', 1, { test: /^[a-z0-9_]{1,255}$/, message: 'must be lower-case letters, digits and underscores (a Glue database name)' }),
  GW_ATHENA_TABLE_REQUESTS: text('requests', 1, { test: /^[a-z0-9_]{1,255}$/, message: 'must be lower-case letters, digits and underscores (a Glue table name)' }),
  GW_ATHENA_TABLE_SPANS: text('spans', 1, { test: /^[a-z0-9_]{1,255}$/, message: 'must be lower-case letters, digits and underscores (a Glue table name)' }),
  // The bucket of query results (`results/`, written by the workgroup) and exports (`exports/`, written by UNLOAD).
  GW_LOG_RESULTS_BUCKET: optionalText(3),
  // The bucket Firehose delivers to: the daily compaction (functions/compact-request-logs) rewrites its days there.
  GW_LOG_DATA_BUCKET: optionalText(3),
  // A query still running after this long is stopped (StopQueryExecution); under the control plane's 29 s API limit.
  GW_LOG_QUERY_TIMEOUT_MS: integer(25_000, { min: 1_000, max: 600_000 }),
  // How old a row must be to be visible: the delivery streams' buffer interval plus delivery (stack-set).
  GW_LOG_FRESHNESS_MS: integer(60_000, { min: 0 }),
  // Other Firehose / Athena endpoints (VPC endpoints, test servers); AWS's own by default.
  GW_FIREHOSE_ENDPOINT: optionalUrl(),
  GW_ATHENA_ENDPOINT: optionalUrl(),
  // The web console's built assets (npm run build → dist/console; the Lambda bundle ships them under console/).
  GW_CONSOLE_DIR: text('dist/console'),
  // Where gpt-tokenizer is imported from (shared/tokenizer.ts): the package locally, a file beside the Lambda bundle.
  GW_TOKENIZER_MODULE: text('gpt-tokenizer'),
  // Large payloads (log bodies, exports, stored conversations): an S3 bucket of the stack, or locally a folder.
  GW_BLOB_BUCKET: optionalText(3),
  GW_BLOB_DIR: text('.data/blobs'),
  GW_S3_ENDPOINT: optionalUrl(),
  // Request/response bodies larger than this go to the blob store instead of the log item.
  GW_LOG_BODY_INLINE_BYTES: positiveInteger(16 * 1024),
  // Bodies are cut at this size before they are stored at all.
  GW_LOG_BODY_MAX_BYTES: positiveInteger(1024 * 1024),
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl(),
  OTEL_SERVICE_NAME: text('gw'),
  LOG_RETENTION_DISPLAY: positiveInteger(90),
  METRICS_RETENTION_DISPLAY: positiveInteger(365),

  GUARDRAILS_ENABLED: onUnlessOff,
  API_ACCESS_ENABLED: onUnlessOff,
  DATA_EXPORTS_ENABLED: onUnlessOff,
  USAGE_LIMITS_ENABLED: onUnlessOff,
  AUDIT_LOGS_ENABLED: onUnlessOff,
  // Every audit item expires (DynamoDB TTL) this many days after it was written; anonymous authentication
  // failures are counted per source and minute instead of stored one by one (shared/audit/authentication-failures.ts).
  AUDIT_LOG_RETENTION_DAYS: positiveInteger(365),
  SCIM_ENABLED: onUnlessOff,
  POLICY_ENABLED: onUnlessOff,
} satisfies Record<string, SettingReader<unknown>>;

export type Settings = SettingsOf<typeof SETTING_READERS>;

/** Checks across settings, once each one is valid on its own. */
function crossSettingIssues(parsed: Settings): SettingIssue[] {
  const issues: SettingIssue[] = [];
  // A switched-on proxy without an address would silently price nothing from it.
  if (parsed.MODEL_CONFIGS_PROXY_FETCH_ENABLED && !parsed.MODEL_CONFIGS_PROXY_URL) {
    issues.push({ name: 'MODEL_CONFIGS_PROXY_URL', message: 'is required when MODEL_CONFIGS_PROXY_FETCH_ENABLED is ON' });
  }
  // TLS demanded of a plaintext store: refused with the settings, before anything (tables, health, secrets, blobs,
  // the log engine) is reached; shared/store/store-tls.ts checks it again where a store client is built.
  const tlsRequired = parsed.DB_SSL !== undefined && parsed.DB_SSL !== 'DISABLED' && parsed.DB_SSL !== 'PREFERRED';
  if (tlsRequired && parsed.GW_DYNAMODB_ENDPOINT && new URL(parsed.GW_DYNAMODB_ENDPOINT).protocol === 'http:') {
    issues.push({ name: 'DB_SSL', message: `${parsed.DB_SSL} needs an https GW_DYNAMODB_ENDPOINT, and it is http` });
  }
  return issues;
}

export class InvalidSettingsError extends Error {
  constructor(readonly issues: string[]) {
    super(`Invalid gw settings:\n  ${issues.join('\n  ')}`);
    this.name = 'InvalidSettingsError';
  }
}

/** Parses settings from an environment; every invalid variable is named in the error. */
export function parseSettings(env: Record<string, string | undefined>): Settings {
  const read = readSettings(SETTING_READERS, env);
  const issues = read.values ? crossSettingIssues(read.values) : read.issues;
  if (read.values && issues.length === 0) return read.values;
  const shown = (name: string) => (SECRET_SETTINGS.has(name) ? '(value not shown)' : `(got ${JSON.stringify(env[name])})`);
  throw new InvalidSettingsError(issues.map(({ name, message }) => `${name}: ${message} ${shown(name)}`));
}

let cached: Settings | undefined;

/** The process's settings, parsed once on first use. */
export function settings(): Settings {
  cached ??= parseSettings(process.env);
  return cached;
}
