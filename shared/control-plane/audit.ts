import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Principal } from '../auth/principal.js';
import { settings } from '../settings.js';
import { dynamoDocumentClient } from '../store/dynamo-client.js';
import { MAIN_TABLE, tableName } from '../store/table-definitions.js';

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
  actor?: { type: 'api_key' | 'jwt' | 'system' | 'anonymous'; id?: string };
  source_ip?: string;
  trace_id?: string;
}

/**
 * Writes an audit event (when AUDIT_LOGS_ENABLED). Awaited by mutations so no change goes unrecorded.
 * Events live in the main table under the organisation, newest first by their sort key.
 */
export async function recordAuditEvent(event: AuditEvent): Promise<void> {
  if (!settings().AUDIT_LOGS_ENABLED) return;
  const id = randomUUID();
  const at = new Date().toISOString();
  const organisation = event.organisation_id ?? 'unknown';
  await dynamoDocumentClient().send(
    new PutCommand({
      TableName: tableName(settings(), MAIN_TABLE),
      Item: {
        pk: `ORG#${organisation}#AUDIT`,
        sk: `${at}#${id}`,
        gsi1pk: event.workspace_id ? `WS#${event.workspace_id}#AUDIT` : undefined,
        gsi1sk: event.workspace_id ? `${at}#${id}` : undefined,
        id,
        at,
        ...event,
      },
    }),
  );
}

export function actorOf(principal: Principal): AuditEvent['actor'] {
  return { type: 'api_key', id: principal.keyId };
}
