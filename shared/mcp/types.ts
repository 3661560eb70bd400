// The stored shape of a registered MCP server lives with its repository (the store sits below the MCP gateway);
// the MCP modules speak of it under these names.
export type { McpAuthType, McpServerMetadata, McpServerRecord, McpServerSecret, McpSyncStatus, McpToolDescription, McpToolRules } from '../store/mcp-server-record.js';
