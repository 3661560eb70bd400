import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../settings.js';
import { isConditionalCheckFailure } from './conditional-writes.js';
import { dynamoDocumentClient } from './dynamo-client.js';
import { gsi1Children, queryPage, type PagedResult } from './paged-query.js';
import { MAIN_TABLE, tableName } from './table-definitions.js';

/** What every slugged record has: an id, a slug unique inside its owner, and timestamps. */
export interface SluggedRecord {
  id: string;
  slug: string;
  created_at: string;
  updated_at: string;
}

export class SlugTakenError extends Error {
  constructor(readonly slug: string) {
    super(`slug '${slug}' is already in use`);
    this.name = 'SlugTakenError';
  }
}

const STORAGE_ATTRIBUTES = ['pk', 'sk', 'gsi1pk', 'gsi1sk'];

/**
 * Records that belong to one owner (an organisation `ORG#<id>` or a workspace `WS#<id>`) and are found by id or by
 * a slug unique inside the owner: deployments, integrations, providers. Layout in the main table:
 * - the record: `<owner>#<KIND>#<id>` / `<KIND>`, listed newest first through gsi1 `<owner>#<KIND>S`;
 * - the slug claim: `<owner>` / `<KIND>SLUG#<slug>` → `{ record_id }`, a conditional put, so two records never share
 *   a slug (dynalite has no transactions: the claim is taken first and given back when the record write fails).
 */
export class SluggedRecordRepository<Record_ extends SluggedRecord> {
  private readonly client = dynamoDocumentClient();
  private readonly table = tableName(settings(), MAIN_TABLE);

  constructor(private readonly kind: string) {}

  async create(owner: string, record: Record_): Promise<void> {
    await this.claimSlug(owner, record.slug, record.id);
    try {
      await this.client.send(new PutCommand({ TableName: this.table, Item: this.item(owner, record), ConditionExpression: 'attribute_not_exists(pk)' }));
    } catch (error) {
      await this.releaseSlug(owner, record.slug, record.id);
      throw error;
    }
  }

  async get(owner: string, id: string): Promise<Record_ | undefined> {
    const result = await this.client.send(new GetCommand({ TableName: this.table, Key: this.recordKey(owner, id) }));
    return result.Item ? strip<Record_>(result.Item) : undefined;
  }

  async getBySlug(owner: string, slug: string): Promise<Record_ | undefined> {
    const claim = await this.client.send(new GetCommand({ TableName: this.table, Key: this.slugKey(owner, slug) }));
    const id = claim.Item?.record_id as string | undefined;
    return id === undefined ? undefined : this.get(owner, id);
  }

  /** The owner's records, newest first; `keep` filters in memory (type, tags, workspace …). */
  async list(owner: string, limit: number, startKey?: Record<string, unknown>, keep?: (record: Record_) => boolean): Promise<PagedResult<Record_>> {
    const page = await queryPage<Record<string, unknown>>({
      ...gsi1Children(this.table, this.listPartition(owner), 'newest-first'),
      limit,
      startKey,
      keep: keep ? (item) => keep(strip<Record_>(item)) : undefined,
    });
    return { items: page.items.map((item) => strip<Record_>(item)), nextKey: page.nextKey };
  }

  /** Every record of the owner (for reference checks and small fan-outs); bounded by `max`. */
  async all(owner: string, max = 1_000): Promise<Record_[]> {
    const items: Record_[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.list(owner, 100, startKey);
      items.push(...page.items);
      startKey = page.nextKey;
    } while (startKey && items.length < max);
    return items;
  }

  /** Replaces an existing record (moving its slug claim when the slug changed); false when it was deleted meanwhile. */
  async replace(owner: string, previous: Record_, next: Record_): Promise<boolean> {
    if (previous.slug !== next.slug) await this.claimSlug(owner, next.slug, next.id);
    try {
      await this.client.send(new PutCommand({ TableName: this.table, Item: this.item(owner, next), ConditionExpression: 'attribute_exists(pk)' }));
    } catch (error) {
      if (previous.slug !== next.slug) await this.releaseSlug(owner, next.slug, next.id);
      if (isConditionalCheckFailure(error)) return false;
      throw error;
    }
    if (previous.slug !== next.slug) await this.releaseSlug(owner, previous.slug, previous.id);
    return true;
  }

  async delete(owner: string, id: string): Promise<Record_ | undefined> {
    const result = await this.client.send(new DeleteCommand({ TableName: this.table, Key: this.recordKey(owner, id), ReturnValues: 'ALL_OLD' }));
    if (!result.Attributes) return undefined;
    const deleted = strip<Record_>(result.Attributes);
    await this.releaseSlug(owner, deleted.slug, deleted.id);
    return deleted;
  }

  private async claimSlug(owner: string, slug: string, id: string): Promise<void> {
    try {
      await this.client.send(
        new PutCommand({ TableName: this.table, Item: { ...this.slugKey(owner, slug), record_id: id }, ConditionExpression: 'attribute_not_exists(pk)' }),
      );
    } catch (error) {
      if (isConditionalCheckFailure(error)) throw new SlugTakenError(slug);
      throw error;
    }
  }

  /** Gives a slug back, only while it still points at `id` (never another record's fresh claim). */
  private async releaseSlug(owner: string, slug: string, id: string): Promise<void> {
    try {
      await this.client.send(
        new DeleteCommand({ TableName: this.table, Key: this.slugKey(owner, slug), ConditionExpression: 'record_id = :id', ExpressionAttributeValues: { ':id': id } }),
      );
    } catch (error) {
      if (!isConditionalCheckFailure(error)) throw error;
    }
  }

  private recordKey(owner: string, id: string) {
    return { pk: `${owner}#${this.kind}#${id}`, sk: this.kind };
  }

  private slugKey(owner: string, slug: string) {
    return { pk: owner, sk: `${this.kind}SLUG#${slug}` };
  }

  private listPartition(owner: string): string {
    return `${owner}#${this.kind}S`;
  }

  private item(owner: string, record: Record_): Record<string, unknown> {
    return { ...this.recordKey(owner, record.id), gsi1pk: this.listPartition(owner), gsi1sk: `${record.created_at}#${record.id}`, ...(record as unknown as Record<string, unknown>) };
  }
}

function strip<T>(item: Record<string, unknown>): T {
  const copy: Record<string, unknown> = { ...item };
  for (const attribute of STORAGE_ATTRIBUTES) delete copy[attribute];
  return copy as T;
}

export const organisationOwner = (organisationId: string) => `ORG#${organisationId}`;
export const workspaceOwner = (workspaceId: string) => `WS#${workspaceId}`;
