import type { z } from 'zod';
import { GatewayError, badRequest } from '../../http/errors.js';
import { jsonResponse, type NeutralRequest } from '../../http/types.js';
import type { ControlPlaneRequest } from '../handler-types.js';
import { audited } from '../audit.js';
import { requireListScope, requireScope } from '../authorization.js';
import { readPageRequest } from '../pagination.js';
import type { RouteRegistrar } from '../handler-types.js';
import { parseJsonBody } from '../validation.js';
import { targetWorkspace } from '../workspaces/access.js';
import { mcpServerCreateSchema, mcpServerUpdateSchema } from './schemas.js';
import { McpServerService } from './service.js';

/**
 * MCP servers: `POST|GET /v1/mcp-servers`, `GET|PATCH|DELETE /v1/mcp-servers/{serverId}` (id or slug) and
 * `GET /v1/mcp-servers/{serverId}/metadata`. Admin keys may name another workspace of their organisation with
 * `?workspace_id=` (or `workspace_id` in a create body). No response ever carries the server's credential.
 */
export function registerMcpServerRoutes(register: RouteRegistrar): void {
  let service: McpServerService | undefined;
  // Built on first use: settings (and so the secret store) are read only once a request arrives.
  const servers = () => (service ??= new McpServerService());
  const workspaceOf = async (call: ControlPlaneRequest, requested?: string) => (await targetWorkspace(call.principal, requested ?? call.request.query.workspace_id)).id;

  register('POST', '/v1/mcp-servers', (call) =>
    audited(call, { action: 'mcp_server.create', resource_type: 'mcp_server' }, async () => {
      requireScope(call.principal, 'mcp_servers:write');
      const body = parseSecretBearingBody(call.request, mcpServerCreateSchema);
      const workspaceId = await workspaceOf(call, body.workspace_id);
      const view = await servers().create(call.principal.organisationId, workspaceId, body);
      return { value: jsonResponse(201, view), resource_id: view.id, workspace_id: workspaceId, details: { name: view.name, slug: view.slug, sync_status: view.sync_status } };
    }),
  );

  register('GET', '/v1/mcp-servers', async (call) => {
    requireListScope(call.principal, 'mcp_servers:read');
    return jsonResponse(200, await servers().list(await workspaceOf(call), readPageRequest(call.request)));
  });

  register('GET', '/v1/mcp-servers/{serverId}', async (call) => {
    requireScope(call.principal, 'mcp_servers:read');
    return jsonResponse(200, await servers().get(await workspaceOf(call), call.params.serverId));
  });

  register('GET', '/v1/mcp-servers/{serverId}/metadata', async (call) => {
    requireScope(call.principal, 'mcp_servers:read');
    const refresh = call.request.query.refresh;
    if (refresh !== undefined && refresh !== 'true' && refresh !== 'false') throw badRequest('invalid_request', 'refresh must be true or false', 'refresh');
    return jsonResponse(200, await servers().metadata(await workspaceOf(call), call.params.serverId, refresh === 'true'));
  });

  register('PATCH', '/v1/mcp-servers/{serverId}', (call) =>
    audited(call, { action: 'mcp_server.update', resource_type: 'mcp_server', resource_id: call.params.serverId }, async () => {
      requireScope(call.principal, 'mcp_servers:write');
      const workspaceId = await workspaceOf(call);
      const body = parseSecretBearingBody(call.request, mcpServerUpdateSchema);
      const view = await servers().update(workspaceId, call.params.serverId, body);
      // Field names only: a credential never reaches the audit log.
      return { value: jsonResponse(200, view), resource_id: view.id, workspace_id: workspaceId, details: { changed: Object.keys(body).sort() } };
    }),
  );

  register('DELETE', '/v1/mcp-servers/{serverId}', (call) =>
    audited(call, { action: 'mcp_server.delete', resource_type: 'mcp_server', resource_id: call.params.serverId }, async () => {
      requireScope(call.principal, 'mcp_servers:write');
      const workspaceId = await workspaceOf(call);
      const deleted = await servers().delete(workspaceId, call.params.serverId);
      return { value: jsonResponse(200, { object: 'mcp_server', id: deleted.id, deleted: true }), resource_id: deleted.id, workspace_id: workspaceId, details: { name: deleted.name } };
    }),
  );
}

/** Like parseJsonBody, but a JSON syntax error is not quoted back: the input may hold a credential. */
function parseSecretBearingBody<Schema extends z.ZodType>(request: NeutralRequest, schema: Schema): z.infer<Schema> {
  try {
    return parseJsonBody(request, schema);
  } catch (error) {
    if (error instanceof GatewayError && error.code === 'invalid_json') throw badRequest('invalid_json', 'The request body is not valid JSON');
    throw error;
  }
}
