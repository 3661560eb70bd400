import { McpServerRepository } from '../store/mcp-server-repository.js';
import type { McpServerRecord } from './types.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SLUG = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/**
 * A server of the workspace by id or slug (slugs are never UUID-shaped, so the two cannot be confused);
 * undefined when the workspace has none by that name, whether another workspace has one or not.
 */
export async function findMcpServer(workspaceId: string, idOrSlug: string, repository = new McpServerRepository()): Promise<McpServerRecord | undefined> {
  if (UUID.test(idOrSlug)) return repository.get(workspaceId, idOrSlug);
  if (!SLUG.test(idOrSlug)) return undefined;
  const id = await repository.idBySlug(workspaceId, idOrSlug);
  return id === undefined ? undefined : repository.get(workspaceId, id);
}
