import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isConditionalCheckFailure } from './conditional-writes.js';

/**
 * Lease records on a counter item (issue #48, docs/architecture.md "Quota leases"). A process that takes a share of
 * a counter's quota records it on the counter item in the same conditional write: `lh_<lease id>`, the part of the
 * share not yet reported used, and `le_<lease id>`, the lease's expiry (epoch ms). Top-level attributes, since
 * DynamoDB's `ADD` works only on those. The holder reports what it used (`ADD lh :-used`) with its batched charges
 * and removes the record when it gives the rest back; a process that finds a record long expired (its holder
 * died) gives the recorded remainder back, so a crash costs at most one lease until its expiry.
 */
export interface LeaseRecord {
  id: string;
  /** What the lease still holds as far as the store knows: its share less what its holder reported used. */
  held: number;
  expiresAt: number;
}

/** A lease taken or renewed with a write: its id, its (new) expiry; `renewal`: the record must still exist. */
export interface LeaseTake {
  id: string;
  expiresAt: number;
  renewal: boolean;
}

/** A holder's write to its record: report what it used since its last report, or give the unused rest back. */
export type LeaseOp = { kind: 'report'; id: string; used: number } | { kind: 'give-back'; id: string; unused: number };

/** A conditional take: the counter's new value, or refused with the item as the refusal returned it (DynamoDB: ALL_OLD). */
export type Taken = { admitted: true; count: number } | { admitted: false; item?: Record<string, unknown>; hopeless?: true };

const HELD = 'lh_';
const EXPIRES = 'le_';

/** The lease records an item holds (a plain item, or a refusal's marshalled one). */
export function leaseRecordsOf(item: Record<string, unknown> | undefined): LeaseRecord[] {
  if (!item) return [];
  const records: LeaseRecord[] = [];
  for (const [name, value] of Object.entries(item)) {
    if (!name.startsWith(HELD)) continue;
    const id = name.slice(HELD.length);
    const expiresAt = numberOf(item[`${EXPIRES}${id}`]);
    records.push({ id, held: numberOf(value), expiresAt: Number.isFinite(expiresAt) ? expiresAt : 0 });
  }
  return records;
}

/** A number attribute, plain (document client) or marshalled (`{ N: "12" }`, as an exception carries it). */
function numberOf(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'object' && value !== null && typeof (value as { N?: unknown }).N === 'string') return Number((value as { N: string }).N);
  return Number.NaN;
}

/** The item a refused write returned (ReturnValuesOnConditionCheckFailure ALL_OLD; the local store returns none). */
export function refusedItem(error: unknown): Record<string, unknown> | undefined {
  const item = (error as { Item?: unknown }).Item;
  return typeof item === 'object' && item !== null ? (item as Record<string, unknown>) : undefined;
}

/** One UpdateItem's expression, built up part by part, each attribute under one placeholder. */
export class UpdateParts {
  private readonly adds: string[] = [];
  private readonly sets: string[] = [];
  private readonly removes: string[] = [];
  private readonly conditions: string[] = [];
  private readonly names: Record<string, string> = {};
  private readonly values: Record<string, unknown> = {};
  private readonly placeholders = new Map<string, string>();

  name(attribute: string): string {
    let placeholder = this.placeholders.get(attribute);
    if (!placeholder) {
      placeholder = `#a${this.placeholders.size}`;
      this.placeholders.set(attribute, placeholder);
      this.names[placeholder] = attribute;
    }
    return placeholder;
  }

  value(value: unknown): string {
    const placeholder = `:v${Object.keys(this.values).length}`;
    this.values[placeholder] = value;
    return placeholder;
  }

  add(attribute: string, amount: number): this {
    this.adds.push(`${this.name(attribute)} ${this.value(amount)}`);
    return this;
  }

  set(attribute: string, value: unknown): this {
    this.sets.push(`${this.name(attribute)} = ${this.value(value)}`);
    return this;
  }

  remove(attribute: string): this {
    this.removes.push(this.name(attribute));
    return this;
  }

  condition(text: string): this {
    this.conditions.push(`(${text})`);
    return this;
  }

