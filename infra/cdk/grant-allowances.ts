import type { GrantAllowance } from './ops/grant-check.js';

/**
 * What Athena does with the control plane's permissions while one of its queries runs: no SDK call of gw's issues
 * these, so no recorder can see them (infra/cdk/constructs/request-logs.ts, grantQuery). Names are those of the
 * stack cdk.json synthesises (`gw`).
 */
const ATHENA_ON_BEHALF = 'Athena performs this with the caller\'s permissions while a request-log query or UNLOAD runs (Glue catalog reads, S3 reads of the data and writes of results/exports); gw issues no such call itself, so no test can record it.';
const REQUEST_LOG_TABLES = ['catalog', 'database/gw_logs', 'table/gw_logs/requests', 'table/gw_logs/spans'];
const COMPACTED_TABLES = ['table/gw_logs/requests_compacted', 'table/gw_logs/spans_compacted'];
const athenaOnBehalf = (action: string, resources: readonly string[], fn: GrantAllowance['fn'] = 'control-plane'): GrantAllowance[] =>
  resources.map((resource) => ({ fn, action, resource, reason: ATHENA_ON_BEHALF }));
/** The daily compaction's UNLOADs (infra/cdk/constructs/request-logs.ts, grantCompact): Athena reads the raw tables and writes compacted/. */
const COMPACTION_ON_BEHALF = 'Athena performs this with the compaction function\'s permissions while its UNLOAD of a day runs (Glue reads of the raw tables, S3 reads of their files, writes of the compacted files and the manifest); gw issues no such call itself, so no test can record it.';
const compactionOnBehalf = (action: string, resources: readonly string[]): GrantAllowance[] =>
  resources.map((resource) => ({ fn: 'compact-request-logs', action, resource, reason: COMPACTION_ON_BEHALF }));

/**
 * Grants the test suite does not (necessarily) exercise, each kept for a stated reason. scripts/check-grants.ts fails
 * on any other grant no test used, and on an entry here that no longer matches a grant. Resources are written as
 * the check renders them: `table/<id>`, `table/<id>/index/<name>`, `secret/<stackName>/*`, `bucket/blobs/*`.
 */
export const GRANT_ALLOWANCES: readonly GrantAllowance[] = [
  {
    fn: 'compact-request-logs',
    action: 's3:DeleteObject',
    resource: 'bucket/log-data/spans/*',
    reason: 'Raw files of a compacted day are deleted as garbage collection an hour after the day switched to its compacted side (compaction.ts); the tests run that collection over raw request files, and a span file left over is never read twice (the day reads compacted) and expires with the bucket lifecycle.',
  },
  {
    fn: 'gateway',
    action: 's3:GetObject',
    resource: 'bucket/blobs/*',
    reason: 'A stored Responses-API conversation above the inline limit (~300 KB) is read back from the bucket for previous_response_id; tests keep conversations small.',
  },
  {
    fn: 'gateway',
    action: 's3:ListBucket',
    resource: 'bucket/blobs',
    reason: 'Needed with s3:GetObject so a stored conversation that has expired is 404 NoSuchKey, not 403; the gateway reads blobs only for large conversations (see its GetObject allowance).',
  },
  ...(['gateway', 'control-plane'] as const).map((fn) => ({
    fn,
    action: 's3:DeleteObject',
    resource: 'bucket/blobs/*',
    reason: 'Deleting a stored response or an export removes its blob at once; otherwise the bucket lifecycle expires it, so a missed delete costs storage, never data.',
  })),
  ...(['PutItem', 'DeleteItem'] as const).map((verb) => ({
    fn: 'restore-budgets' as const,
    action: `dynamodb:${verb}`,
    resource: 'table/main',
    reason: 'Replaying the DynamoDB charge journal claims a pending charge with a conditional DeleteItem and puts it back when applying fails (shared/gateway/enforcement/charge-journal.ts); the suite replays the local file journal.',
  })),
  ...athenaOnBehalf('glue:GetDatabase', ['catalog', 'database/gw_logs']),
  ...athenaOnBehalf('glue:GetTable', [...REQUEST_LOG_TABLES, ...COMPACTED_TABLES]),
  ...athenaOnBehalf('glue:GetPartitions', [...REQUEST_LOG_TABLES, ...COMPACTED_TABLES]),
  ...athenaOnBehalf('s3:GetObject', ['bucket/log-data/*', 'bucket/log-results/results/*']),
  ...athenaOnBehalf('s3:ListBucket', ['bucket/log-data']),
  ...athenaOnBehalf('s3:GetBucketLocation', ['bucket/log-data', 'bucket/log-results']),
  ...(['s3:PutObject', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts'] as const).flatMap((action) =>
    athenaOnBehalf(action, ['bucket/log-results/results/*', 'bucket/log-results/exports/*']),
  ),
  ...compactionOnBehalf('glue:GetDatabase', ['catalog', 'database/gw_logs']),
  ...compactionOnBehalf('glue:GetTable', REQUEST_LOG_TABLES),
  ...compactionOnBehalf('glue:GetPartitions', REQUEST_LOG_TABLES),
  ...compactionOnBehalf('s3:GetObject', ['bucket/log-data/requests/*', 'bucket/log-data/spans/*']),
  ...compactionOnBehalf('s3:GetBucketLocation', ['bucket/log-data', 'bucket/log-results']),
  ...(['s3:AbortMultipartUpload', 's3:ListMultipartUploadParts'] as const).flatMap((action) => compactionOnBehalf(action, ['bucket/log-data/compacted/*', 'bucket/log-results/compaction/*'])),
  ...compactionOnBehalf('s3:PutObject', ['bucket/log-results/compaction/*']),
  {
    fn: 'compact-request-logs',
    action: 'athena:StopQueryExecution',
    resource: 'workgroup/gw-logs-compaction',
    reason: 'An UNLOAD still running at the function\'s deadline (15 minutes, less a margin) is stopped so it writes nothing more (compaction.ts waitForUnload); a day\'s UNLOAD takes seconds to a minute, so no test waits that long.',
  },
  {
    fn: 'control-plane',
    action: 's3:GetObject',
    resource: 'bucket/log-results/exports/*',
    reason: 'An export file is downloaded through a presigned GET the control plane signs (the signature carries its GetObject permission); the read APIs that sign it are h/logs\'s, issue #32.',
  },
];
