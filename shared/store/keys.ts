/** Key layout of the single main table, in one place so every repository builds keys the same way. */
export const keys = {
  organisation: (organisationId: string) => ({ pk: `ORG#${organisationId}`, sk: 'ORG' }),
  workspace: (workspaceId: string) => ({ pk: `WS#${workspaceId}`, sk: 'WS' }),
  workspacesOfOrganisation: (organisationId: string) => `ORG#${organisationId}#WORKSPACES`,
  /** Claims a workspace slug inside its organisation, so two workspaces never share one. */
  workspaceSlug: (organisationId: string, slug: string) => ({ pk: `ORG#${organisationId}`, sk: `WSSLUG#${slug}` }),
  /** Sparse gsi2 partition of workspaces whose budget resets periodically, sorted by `<next_reset_at>#<id>`. */
  workspaceBudgetResetIndex: 'WORKSPACE#BUDGET_RESET',

  /** The API key record itself, keyed by the SHA-256 of the raw key: the gateway's one GetItem. */
  apiKeyByHash: (keyHash: string) => ({ pk: `APIKEY#${keyHash}`, sk: 'APIKEY' }),
  /** Pointer from a key id to the hash of its current secret (and of previous secrets still in transition). */
  apiKeyById: (keyId: string) => ({ pk: `APIKEYID#${keyId}`, sk: 'APIKEYID' }),
  /** gsi1 partition of the organisation admin keys. */
  apiKeysOfOrganisation: (organisationId: string) => `ORG#${organisationId}#APIKEYS`,
  /** gsi1 partition of the workspace keys (service and user) of one workspace. */
  apiKeysOfWorkspace: (workspaceId: string) => `WS#${workspaceId}#APIKEYS`,
  /** Sparse gsi2 partition of active keys that expire, sorted by `<expires_at ISO>#<id>` (the expiry worker's queue). */
  activeKeyExpiryIndex: 'APIKEY#EXPIRY',

  /** A user of an organisation; users live in the organisation's item collection. */
  user: (organisationId: string, userId: string) => ({ pk: `ORG#${organisationId}`, sk: `USER#${userId}` }),
  userSortPrefix: 'USER#',
  /** Claims an e-mail address inside an organisation (lower-cased). */
  userEmail: (organisationId: string, email: string) => ({ pk: `ORG#${organisationId}`, sk: `USEREMAIL#${email.toLowerCase()}` }),
  /** A user's membership of a workspace, in the workspace's item collection. */
  workspaceMember: (workspaceId: string, userId: string) => ({ pk: `WS#${workspaceId}`, sk: `MEMBER#${userId}` }),
  memberSortPrefix: 'MEMBER#',

  /** Audit events of an organisation (base table) and of one workspace (gsi1), sorted by `<at ISO>#<id>`. */
  auditOfOrganisation: (organisationId: string) => `ORG#${organisationId}#AUDIT`,
  auditOfWorkspace: (workspaceId: string) => `WS#${workspaceId}#AUDIT`,

  /** A virtual key's metadata (its credential lives in the SecretStore), under its workspace. */
  virtualKey: (workspaceId: string, virtualKeyId: string) => ({ pk: `WS#${workspaceId}#VIRTUALKEY#${virtualKeyId}`, sk: 'VIRTUALKEY' }),
  virtualKeysOfWorkspace: (workspaceId: string) => `WS#${workspaceId}#VIRTUALKEYS`,
  /** A prompt's head record; its versions share the partition under `VERSION#<zero-padded number>`. */
  prompt: (workspaceId: string, promptId: string) => ({ pk: `WS#${workspaceId}#PROMPT#${promptId}`, sk: 'PROMPT' }),
  promptVersion: (workspaceId: string, promptId: string, version: number) => ({
    pk: `WS#${workspaceId}#PROMPT#${promptId}`,
    sk: `VERSION#${String(version).padStart(10, '0')}`,
  }),
  promptsOfWorkspace: (workspaceId: string) => `WS#${workspaceId}#PROMPTS`,
  /** Policies (rate and usage limits) of a workspace, sorted by `<kind>#<id>`: the gateway loads them in one Query. */
  policiesOfWorkspace: (workspaceId: string) => `WS#${workspaceId}#POLICIES`,
  /** gsi1 partition of every policy of an organisation, sorted by `<kind>#<id>`. */
  policiesOfOrganisation: (organisationId: string) => `ORG#${organisationId}#POLICIES`,
  /** Pointer from a policy id to the workspace holding it, so a policy is found by id alone. */
  policyById: (policyId: string) => ({ pk: `POLICY#${policyId}`, sk: 'POLICY' }),
  /** A registered MCP server (its credential lives in the SecretStore), under its workspace. */
  mcpServer: (workspaceId: string, serverId: string) => ({ pk: `WS#${workspaceId}#MCPSERVER#${serverId}`, sk: 'MCPSERVER' }),
  mcpServersOfWorkspace: (workspaceId: string) => `WS#${workspaceId}#MCPSERVERS`,
  /** Claims an MCP server slug inside a workspace and points to the server's id (`/v1/mcp/<slug>`). */
  mcpServerSlug: (workspaceId: string, slug: string) => ({ pk: `WS#${workspaceId}#MCPSLUG#${slug}`, sk: 'MCPSLUG' }),
  /** Marks a one-time bootstrap, so a restart never creates a second admin key. */
  bootstrapMarker: { pk: 'SYSTEM', sk: 'BOOTSTRAP' },
} as const;
