/** Key layout of the single main table, in one place so every repository builds keys the same way. */
export const keys = {
  organisation: (organisationId: string) => ({ pk: `ORG#${organisationId}`, sk: 'ORG' }),
  workspace: (workspaceId: string) => ({ pk: `WS#${workspaceId}`, sk: 'WS' }),
  workspacesOfOrganisation: (organisationId: string) => `ORG#${organisationId}#WORKSPACES`,
  apiKeyByHash: (keyHash: string) => ({ pk: `APIKEY#${keyHash}`, sk: 'APIKEY' }),
  apiKeysOfOrganisation: (organisationId: string) => `ORG#${organisationId}#APIKEYS`,
  activeKeyExpiryIndex: 'APIKEY#EXPIRY',
  /** Marks a one-time bootstrap, so a restart never creates a second admin key. */
  bootstrapMarker: { pk: 'SYSTEM', sk: 'BOOTSTRAP' },
} as const;
