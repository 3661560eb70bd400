import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../settings.js';
import { isConditionalCheckFailure } from './conditional-writes.js';
import { dynamoDocumentClient } from './dynamo-client.js';
import { readLeaseRecords, reclaimLeaseRecord, recordLease, refusedItem, UpdateParts, writeLeaseRecord, type LeasedItem, type LeaseOp, type LeaseRecord, type LeaseTake, type Taken } from './lease-records.js';
import { MAIN_TABLE, tableName } from './table-definitions.js';

/**
 * One counter: a policy's usage of one group (the request's values of its group_by keys) in one window. The
 * window is part of the key, so a new window starts from zero without any reset write.
 */
export interface CounterKey {
  /** `CTR#<policy id>#<kind>#<group hash>#<window id>`: see `counterKey`. */
  pk: string;
  /** Epoch ms at which the window ends; reads treat a counter of an ended window as 0. */
  windowEnd: number;
}

/** Refused: with the counter item when the store returned it (its lease records, lease-records.ts). */
export type IncrementResult = Taken;

const SORT_KEY = 'COUNTER';
// Counters stay a little after their window so a slow request can still settle; then AWS TTL removes them.
const TTL_SLACK_SECONDS = 3_600;

/** The main-table partition key of a counter. Everything in it is already bounded and safe (ids, hashes). */
export function counterKey(policyId: string, kind: 'rate' | 'credit', groupHash: string, windowId: string): string {
  return `CTR#${policyId}#${kind}#${groupHash}#${windowId}`;
}

/**
 * Usage counters in the main table, written only with single-item atomic updates (`ADD`, optionally with a
 * condition), so any number of concurrent Lambdas can never admit past a limit. Items carry a `ttl` for AWS to
 * clean up; the local store never deletes, and nothing here relies on deletion.
 */
export class CounterRepository {
  private readonly client = dynamoDocumentClient();
  private readonly table = tableName(settings(), MAIN_TABLE);

  /**
   * Adds `amount` only while the counter is below `limit` (`count < limit` before the write): the atomic
   * admission of a `requests` policy. Several writers racing on the last slot: exactly one wins.
   */
  async incrementBelow(key: CounterKey, amount: number, limit: number): Promise<IncrementResult> {
    return this.conditionalAdd(key, amount, '<', limit);
  }

  /**
   * Adds `amount` only while `count + amount <= limit` holds: a token reservation that must fit entirely, or a
   * lease's share, recorded on the item in the same write (`lease`, lease-records.ts).
   */
  async incrementIfFits(key: CounterKey, amount: number, limit: number, lease?: LeaseTake): Promise<IncrementResult> {
    // An empty counter passes the condition below, so an amount that can never fit is refused here.
    if (amount > limit) return { admitted: false, hopeless: true };
    return this.conditionalAdd(key, amount, '<=', limit - amount, lease);
  }

  /** A lease holder's report or give-back, merged with the counter's batched `charge` (lease-records.ts). */
  async writeLease(key: CounterKey, op: LeaseOp, charge: number): Promise<boolean> {
    return (await writeLeaseRecord(this.leased(key), op, charge)).written;
  }

  /** Gives back a dead holder's lease record, if still as read. */
  async reclaimLease(key: CounterKey, record: LeaseRecord): Promise<boolean> {
    return reclaimLeaseRecord(this.leased(key), record);
  }

  /** The lease records the counter carries. */
  async leaseRecords(key: CounterKey): Promise<LeaseRecord[]> {
    return readLeaseRecords(this.leased(key));
  }

  /** Adds `amount` (negative to give back) without a condition: charging real usage after the response. */
  async add(key: CounterKey, amount: number): Promise<number> {
    const result = await this.client.send(
      new UpdateCommand({
        TableName: this.table,
        Key: { pk: key.pk, sk: SORT_KEY },
        ...addExpression(key, amount),
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Number(result.Attributes?.count ?? 0);
  }

  /**
   * Gives back what an admission took, only if the counter exists (a release never creates one). Used when a
   * request that was counted is refused by another policy, or failed before reaching a provider.
   */
  async release(key: CounterKey, amount: number): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: key.pk, sk: SORT_KEY },
          UpdateExpression: 'ADD #count :minus',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#count': 'count' },
          ExpressionAttributeValues: { ':minus': -amount },
        }),
      );
    } catch (error) {
      if (!isConditionalCheckFailure(error)) throw error;
    }
  }

  /** The counter's value now: 0 when it does not exist or its window has ended (checked here, not by TTL). */
  async read(key: CounterKey, now: number): Promise<number> {
    const result = await this.client.send(new GetCommand({ TableName: this.table, Key: { pk: key.pk, sk: SORT_KEY }, ConsistentRead: true }));
    const item = result.Item;
    if (!item) return 0;
    if (typeof item.window_end === 'number' && item.window_end <= now) return 0;
    return Number(item.count ?? 0);
  }

  private leased(key: CounterKey): LeasedItem {
    return { client: this.client, table: this.table, key: { pk: key.pk, sk: SORT_KEY }, counted: 'count', decorate: (parts) => windowOf(parts, key) };
  }

  private async conditionalAdd(key: CounterKey, amount: number, comparison: '<' | '<=', bound: number, lease?: LeaseTake): Promise<IncrementResult> {
    const parts = new UpdateParts().add('count', amount);
    windowOf(parts, key);
    recordLease(parts, amount, lease);
    parts.condition(`attribute_not_exists(${parts.name('count')}) OR ${parts.name('count')} ${comparison} ${parts.value(bound)}`);
    try {
      const result = await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: key.pk, sk: SORT_KEY },
          ...parts.build(),
          ReturnValues: 'UPDATED_NEW',
          // A refusal returns the item: its lease records tell whether a dead holder's share can be reclaimed.
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { admitted: true, count: Number(result.Attributes?.count ?? amount) };
    } catch (error) {
      if (isConditionalCheckFailure(error)) return { admitted: false, item: refusedItem(error) };
      throw error;
    }
  }
}

/** A counter with a window carries its end and a TTL (see addExpression). */
function windowOf(parts: UpdateParts, key: CounterKey): void {
  if (!Number.isFinite(key.windowEnd)) return;
  parts.set('window_end', key.windowEnd).set('ttl', Math.ceil(key.windowEnd / 1000) + TTL_SLACK_SECONDS);
}

/**
 * `ADD count :amount`, plus the window's end and TTL. A period without an end (a usage limit that never
 * resets) is stored with neither.
 */
function addExpression(key: CounterKey, amount: number): { UpdateExpression: string; ExpressionAttributeNames: Record<string, string>; ExpressionAttributeValues: Record<string, unknown> } {
  if (!Number.isFinite(key.windowEnd)) {
    return { UpdateExpression: 'ADD #count :amount', ExpressionAttributeNames: { '#count': 'count' }, ExpressionAttributeValues: { ':amount': amount } };
  }
  return {
    UpdateExpression: 'ADD #count :amount SET #end = :end, #ttl = :ttl',
    ExpressionAttributeNames: { '#count': 'count', '#end': 'window_end', '#ttl': 'ttl' },
    ExpressionAttributeValues: { ':amount': amount, ':end': key.windowEnd, ':ttl': Math.ceil(key.windowEnd / 1000) + TTL_SLACK_SECONDS },
  };
}
