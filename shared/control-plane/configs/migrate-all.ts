import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../../settings.js';
import { dynamoDocumentClient } from '../../store/dynamo-client.js';
import { MAIN_TABLE, tableName } from '../../store/table-definitions.js';
import { ConfigService } from './service.js';

/**
 * One-off: moves the credentials of every saved config still stored in plaintext to the secret store, instead of
 * waiting for each config's first read (scripts/migrate-config-secrets.ts; docs/security.md). A scan is fine for
 * a one-off job; nothing on a request path calls this. Returns how many configs it looked at.
 */
export async function migrateAllConfigSecrets(service = new ConfigService()): Promise<{ configs: number }> {
  const client = dynamoDocumentClient();
  let startKey: Record<string, unknown> | undefined;
  let configs = 0;
  do {
    const page = await client.send(
      new ScanCommand({
        TableName: tableName(settings(), MAIN_TABLE),
        FilterExpression: 'sk = :latest AND begins_with(pk, :ws) AND contains(pk, :config)',
        ExpressionAttributeValues: { ':latest': 'LATEST', ':ws': 'WS#', ':config': '#CONFIG#' },
        ProjectionExpression: 'workspace_id, id',
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) {
      const { workspace_id: workspaceId, id } = item as { workspace_id: string; id: string };
      // Reading migrates: the latest item and every version item.
      await service.versions({ workspaceId }, id);
      await service.get({ workspaceId }, id);
      configs++;
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return { configs };
}
