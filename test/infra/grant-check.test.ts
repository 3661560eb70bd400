import { beforeAll, describe, expect, it } from 'vitest';
import { GRANT_ALLOWANCES } from '../../infra/cdk/grant-allowances.js';
import { checkGrants, grantPairs, type RecordedOperationLine, type TemplateJson } from '../../infra/cdk/ops/grant-check.js';
import { synthGwStack, tableWithScheduledFixtures } from './support/synth.js';

/**
 * The grant check of scripts/check-grants.ts, on the stack `cdk synth` builds, with recordings written by hand:
 * the real recordings come from the whole suite and are checked after it (npm test).
 */
let template: TemplateJson;
beforeAll(() => {
  template = synthGwStack({ functions: tableWithScheduledFixtures() }).template.toJSON() as TemplateJson;
});

const op = (fn: string | undefined, service: string, action: string, resource: string): RecordedOperationLine => ({ fn, service, action, resource });

/** One recorded use of every grant of every function: what a complete run would show. */
function everyGrantUsed(): RecordedOperationLine[] {
  return [...grantPairs(template).entries()].flatMap(([fn, pairs]) =>
    pairs.map((pair) => {
      const [service, action] = pair.action.split(':');
      return op(fn, service, action, pair.resource.replace(/\*$/, 'some/key'));
    }),
  );
}

