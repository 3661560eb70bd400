/**
 * What gw keeps about a registered MCP server. The credential itself lives only in the SecretStore
 * (`mcp-servers/<workspaceId>/<id>`); this record says only which kind of credential there is.
 */
export type McpAuthType = 'none' | 'bearer' | 'header';

export type McpSyncStatus = 'synced' | 'failed' | 'pending';

export interface McpToolRules {
  /** When present, only these tools are reachable (exact names, or a `prefix*` pattern). */
  allow?: string[];
  /** These tools are never reachable, even when `allow` names them. */
  deny?: string[];
}

/** One tool as the server's `tools/list` described it (kept as sent, so nothing is lost in the cache). */
export interface McpToolDescription {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
  icons?: unknown;
}

/** What the last handshake (`initialize` + `tools/list`) learned. */
export interface McpServerMetadata {
  title?: string;
  description?: string;
  icons?: unknown[];
  server_name?: string;
  server_version?: string;
  website_url?: string;
  protocol_version?: string;
  instructions?: string;
  capabilities?: Record<string, unknown>;
  tools: McpToolDescription[];
}

export interface McpServerRecord {
  id: string;
  organisation_id: string;
  workspace_id: string;
  name: string;
  slug: string;
  url: string;
  auth_type: McpAuthType;
  /** The header a `header` credential is sent in (its value is a secret). */
  auth_header_name?: string;
  tools: McpToolRules;
  metadata?: McpServerMetadata;
  sync_status: McpSyncStatus;
  synced_at?: string;
  /** Why the last sync failed (never a credential). */
  sync_error?: string;
  created_at: string;
  updated_at: string;
}

/** The secret part of a server's auth: the bearer token or the header value. */
export interface McpServerSecret {
  value: string;
}
