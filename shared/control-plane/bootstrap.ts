import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { generateRawApiKey, hashApiKey, maskApiKey } from '../auth/api-key-secrets.js';
import { settings } from '../settings.js';
import { ApiKeyRepository } from '../store/api-key-repository.js';
import { dynamoDocumentClient } from '../store/dynamo-client.js';
import { keys } from '../store/keys.js';
import { MAIN_TABLE, tableName } from '../store/table-definitions.js';
import { WorkspaceRepository } from '../store/workspace-repository.js';

export interface BootstrapResult {
  organisationId: string;
  workspaceId: string;
  /** The raw admin key when this call created one; undefined when it already existed. */
  createdApiKey?: string;
}

interface BootstrapMarker {
  organisation_id: string;
  workspace_id: string;
}

/**
 * Creates the first organisation, a default workspace and an organisation admin key, once. With `rawApiKey`
 * (GW_BOOTSTRAP_API_KEY) that exact key is made to exist, so scripts know it in advance; otherwise a key is
 * generated only on the very first run and returned so it can be shown once.
 */
export async function bootstrapOrganisation(rawApiKey?: string, name = 'default'): Promise<BootstrapResult> {
  const client = dynamoDocumentClient();
  const table = tableName(settings(), MAIN_TABLE);
  const existing = (await client.send(new GetCommand({ TableName: table, Key: keys.bootstrapMarker }))).Item as BootstrapMarker | undefined;

  let marker = existing;
  if (!marker) {
    marker = { organisation_id: randomUUID(), workspace_id: randomUUID() };
    const now = new Date().toISOString();
    const workspaces = new WorkspaceRepository();
    await workspaces.createOrganisation({ id: marker.organisation_id, name, created_at: now });
    await workspaces.createWorkspace({ id: marker.workspace_id, organisation_id: marker.organisation_id, name, slug: name, created_at: now });
    await client.send(new PutCommand({ TableName: table, Item: { ...keys.bootstrapMarker, ...marker, created_at: now } }));
  }

  const apiKeys = new ApiKeyRepository();
  const wanted = rawApiKey ?? (existing ? undefined : generateRawApiKey());
  if (!wanted || (await apiKeys.findByHash(hashApiKey(wanted)))) {
    return { organisationId: marker.organisation_id, workspaceId: marker.workspace_id };
  }
  await apiKeys.create({
    id: randomUUID(),
    key_hash: hashApiKey(wanted),
    masked: maskApiKey(wanted),
    name: 'bootstrap admin key',
    kind: 'admin',
    type: 'service',
    organisation_id: marker.organisation_id,
    workspace_id: marker.workspace_id,
    scopes: [],
    status: 'active',
    created_at: new Date().toISOString(),
  });
  return { organisationId: marker.organisation_id, workspaceId: marker.workspace_id, createdApiKey: wanted };
}