describe('the grant check', () => {
  it('renders grants in the recordings\' terms: tables and indexes by id, secrets by name, the blob bucket', () => {
    expect(grantPairs(template).get('control-plane')).toEqual(expect.arrayContaining([{ action: 'dynamodb:Query', resource: 'table/main/index/gsi1' }]));
    const gateway = grantPairs(template).get('gateway') ?? [];
    expect(gateway).toEqual(
      expect.arrayContaining([
        { action: 'dynamodb:BatchWriteItem', resource: 'table/main' },
        { action: 'dynamodb:Query', resource: 'table/main' },
        { action: 'secretsmanager:GetSecretValue', resource: 'secret/gw/*' },
        { action: 's3:PutObject', resource: 'bucket/blobs/*' },
      ]),
    );
    expect(gateway.some((pair) => pair.action.startsWith('xray:') || pair.action.startsWith('logs:'))).toBe(false);
  });

  it('passes when every operation is granted and every grant used', () => {
    const result = checkGrants(template, everyGrantUsed(), [], { checkUnused: true });
    expect(result).toEqual({ missing: [], unused: [], staleAllowances: [], unattributed: 0 });
  });

  it('names the missing grant and the row to change when a function issues an operation its role does not allow', () => {
    const recorded = [
      op('gateway', 'dynamodb', 'BatchWriteItem', 'table/main'),
      op('expire-api-keys', 'dynamodb', 'DeleteItem', 'table/main'),
      op('restore-budgets', 'dynamodb', 'Query', 'table/main/index/gsi1'),
      op('expire-api-keys', 'secretsmanager', 'GetSecretValue', 'secret/gw/virtual-keys/ws_1/vk_1'),
      op('gateway', 'secretsmanager', 'GetSecretValue', 'secret/gw-staging/virtual-keys/ws_1/vk_1'),
    ];
    const { missing } = checkGrants(template, recorded, [], { checkUnused: false });
    expect(missing).toEqual([
      "'expire-api-keys' issues dynamodb:DeleteItem on table/main, which its role does not allow: add 'DeleteItem' to the actions of the main row of 'expire-api-keys' in infra/cdk/function-table.ts",
      "'expire-api-keys' issues secretsmanager:GetSecretValue on secret/gw/virtual-keys/ws_1/vk_1, which its role does not allow: give 'expire-api-keys' secrets: 'manage' (or add GetSecretValue to SECRET_ACTIONS in infra/cdk/constructs/access-grants.ts)",
      // Another stack's secret is out of reach, whatever the action.
      "'gateway' issues secretsmanager:GetSecretValue on secret/gw-staging/virtual-keys/ws_1/vk_1, which its role does not allow: give 'gateway' secrets: 'manage' (or add GetSecretValue to SECRET_ACTIONS in infra/cdk/constructs/access-grants.ts)",
      "'restore-budgets' issues dynamodb:Query on table/main/index/gsi1, which its role does not allow: add 'gsi1' to queryIndexes of the main row of 'restore-budgets' in infra/cdk/function-table.ts",
    ]);
  });

  it('lists a grant no test used, unless an allowance gives the reason, and reports an allowance that matches nothing', () => {
    const withoutBatchWrite = everyGrantUsed().filter((line) => !(line.fn === 'gateway' && line.action === 'BatchWriteItem' && line.resource === 'table/main'));
    const unused = checkGrants(template, withoutBatchWrite, [], { checkUnused: true }).unused;
    expect(unused).toEqual([
      "'gateway' is granted dynamodb:BatchWriteItem on table/main, but no test issued it: remove it from infra/cdk/function-table.ts, or list it with a reason in infra/cdk/grant-allowances.ts",
    ]);
    const allowed = checkGrants(template, withoutBatchWrite, [{ fn: 'gateway', action: 'dynamodb:BatchWriteItem', resource: 'table/main', reason: 'a reason' }], { checkUnused: true });
    expect(allowed.unused).toEqual([]);
    const stale = checkGrants(template, everyGrantUsed(), [{ fn: 'gateway', action: 'dynamodb:Scan', resource: 'table/main', reason: 'gone' }], { checkUnused: true });
    expect(stale.staleAllowances).toEqual(["the allowance for 'gateway' dynamodb:Scan on table/main matches no grant: remove it from infra/cdk/grant-allowances.ts"]);
  });

  it('checks request-log calls too: streams, workgroup, catalog and buckets in the recorder\'s terms, the others\' calls refused', () => {
    const recorded = [
      op('gateway', 'firehose', 'PutRecordBatch', 'deliverystream/gw-requests'),
      op('gateway', 'firehose', 'PutRecordBatch', 'deliverystream/gw-spans'),
      op('control-plane', 'athena', 'StartQueryExecution', 'workgroup/gw-logs'),
      op('control-plane', 's3', 'ListBucket', 'bucket/log-results'),
      op('control-plane', 's3', 'GetObject', 'bucket/log-results/exports/exp_1/part-0.parquet'),
      op('control-plane', 'glue', 'GetTable', 'table/gw_logs/requests'),
      // Refused: the control plane never writes rows, the gateway never queries, nobody writes the data bucket or another stack's stream.
      op('control-plane', 'firehose', 'PutRecordBatch', 'deliverystream/gw-requests'),
      op('gateway', 'athena', 'StartQueryExecution', 'workgroup/gw-logs'),
      op('control-plane', 's3', 'PutObject', 'bucket/log-data/requests/day=2026-11-27/x.parquet'),
      op('gateway', 'firehose', 'PutRecordBatch', 'deliverystream/gw-staging-requests'),
    ];
    // The hint names the grant that is missing (wrong-grant hints: a write miss is 'write', a query miss 'query').
    const hint = (fn: string, level: string) => `give '${fn}' requestLogs: '${level}' in infra/cdk/function-table.ts (or grant it in infra/cdk/constructs/request-logs.ts)`;
    expect(checkGrants(template, recorded, [], { checkUnused: false }).missing).toEqual([
      `'control-plane' issues firehose:PutRecordBatch on deliverystream/gw-requests, which its role does not allow: ${hint('control-plane', 'write')}`,
      `'control-plane' issues s3:PutObject on bucket/log-data/requests/day=2026-11-27/x.parquet, which its role does not allow: ${hint('control-plane', 'compact')}`,
      `'gateway' issues athena:StartQueryExecution on workgroup/gw-logs, which its role does not allow: ${hint('gateway', 'query')}`,
      `'gateway' issues firehose:PutRecordBatch on deliverystream/gw-staging-requests, which its role does not allow: ${hint('gateway', 'write')}`,
    ]);
    // An action no level grants is named as such, not as a level to give.
    const describe = checkGrants(template, [op('gateway', 'firehose', 'DescribeDeliveryStream', 'deliverystream/gw-requests')], [], { checkUnused: false }).missing;
    expect(describe).toEqual([
      "'gateway' issues firehose:DescribeDeliveryStream on deliverystream/gw-requests, which its role does not allow: no requestLogs level grants firehose:DescribeDeliveryStream: add it to the grant that needs it in infra/cdk/constructs/request-logs.ts (grantWrite, grantQuery or grantCompact), or stop issuing it",
    ]);
  });

  it('does not judge unused grants after a partial run, and does not check operations outside any function', () => {
    const result = checkGrants(template, [op(undefined, 'dynamodb', 'Scan', 'table/main')], [], { checkUnused: false });
    expect(result).toEqual({ missing: [], unused: [], staleAllowances: [], unattributed: 1 });
  });

  it('has only allowances that match a grant of the stack, each with a reason', () => {
    const { staleAllowances } = checkGrants(template, [], GRANT_ALLOWANCES, { checkUnused: true });
    expect(staleAllowances).toEqual([]);
    for (const allowance of GRANT_ALLOWANCES) expect(allowance.reason.length, `${allowance.fn} ${allowance.action}`).toBeGreaterThan(40);
  });
});
