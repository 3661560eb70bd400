import { GatewayError } from '../http/errors.js';
import { mcpServerSecretName } from '../store/mcp-server-repository.js';
import type { SecretStore } from '../store/secrets/secret-store.js';
import type { McpServerRecord, McpServerSecret } from './types.js';

/** The server's stored secret; undefined when the server has none (auth `none`). */
export async function readMcpServerSecret(store: SecretStore, workspaceId: string, serverId: string): Promise<McpServerSecret | undefined> {
  const text = await store.get(mcpServerSecretName(workspaceId, serverId));
  if (text === undefined) return undefined;
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed === 'object' && parsed !== null && typeof (parsed as McpServerSecret).value === 'string') return parsed as McpServerSecret;
  } catch {
    // fall through: never quote the text, it is the credential
  }
  throw new GatewayError(503, 'secret_store_unavailable', `The stored credential of MCP server '${serverId}' is unreadable`);
}

export async function writeMcpServerSecret(store: SecretStore, workspaceId: string, serverId: string, secret: McpServerSecret): Promise<void> {
  await store.put(mcpServerSecretName(workspaceId, serverId), JSON.stringify(secret));
}

export async function deleteMcpServerSecret(store: SecretStore, workspaceId: string, serverId: string): Promise<void> {
  await store.delete(mcpServerSecretName(workspaceId, serverId));
}

/** The headers that carry the server's credential upstream (none for auth `none`). */
export function upstreamAuthHeaders(record: Pick<McpServerRecord, 'auth_type' | 'auth_header_name'>, secret: McpServerSecret | undefined): Record<string, string> {
  if (record.auth_type === 'none' || secret === undefined) return {};
  if (record.auth_type === 'bearer') return { authorization: `Bearer ${secret.value}` };
  return record.auth_header_name ? { [record.auth_header_name.toLowerCase()]: secret.value } : {};
}