  build(): { UpdateExpression: string; ConditionExpression?: string; ExpressionAttributeNames: Record<string, string>; ExpressionAttributeValues?: Record<string, unknown> } {
    const clauses = [this.adds.length ? `ADD ${this.adds.join(', ')}` : '', this.sets.length ? `SET ${this.sets.join(', ')}` : '', this.removes.length ? `REMOVE ${this.removes.join(', ')}` : ''];
    return {
      UpdateExpression: clauses.filter(Boolean).join(' '),
      ...(this.conditions.length ? { ConditionExpression: this.conditions.join(' AND ') } : {}),
      ExpressionAttributeNames: this.names,
      ...(Object.keys(this.values).length ? { ExpressionAttributeValues: this.values } : {}),
    };
  }
}

/** Adds a lease's record to a take: its share joins `lh_<id>` and its expiry is set; a renewal needs the record. */
export function recordLease(parts: UpdateParts, amount: number, lease: LeaseTake | undefined): void {
  if (!lease) return;
  parts.add(`${HELD}${lease.id}`, amount).set(`${EXPIRES}${lease.id}`, lease.expiresAt);
  if (lease.renewal) parts.condition(`attribute_exists(${parts.name(`${HELD}${lease.id}`)})`);
}

/** A counter item that carries lease records: where it is and which attribute counts. */
export interface LeasedItem {
  client: DynamoDBDocumentClient;
  table: string;
  key: Record<string, string>;
  /** `count` (limit counters), `usage` (a budget's gate). */
  counted: string;
  /** What every write of the item also sets (a window's end and TTL, a workspace id). */
  decorate?: (parts: UpdateParts) => void;
}

/**
 * A holder's write to its own record, with `charge` (this counter's batched charge, 0 when none) in the same
 * write: a report (`ADD counted :charge, lh :-used`) or a give-back (`ADD counted :charge-unused REMOVE lh, le`),
 * both only while the record exists. `gone`: another process reclaimed it (nothing was written, the charge neither).
 */
export async function writeLeaseRecord(target: LeasedItem, op: LeaseOp, charge: number): Promise<{ written: true; count: number } | { written: false }> {
  const parts = new UpdateParts();
  const held = `${HELD}${op.id}`;
  const counted = op.kind === 'report' ? charge : charge - op.unused;
  if (counted !== 0) parts.add(target.counted, counted);
  if (op.kind === 'report') parts.add(held, -op.used);
  else parts.remove(held).remove(`${EXPIRES}${op.id}`);
  target.decorate?.(parts);
  parts.condition(`attribute_exists(${parts.name(held)})`);
  try {
    const result = await target.client.send(new UpdateCommand({ TableName: target.table, Key: target.key, ...parts.build(), ReturnValues: 'ALL_NEW' }));
    return { written: true, count: Number(result.Attributes?.[target.counted] ?? 0) };
  } catch (error) {
    if (isConditionalCheckFailure(error)) return { written: false };
    throw error;
  }
}

/**
 * Gives back the record of a lease whose holder is gone: `ADD counted :-held REMOVE lh, le`, only if the record is
 * still exactly as read (a live holder that reported or renewed meanwhile changed it, and keeps it). True if done.
 */
export async function reclaimLeaseRecord(target: LeasedItem, record: LeaseRecord): Promise<boolean> {
  const parts = new UpdateParts();
  const held = parts.name(`${HELD}${record.id}`);
  const expires = parts.name(`${EXPIRES}${record.id}`);
  if (record.held !== 0) parts.add(target.counted, -record.held);
  parts.remove(`${HELD}${record.id}`).remove(`${EXPIRES}${record.id}`);
  parts.condition(`${held} = ${parts.value(record.held)} AND ${expires} = ${parts.value(record.expiresAt)}`);
  try {
    await target.client.send(new UpdateCommand({ TableName: target.table, Key: target.key, ...parts.build() }));
    return true;
  } catch (error) {
    if (isConditionalCheckFailure(error)) return false;
    throw error;
  }
}

/** The item's lease records, read consistently (when a refusal did not return the item). */
export async function readLeaseRecords(target: LeasedItem): Promise<LeaseRecord[]> {
  const result = await target.client.send(new GetCommand({ TableName: target.table, Key: target.key, ConsistentRead: true }));
  return leaseRecordsOf(result.Item);
}
