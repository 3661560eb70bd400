import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../settings.js';
import { dynamoDocumentClient } from './dynamo-client.js';
import { keys } from './keys.js';
import { queryPage, type PagedResult } from './paged-query.js';
import { MAIN_TABLE, tableName } from './table-definitions.js';

export type AuditActorType = 'api_key' | 'jwt' | 'system' | 'anonymous';

/** One audit event: who did what to which resource, when, and how it ended. Never a secret. */
export interface AuditEvent {
  action: string;
  resource_type: string;
  resource_id?: string;
  outcome: 'success' | 'failure';
  /** Free details; callers must not put credentials or raw keys here. */
  details?: Record<string, unknown>;
  organisation_id?: string;
  workspace_id?: string;
  actor?: { type: AuditActorType; id?: string };
  source_ip?: string;
  trace_id?: string;
}

/** An audit event as stored: with its id and the ISO-8601 time it happened. */
export interface AuditLogRecord extends AuditEvent {
  id: string;
  at: string;
}

export interface AuditLogFilter {
  /** Inclusive ISO bounds on `at`. */
  from?: string;
  to?: string;
  action?: string;
  resource_type?: string;
  resource_id?: string;
  outcome?: 'success' | 'failure';
  actor_id?: string;
  actor_type?: AuditActorType;
}

/** Organisation of events whose caller could not be identified (e.g. an unknown API key). */
export const UNKNOWN_ORGANISATION = 'unknown';

const STORAGE_ATTRIBUTES = ['pk', 'sk', 'gsi1pk', 'gsi1sk', 'ttl'];

/** Refused authentications that name no organisation, counted per source address, minute, method and code. */
export interface AnonymousFailureCount {
  /** The minute, as the ISO time it starts (`2026-01-01T10:04:00.000Z`). */
  minute: string;
  source_ip: string;
  method: string;
  code: string;
  status: number;
  /** The latest request's method and path and trace id (one value, overwritten: the item stays small). */
  last: { http_method: string; path: string; trace_id: string; at: string };
}

/** Epoch seconds when an audit item written now expires (AUDIT_LOG_RETENTION_DAYS). */
export function auditExpiry(now: Date = new Date()): number {
  return Math.floor(now.getTime() / 1000) + settings().AUDIT_LOG_RETENTION_DAYS * 86_400;
}

/**
 * Audit events live under their organisation (`ORG#<org>#AUDIT`, sorted by `<at>#<id>`) and, when they concern
 * a workspace, also in gsi1 under `WS#<ws>#AUDIT`: an organisation admin reads the first, a workspace the second.
 */
export class AuditLogRepository {
  private readonly client = dynamoDocumentClient();
  private readonly table = tableName(settings(), MAIN_TABLE);

  async append(record: AuditLogRecord): Promise<void> {
    const sortKey = `${record.at}#${record.id}`;
    await this.client.send(
      new PutCommand({
        TableName: this.table,
        Item: {
          pk: keys.auditOfOrganisation(record.organisation_id ?? UNKNOWN_ORGANISATION),
          sk: sortKey,
          ...(record.workspace_id ? { gsi1pk: keys.auditOfWorkspace(record.workspace_id), gsi1sk: sortKey } : {}),
          ...record,
          ttl: auditExpiry(new Date(record.at)),
        },
      }),
    );
  }

  /** Newest first. `workspaceId` reads one workspace's events; without it, the whole organisation's. */
  async list(scope: { organisationId: string; workspaceId?: string }, filter: AuditLogFilter, limit: number, startKey?: Record<string, unknown>): Promise<PagedResult<AuditLogRecord>> {
    const byWorkspace = scope.workspaceId !== undefined;
    const [partitionAttribute, sortAttribute] = byWorkspace ? ['gsi1pk', 'gsi1sk'] : ['pk', 'sk'];
    const partition = byWorkspace ? keys.auditOfWorkspace(scope.workspaceId as string) : keys.auditOfOrganisation(scope.organisationId);
    const range = sortRange(filter);
    const page = await queryPage<Record<string, unknown>>({
      input: {
        TableName: this.table,
        IndexName: byWorkspace ? 'gsi1' : undefined,
        KeyConditionExpression: `${partitionAttribute} = :partition${range ? ` AND ${sortAttribute} BETWEEN :from AND :to` : ''}`,
        ExpressionAttributeValues: { ':partition': partition, ...(range ? { ':from': range.from, ':to': range.to } : {}) },
        ScanIndexForward: false,
      },
      keyAttributes: byWorkspace ? ['pk', 'sk', 'gsi1pk', 'gsi1sk'] : ['pk', 'sk'],
      partition: { attribute: partitionAttribute, value: partition },
      limit,
      startKey,
      keep: (item) => matches(item as unknown as AuditLogRecord, filter, scope.organisationId),
    });
    return { items: page.items.map(toRecord), nextKey: page.nextKey };
  }
}

function sortRange(filter: AuditLogFilter): { from: string; to: string } | undefined {
  if (filter.from === undefined && filter.to === undefined) return undefined;
  // Sort keys are `<at ISO>#<id>`: `<from>` sorts before every event at `from`, `<to>#~` after every event at `to`.
  return { from: filter.from ?? '0000', to: `${filter.to ?? '9999'}#~` };
}

function matches(record: AuditLogRecord, filter: AuditLogFilter, organisationId: string): boolean {
  // TTL deletion only cleans up (and never runs locally): an expired event is gone for readers at once.
  const expiry = (record as unknown as { ttl?: number }).ttl;
  if (typeof expiry === 'number' && expiry * 1000 <= Date.now()) return false;
  // A workspace's gsi1 partition is only ever written for that workspace's organisation; checked anyway.
  if ((record.organisation_id ?? UNKNOWN_ORGANISATION) !== organisationId) return false;
  if (filter.action !== undefined && record.action !== filter.action) return false;
  if (filter.resource_type !== undefined && record.resource_type !== filter.resource_type) return false;
  if (filter.resource_id !== undefined && record.resource_id !== filter.resource_id) return false;
  if (filter.outcome !== undefined && record.outcome !== filter.outcome) return false;
  if (filter.actor_id !== undefined && record.actor?.id !== filter.actor_id) return false;
  if (filter.actor_type !== undefined && record.actor?.type !== filter.actor_type) return false;
  return true;
}

function toRecord(item: Record<string, unknown>): AuditLogRecord {
  return Object.fromEntries(Object.entries(item).filter(([name]) => !STORAGE_ATTRIBUTES.includes(name))) as unknown as AuditLogRecord;
}
