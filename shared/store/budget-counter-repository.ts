import { BatchGetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { subtractUsd, sumUsd } from '../observability/pricing/usd.js';
import { settings } from '../settings.js';
import { isConditionalCheckFailure } from './conditional-writes.js';
import { dynamoDocumentClient } from './dynamo-client.js';
import { readLeaseRecords, reclaimLeaseRecord, recordLease, refusedItem, UpdateParts, writeLeaseRecord, type LeasedItem, type LeaseOp, type LeaseRecord, type LeaseTake, type Taken } from './lease-records.js';
import { MAIN_TABLE, tableName } from './table-definitions.js';

/**
 * How many charge shards a workspace budget has. Fixed in code, not a setting: a reader must know every shard a
 * writer may have used, and a changed count would hide the shards past it. Each shard is its own partition key,
 * so a workspace's charges spread over 8 partitions (DynamoDB's ~1,000 writes/s is per partition key).
 */
export const BUDGET_COUNTER_SHARDS = 8;

/**
 * A workspace budget's usage in one period, as its counter items hold it. `gate` is the one item a reservation
 * writes to, conditionally; `shards` is the sum of the charge shards, written without condition. `total` is what
 * the workspace has used (plus reservations in flight).
 */
export interface BudgetCounters {
  gate: number;
  shards: number;
}

const SORT_KEY = 'COUNTER';

/**
 * The period a budget counter belongs to: the time of the budget's last reset, or `start` before any. A reset
 * (workspace-budget-repository.ts `applyReset`) writes a new last-reset time, so the next period's counters start
 * from zero without a write to the old ones.
 */
export function budgetEpoch(lastResetAt: string | null | undefined): string {
  return lastResetAt ?? 'start';
}

function gateKey(workspaceId: string, epoch: string): { pk: string; sk: string } {
  return { pk: `BUDGETCTR#${workspaceId}#${epoch}#gate`, sk: SORT_KEY };
}

function shardKey(workspaceId: string, epoch: string, shard: number): { pk: string; sk: string } {
  return { pk: `BUDGETCTR#${workspaceId}#${epoch}#${shard}`, sk: SORT_KEY };
}

/**
 * A workspace budget's usage, off the workspace item: the workspace item carries gsi1 (and gsi2) keys, so every
 * write to it was two billed writes, and one item takes ~1,000 writes/s. These counter items carry no index keys.
 *
 * Exactness: reservations (admission) go to the gate item with one conditional `ADD`, admitted while
 * `gate < limit - settled` where `settled` is the legacy usage attribute plus the shards' sum as last read.
 * Shards only ever receive amounts a reservation over-estimated (negative: settlement gives back what the
 * request did not use) while the budget has a limit, and positive amounts go to the gate; so between two reads the
 * shards' sum can only fall, the `settled` a process holds is never below the real one, and the gate condition
 * never admits a request while the real usage is at the limit. A refusal is re-checked after a fresh read.
 * Budgets without a limit check nothing, and all their charges go to a random shard.
 */
export class BudgetCounterRepository {
  private readonly client = dynamoDocumentClient();
  private readonly table = tableName(settings(), MAIN_TABLE);

  /** The gate and the shards' sum of one period (one consistent BatchGetItem). */
  async read(workspaceId: string, epoch: string): Promise<BudgetCounters> {
    let keys: Array<Record<string, unknown>> = [gateKey(workspaceId, epoch), ...Array.from({ length: BUDGET_COUNTER_SHARDS }, (_, shard) => shardKey(workspaceId, epoch, shard))];
    const gate: number[] = [];
    const shards: number[] = [];
    const gatePk = gateKey(workspaceId, epoch).pk;
    while (keys.length > 0) {
      const result = await this.client.send(new BatchGetCommand({ RequestItems: { [this.table]: { Keys: keys, ConsistentRead: true } } }));
      for (const item of result.Responses?.[this.table] ?? []) {
        const usage = Number(item.usage ?? 0);
        (item.pk === gatePk ? gate : shards).push(usage);
      }
      // BatchGetItem may leave keys unprocessed under load: they are asked for again.
      keys = (result.UnprocessedKeys?.[this.table]?.Keys as Array<Record<string, unknown>> | undefined) ?? [];
    }
    // USD amounts are decimals: summed in whole units, so $0.1 + $0.2 reads as $0.3 as one stored item would.
    return { gate: sumUsd(gate), shards: sumUsd(shards) };
  }

  /**
   * Adds `amount` to the gate only while the gate is below `headroom` (the limit less the settled usage): the
   * reservation of one request. With `fits`, only while the whole amount fits (`gate + amount <= headroom`): a
   * lease (enforcement/amount-leases.ts), which must never take the gate past the limit, recorded on the gate in
   * the same write (`lease`, lease-records.ts). Refused: with the gate item when the store returned it.
   */
  async reserve(workspaceId: string, epoch: string, amount: number, headroom: number, fits = false, lease?: LeaseTake): Promise<Taken> {
    const bound = fits ? subtractUsd(headroom, amount) : headroom;
    if (fits ? bound < 0 : bound <= 0) return { admitted: false, hopeless: true };
    const parts = new UpdateParts().add('usage', amount);
    recordLease(parts, amount, lease);
    parts.condition(`attribute_not_exists(${parts.name('usage')}) OR ${parts.name('usage')} ${fits ? '<=' : '<'} ${parts.value(bound)}`);
    try {
      const result = await this.client.send(
        new UpdateCommand({ TableName: this.table, Key: gateKey(workspaceId, epoch), ...parts.build(), ReturnValues: 'UPDATED_NEW', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }),
      );
      return { admitted: true, count: Number(result.Attributes?.usage ?? amount) };
    } catch (error) {
      if (isConditionalCheckFailure(error)) return { admitted: false, item: refusedItem(error) };
      throw error;
    }
  }

  /**
   * A lease holder's report or give-back on the gate (lease-records.ts): the gate's new value, or undefined when
   * the record was reclaimed. A give-back lowers the gate, which only ever makes its condition stricter to pass.
   */
  async writeLease(workspaceId: string, epoch: string, op: LeaseOp): Promise<number | undefined> {
    const result = await writeLeaseRecord(this.gate(workspaceId, epoch), op, 0);
    return result.written ? result.count : undefined;
  }

  /** Gives back a dead holder's lease record on the gate, if still as read. */
  async reclaimLease(workspaceId: string, epoch: string, record: LeaseRecord): Promise<boolean> {
    return reclaimLeaseRecord(this.gate(workspaceId, epoch), record);
  }

  /** The lease records the gate carries. */
  async leaseRecords(workspaceId: string, epoch: string): Promise<LeaseRecord[]> {
    return readLeaseRecords(this.gate(workspaceId, epoch));
  }

  private gate(workspaceId: string, epoch: string): LeasedItem {
    return { client: this.client, table: this.table, key: gateKey(workspaceId, epoch), counted: 'usage' };
  }

  /**
   * Charges `amount` USD without a condition. `gated` (the budget has a limit): a positive amount goes to the
   * gate, so the shards' sum never rises under a process that holds it as a bound (see the class comment); a
   * negative one, and every amount of a budget without a limit, to a shard chosen at random.
   * Returns the gate's new value when the gate was written.
   */
  async charge(workspaceId: string, epoch: string, amount: number, gated: boolean): Promise<number | undefined> {
    const toGate = gated && amount > 0;
    const key = toGate ? gateKey(workspaceId, epoch) : shardKey(workspaceId, epoch, Math.floor(Math.random() * BUDGET_COUNTER_SHARDS));
    const result = await this.client.send(
      new UpdateCommand({
        TableName: this.table,
        Key: key,
        UpdateExpression: 'ADD #usage :amount SET workspace_id = :workspace',
        ExpressionAttributeNames: { '#usage': 'usage' },
        ExpressionAttributeValues: { ':amount': amount, ':workspace': workspaceId },
        ReturnValues: toGate ? 'UPDATED_NEW' : 'NONE',
      }),
    );
    return toGate ? Number(result.Attributes?.usage ?? amount) : undefined;
  }
}
