import type { TableDefinition } from '../../shared/store/table-definitions.js';
/**
 * The Lambda functions of gw, in one table: what each runs, how big and how long, how it is invoked and
 * exactly which table, secret and blob actions it may perform. The stack builds functions, API routes, schedules,
 * grants and alarms from these rows and nothing else.
 */
export type FunctionName = 'gateway' | 'control-plane' | 'expire-api-keys' | 'restore-budgets' | 'compact-request-logs';

export type TableId = TableDefinition['id'];

/** The DynamoDB actions gw's code uses. No Scan, no transactions (the local store has none). */
export type DynamoAction = 'GetItem' | 'BatchGetItem' | 'Query' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'BatchWriteItem';

export interface TableGrant {
  table: TableId;
  /** Actions on the table itself (its items and, for Query, its base key). */
  actions: readonly DynamoAction[];
  /** Global secondary indexes the function queries, by name; each becomes its own index ARN. */
  queryIndexes?: readonly string[];
  /** Granted only when one of these gw settings is set for the deployment (context key `settings`). */
  whenSettings?: readonly string[];
}

/**
 * `read`: GetSecretValue. `manage`: also CreateSecret, PutSecretValue and DeleteSecret (SecretsManagerSecretStore
 * issues nothing else). Both are limited to names under `<stackName>/` (GW_SECRET_NAME_PREFIX).
 */
export type SecretAccess = 'read' | 'manage';

/**
 * Objects in the stack's blob bucket (GW_BLOB_BUCKET): `read-write` gets, puts and deletes them; `read-delete` gets and
 * deletes (the control plane: it reads log bodies back and removes what it deletes, but writes none since exports
 * are the log engine's files). Either may list the bucket itself (see BLOB_BUCKET_ACTIONS).
 */
export type BlobAccess = 'read-write' | 'read-delete';

/**
 * Request logs on the analytical engine (infra/cdk/constructs/request-logs.ts): `write` sends rows to the Firehose
 * delivery streams (PutRecordBatch), `query` runs Athena queries and exports over them, `compact` rewrites finished
 * days into the compacted tables (an UNLOAD per day) and deletes the raw files it replaced.
 */
export type RequestLogAccess = 'write' | 'query' | 'compact';

export interface FunctionSpec {
  name: FunctionName;
  /** Handler file, relative to the project root; a row whose file does not exist yet is left out of the stack. */
  entry: string;
  description: string;
  memoryMb: number;
  timeoutSeconds: number;
  /** How API Gateway invokes it: response streaming (gateway routes) or buffered (control-plane routes). */
  api?: 'streaming' | 'buffered';
  /** EventBridge schedule, every N minutes. */
  scheduleMinutes?: number;
  /** EventBridge schedule, once a day at this UTC time (instead of every N minutes). */
  scheduleDaily?: { hour: number; minute: number };
  tables: readonly TableGrant[];
  secrets?: SecretAccess;
  blobs?: BlobAccess;
  requestLogs?: RequestLogAccess;
  /** p99 Duration above this alarms. */
  p99DurationAlarmMs: number;
  /** Errors alarm: the error rate (% of invocations) for API functions, the error count for scheduled ones. */
  errorAlarmThreshold: number;
}

/*
 * The grants below are what the code issues, as recorded by the tests (shared/store/recording/, checked by
 * scripts/check-grants.ts after `vitest run`): a grant the tests never use must be listed with its reason in
 * infra/cdk/grant-allowances.ts, and an operation without a grant fails the check naming the row to change.
 */
