import { BatchWriteCommand, DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../settings.js';
import { isConditionalCheckFailure } from './conditional-writes.js';
import { dynamoDocumentClient } from './dynamo-client.js';
import { keys } from './keys.js';
import { gsi1Children, queryPage, queryPages } from './paged-query.js';
import { MAIN_TABLE, tableName } from './table-definitions.js';
import { stripKeys, type RecordPage } from './virtual-key-repository.js';

/** A prompt's head: identity, name and which version is published or labelled. Templates live in versions. */
export interface PromptRecord {
  id: string;
  organisation_id: string;
  workspace_id: string;
  name: string;
  description?: string;
  latest_version: number;
  /** The version render and completions use when the caller names none. */
  published_version: number;
  /** Named pointers to versions, e.g. `{ "staging": 4 }`. */
  labels: Record<string, number>;
  created_at: string;
  updated_at: string;
}

/** The template of one version: messages with `{{variable}}` placeholders, a model and default parameters. */
export interface PromptTemplate {
  messages: Array<Record<string, unknown>>;
  model?: string;
  hyperparameters: Record<string, unknown>;
}

export interface PromptVersionRecord {
  prompt_id: string;
  workspace_id: string;
  version: number;
  template: PromptTemplate;
  /** A note on what changed in this version. */
  description?: string;
  created_at: string;
}

export interface NewVersion {
  template: PromptTemplate;
  description?: string;
  /** Prompt-level fields changed together with the new version. */
  name?: string;
  promptDescription?: string;
  publish: boolean;
  now: string;
}

const MAX_VERSION_CLAIMS = 5;
const BATCH_WRITE_LIMIT = 25;
const VERSION_PREFIX = 'VERSION#';


/**
 * Prompts and their versions, without transactions (the local store has none): a version is written first,
 * with a condition that its number is free, and the head is moved to it afterwards. Every version number the
 * head points to therefore exists, and two concurrent updates get two different numbers.
 */
export class PromptRepository {
  private readonly client = dynamoDocumentClient();
  private readonly table = tableName(settings(), MAIN_TABLE);

  async create(head: PromptRecord, first: PromptVersionRecord): Promise<void> {
    await this.putVersion(first);
    await this.client.send(
      new PutCommand({
        TableName: this.table,
        Item: {
          ...keys.prompt(head.workspace_id, head.id),
          gsi1pk: keys.promptsOfWorkspace(head.workspace_id),
          gsi1sk: `${head.created_at}#${head.id}`,
          ...head,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async get(workspaceId: string, promptId: string): Promise<PromptRecord | undefined> {
    const result = await this.client.send(new GetCommand({ TableName: this.table, Key: keys.prompt(workspaceId, promptId) }));
    return result.Item ? stripKeys<PromptRecord>(result.Item) : undefined;
  }

  /** The workspace's prompts, newest first. A cursor from another list is refused (400 invalid_cursor). */
  async list(workspaceId: string, limit: number, startKey?: Record<string, unknown>): Promise<RecordPage<PromptRecord>> {
    const partition = keys.promptsOfWorkspace(workspaceId);
    const page = await queryPage({
      ...gsi1Children(this.table, partition, 'newest-first'),
      limit,
      startKey,
    });
    return { items: page.items.map((item) => stripKeys<PromptRecord>(item)), nextKey: page.nextKey };
  }

  async getVersion(workspaceId: string, promptId: string, version: number): Promise<PromptVersionRecord | undefined> {
    const result = await this.client.send(new GetCommand({ TableName: this.table, Key: keys.promptVersion(workspaceId, promptId, version) }));
    return result.Item ? stripKeys<PromptVersionRecord>(result.Item) : undefined;
  }

  /** A prompt's versions, newest first. */
  async listVersions(workspaceId: string, promptId: string, limit: number, startKey?: Record<string, unknown>): Promise<RecordPage<PromptVersionRecord>> {
    const partition = keys.prompt(workspaceId, promptId).pk;
    const page = await queryPage({
      input: {
        TableName: this.table,
        KeyConditionExpression: 'pk = :partition AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':partition': partition, ':prefix': VERSION_PREFIX },
        ScanIndexForward: false,
      },
      keyAttributes: ['pk', 'sk'],
      partition: { attribute: 'pk', value: partition },
      limit,
      startKey,
    });
    return { items: page.items.map((item) => stripKeys<PromptVersionRecord>(item)), nextKey: page.nextKey };
  }

  /**
   * Writes the next version and moves the head to it. Returns the updated head and the new version, or
   * undefined when the prompt does not exist (or was deleted meanwhile).
   */
  async addVersion(workspaceId: string, promptId: string, change: NewVersion): Promise<{ head: PromptRecord; version: PromptVersionRecord } | undefined> {
    const current = await this.get(workspaceId, promptId);
    if (!current) return undefined;
    let version: PromptVersionRecord | undefined;
    for (let number = current.latest_version + 1; number <= current.latest_version + MAX_VERSION_CLAIMS && !version; number++) {
      const candidate: PromptVersionRecord = {
        prompt_id: promptId,
        workspace_id: workspaceId,
        version: number,
        template: change.template,
        description: change.description,
        created_at: change.now,
      };
      try {
        await this.putVersion(candidate);
        version = candidate;
      } catch (error) {
        if (!isConditionalCheckFailure(error)) throw error;
      }
    }
    if (!version) throw new PromptConflictError(`Too many concurrent updates of prompt '${promptId}'; retry`);
    const head = await this.moveHead(workspaceId, promptId, version.version, change);
    return head ? { head, version } : undefined;
  }

  /** Points the published version or a label at an existing version; undefined when the prompt is gone. */
  async setPublished(workspaceId: string, promptId: string, version: number, now: string): Promise<PromptRecord | undefined> {
    return this.updateHead(workspaceId, promptId, 'SET published_version = :version, updated_at = :now', { ':version': version, ':now': now });
  }

  async setLabel(workspaceId: string, promptId: string, label: string, version: number, now: string): Promise<PromptRecord | undefined> {
    return this.updateHead(workspaceId, promptId, 'SET labels.#label = :version, updated_at = :now', { ':version': version, ':now': now }, { '#label': label });
  }

  /** Removes a label; undefined when the prompt or the label does not exist. */
  async removeLabel(workspaceId: string, promptId: string, label: string, now: string): Promise<PromptRecord | undefined> {
    try {
      const result = await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.prompt(workspaceId, promptId),
          UpdateExpression: 'REMOVE labels.#label SET updated_at = :now',
          ConditionExpression: 'attribute_exists(labels.#label)',
          ExpressionAttributeNames: { '#label': label },
          ExpressionAttributeValues: { ':now': now },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return stripKeys<PromptRecord>(result.Attributes ?? {});
    } catch (error) {
      if (isConditionalCheckFailure(error)) return undefined;
      throw error;
    }
  }

  /** Deletes the head first (so the prompt is gone at once), then its versions. */
  async delete(workspaceId: string, promptId: string): Promise<PromptRecord | undefined> {
    const result = await this.client.send(new DeleteCommand({ TableName: this.table, Key: keys.prompt(workspaceId, promptId), ReturnValues: 'ALL_OLD' }));
    if (!result.Attributes) return undefined;
    const partition = {
      TableName: this.table,
      KeyConditionExpression: 'pk = :partition',
      ExpressionAttributeValues: { ':partition': keys.prompt(workspaceId, promptId).pk },
      ProjectionExpression: 'pk, sk',
      Limit: BATCH_WRITE_LIMIT,
    };
    for await (const items of queryPages(partition)) await this.deleteAll(items.map((item) => ({ pk: item.pk as string, sk: item.sk as string })));
    return stripKeys<PromptRecord>(result.Attributes);
  }

  private async putVersion(version: PromptVersionRecord): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.table,
        Item: { ...keys.promptVersion(version.workspace_id, version.prompt_id, version.version), ...version },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  private async moveHead(workspaceId: string, promptId: string, version: number, change: NewVersion): Promise<PromptRecord | undefined> {
    const sets = ['updated_at = :now'];
    const values: Record<string, unknown> = { ':now': change.now };
    if (change.name !== undefined) {
      sets.push('#name = :name');
      values[':name'] = change.name;
    }
    if (change.promptDescription !== undefined) {
      sets.push('description = :description');
      values[':description'] = change.promptDescription;
    }
    const names = change.name !== undefined ? { '#name': 'name' } : undefined;
    const withVersion = [...sets, 'latest_version = :version', ...(change.publish ? ['published_version = :version'] : [])];
    try {
      // Only ever forwards: a slower concurrent writer with a lower number must not move the head back.
      const result = await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.prompt(workspaceId, promptId),
          UpdateExpression: `SET ${withVersion.join(', ')}`,
          ConditionExpression: 'attribute_exists(pk) AND latest_version < :version',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: { ...values, ':version': version },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return stripKeys<PromptRecord>(result.Attributes ?? {});
    } catch (error) {
      if (!isConditionalCheckFailure(error)) throw error;
    }
    const publish = change.publish ? { ':version': version } : {};
    return this.updateHead(workspaceId, promptId, `SET ${[...sets, ...(change.publish ? ['published_version = :version'] : [])].join(', ')}`, { ...values, ...publish }, names);
  }

  private async updateHead(
    workspaceId: string,
    promptId: string,
    expression: string,
    values: Record<string, unknown>,
    names?: Record<string, string>,
  ): Promise<PromptRecord | undefined> {
    try {
      const result = await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.prompt(workspaceId, promptId),
          UpdateExpression: expression,
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return stripKeys<PromptRecord>(result.Attributes ?? {});
    } catch (error) {
      if (isConditionalCheckFailure(error)) return undefined;
      throw error;
    }
  }

  private async deleteAll(itemKeys: Array<{ pk: string; sk: string }>): Promise<void> {
    let pending = itemKeys.map((Key) => ({ DeleteRequest: { Key } }));
    for (let attempt = 0; pending.length > 0 && attempt < 5; attempt++) {
      const result = await this.client.send(new BatchWriteCommand({ RequestItems: { [this.table]: pending } }));
      pending = (result.UnprocessedItems?.[this.table] ?? []) as typeof pending;
    }
  }
}

export class PromptConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PromptConflictError';
  }
}
