import type { GrantAllowance } from './ops/grant-check.js';

/**
 * Grants the test suite does not (necessarily) exercise, each kept for a stated reason. scripts/check-grants.ts fails
 * on any other grant no test used, and on an entry here that no longer matches a grant. Resources are written as
 * the check renders them: `table/<id>`, `table/<id>/index/<name>`, `secret/<stackName>/*`, `bucket/blobs/*`.
 */
export const GRANT_ALLOWANCES: readonly GrantAllowance[] = [
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
  {
    fn: 'gateway',
    action: 'dynamodb:DeleteItem',
    resource: 'table/cache',
    reason: 'A semantic-cache vector whose response entry is gone is dropped from its slots (shared/gateway/cache/vector-index/dynamo-vector-index.ts, evict); entries and vectors expire together, so the gateway tests never reach it (test/integration/cache/vector-index.test.ts calls it directly).',
  },
  ...(['PutItem', 'DeleteItem'] as const).map((verb) => ({
    fn: 'restore-budgets' as const,
    action: `dynamodb:${verb}`,
    resource: 'table/main',
    reason: 'Replaying the DynamoDB charge journal claims a pending charge with a conditional DeleteItem and puts it back when applying fails (shared/gateway/enforcement/charge-journal.ts); the suite replays the local file journal.',
  })),
];