export const FUNCTION_TABLE: readonly FunctionSpec[] = [
  {
    name: 'gateway',
    entry: 'functions/gateway/handler.ts',
    description: 'gw gateway: OpenAI-compatible inference routes, streamed through API Gateway',
    // CPU scales with memory (1 vCPU at 1,769 MB). The gateway is billed mostly while it waits for the model, so
    // duration × memory is the cost: measured (bench/memory-choice.ts, docs/deploy.md "Sizing"), 512 MB halves the
    // cost of 1,024 MB for ~9 ms more gw time per request (p50), where 256 MB halves it again but triples the p99
    // and the cold start.
    memoryMb: 512,
    // A stream may last as long as API Gateway lets it (15 min); gw's own upstream ceiling
    // (GW_UPSTREAM_MAX_DURATION_MS, 870 s) ends it first so the client gets an explicit error event.
    timeoutSeconds: 900,
    api: 'streaming',
    tables: [
      // Keys, configs, policies, virtual-key metadata; counters and reservations are UpdateItem ADD; pending charges
      // and stored Responses-API conversations are Put/Delete, the latter also in batches
      // (shared/dialects/responses/response-repository.ts); the indexes find a workspace's entities.
      // No index: every gateway read is by key or by partition.
      { table: 'main', actions: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'] },
      // Exact entries by key (cache-store.ts); semantic candidates: one BatchGetItem of LSH bucket items, whose
      // slot attributes are set and removed by UpdateItem (shared/gateway/cache/vector-index/dynamo-vector-index.ts).
      { table: 'cache', actions: ['GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem'] },
      // Model prices and capabilities kept in the logs table ("log store" source of shared/observability/pricing).
      { table: 'logs', actions: ['GetItem'], whenSettings: ['MODEL_CONFIGS_PRICING_LOG_STORE_PATH', 'MODEL_CONFIGS_CAPABILITIES_LOG_STORE_PATH'] },
    ],
    // Reads virtual-key, saved-config, deployment, MCP-server and integration credentials. It never writes one:
    // saved configs still in plaintext are used as they are until the control plane migrates them.
    secrets: 'read',
    // Large request/response bodies of log records and stored conversations.
    blobs: 'read-write',
    // One record per request and per span to Firehose after the response has ended (shared/observability/engine/aws/).
    requestLogs: 'write',
    // Approaching the 900 s timeout: streams are about to be cut.
    p99DurationAlarmMs: 840_000,
    errorAlarmThreshold: 5,
  },
  {
    name: 'control-plane',
    entry: 'functions/control-plane/handler.ts',
    description: 'gw control plane: admin API (workspaces, keys, configs, prompts, policies, logs)',
    memoryMb: 512,
    // API Gateway's buffered integration gives up at 29 s; a little more lets the function finish cleanly.
    timeoutSeconds: 30,
    api: 'buffered',
    tables: [
      // Users are read in batches (user-repository.ts), prompt versions removed in batches (prompt-repository.ts);
      // gsi1 lists a workspace's entities (gsi2 is the scheduled functions' queues).
      { table: 'main', actions: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'], queryIndexes: ['gsi1'] },
      // Export jobs (export-repository.ts): listed by a Query of the workspace's entries and a BatchGetItem of their
      // records. Request logs, traces and analytics are the log engine's (issue #32).
      { table: 'logs', actions: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem'] },
    ],
    secrets: 'manage',
    // The log bodies the read APIs return (exports are the log engine's files, issue #32).
    blobs: 'read-delete',
    // Logs, traces, analytics and exports are Athena queries (UNLOAD for exports) over the Glue tables.
    requestLogs: 'query',
    p99DurationAlarmMs: 5_000,
    errorAlarmThreshold: 5,
  },
  {
    name: 'expire-api-keys',
    entry: 'functions/expire-api-keys/handler.ts',
    description: 'gw: marks API keys past their expiry as expired (gsi2 queue) and audits it',
    memoryMb: 256,
    // Well under the 5-minute period, so two runs rarely overlap (and the work is idempotent when they do).
    timeoutSeconds: 120,
    scheduleMinutes: 5,
    tables: [{ table: 'main', actions: ['UpdateItem', 'PutItem'], queryIndexes: ['gsi2'] }],
    p99DurationAlarmMs: 96_000,
    errorAlarmThreshold: 1,
  },
  {
    name: 'restore-budgets',
    entry: 'functions/restore-budgets/handler.ts',
    description: 'gw: resets periodic budgets and usage limits that are due (gsi2 queue)',
    memoryMb: 256,
    timeoutSeconds: 120,
    scheduleMinutes: 5,
    // The reset and exhausted queues are gsi2 partitions; a budget is re-read before its queue marker is cleared.
    // It also replays the charge journal (shared/gateway/enforcement/charge-journal.ts): pending charges and expired
    // reservations are gsi2 partitions, claimed with a conditional DeleteItem, applied as counter UpdateItems, and
    // put back when applying fails. A budget's usage lives on its counter items (gate and shards,
    // budget-counter-repository.ts), read in one BatchGetItem.
    tables: [{ table: 'main', actions: ['GetItem', 'BatchGetItem', 'UpdateItem', 'DeleteItem', 'PutItem'], queryIndexes: ['gsi2'] }],
    p99DurationAlarmMs: 96_000,
    errorAlarmThreshold: 1,
  },
  {
    name: 'compact-request-logs',
    entry: 'functions/compact-request-logs/handler.ts',
    description: 'gw: rewrites each finished day of request logs into the compacted tables (Athena UNLOAD) and deletes its raw files',
    // It waits on Athena (one UNLOAD per day and table, ~10-60 s at 1M requests a day) and deletes ~2,000 objects.
    memoryMb: 256,
    // The most a Lambda may run: a backlog of days is compacted oldest first, and what is left waits for the next day.
    timeoutSeconds: 900,
    // 00:30 UTC: the day before has ended, and Firehose has written its last buffer (compaction.ts SETTLE_MS).
    scheduleDaily: { hour: 0, minute: 30 },
    // One run at a time is the compaction's own lock (an S3 object written only if absent), not reserved concurrency:
    // any reservation fails the deployment on a new account (concurrency quota 10, "Sizing" in docs/deploy.md).
    tables: [],
    requestLogs: 'compact',
    p99DurationAlarmMs: 600_000,
    errorAlarmThreshold: 1,
  },
];

/**
 * The table grants that apply to a deployment: conditional rows whose settings are unset are dropped, and rows for
 * the same table are merged, so each table gets one statement for its items and one for its indexes.
 */
export function effectiveTableGrants(spec: FunctionSpec, settings: Readonly<Record<string, string>>): TableGrant[] {
  const merged = new Map<TableId, { actions: Set<DynamoAction>; indexes: Set<string> }>();
  for (const grant of spec.tables) {
    if (grant.whenSettings && !grant.whenSettings.some((name) => settings[name])) continue;
    const entry = merged.get(grant.table) ?? { actions: new Set<DynamoAction>(), indexes: new Set<string>() };
    for (const action of grant.actions) entry.actions.add(action);
    for (const index of grant.queryIndexes ?? []) entry.indexes.add(index);
    merged.set(grant.table, entry);
  }
  return [...merged.entries()].map(([table, { actions, indexes }]) => ({ table, actions: [...actions], queryIndexes: [...indexes] }));
}
