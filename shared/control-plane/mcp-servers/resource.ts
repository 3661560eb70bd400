import { badRequest } from '../../http/errors.js';
import { jsonResponse } from '../../http/types.js';
import { requireScope } from '../authorization.js';
import { defineResource, readWriteScopes } from '../resource/define-resource.js';
import {
  mcpServerCreateSchema,
  mcpServerDeletedSchema,
  mcpServerIdPathSchema,
  mcpServerListQuerySchema,
  mcpServerListSchema,
  mcpServerMetadataQuerySchema,
  mcpServerMetadataSchema,
  mcpServerSchema,
  mcpServerUpdateSchema,
  mcpServerWorkspaceQuerySchema,
} from './schemas.js';
import { McpServerService, toView } from './service.js';

const TAG = 'MCP servers';
const NEVER_RETURNED = 'The credential goes to the secret store and is never returned by any API.';
const METADATA_PATH = '/v1/mcp-servers/{serverId}/metadata';

/**
 * MCP servers: `POST|GET /v1/mcp-servers`, `GET|PATCH|DELETE /v1/mcp-servers/{serverId}` (id or slug) and, by hand,
 * `GET /v1/mcp-servers/{serverId}/metadata`. Admin keys may name another workspace of their organisation with
 * `?workspace_id=` (or `workspace_id` in a create body). No response ever carries the server's credential.
 */
export const mcpServerResource = defineResource({
  kind: 'mcp_server',
  path: '/v1/mcp-servers',
  names: { singular: 'MCP server', plural: 'MCP servers' },
  tag: TAG,
  scopes: readWriteScopes('mcp_servers'),
  workspace: 'query-or-body',
  secretBearingBody: true,
  schemas: {
    create: mcpServerCreateSchema,
    update: mcpServerUpdateSchema,
    view: mcpServerSchema,
    list: mcpServerListSchema,
    deleted: mcpServerDeletedSchema,
    idPath: mcpServerIdPathSchema,
    listQuery: mcpServerListQuerySchema,
    workspaceQuery: mcpServerWorkspaceQuerySchema,
  },
  service: () => new McpServerService(),
  present: toView,
  audit: {
    created: (record) => ({ name: record.name, slug: record.slug, sync_status: record.sync_status }),
    deleted: (record) => ({ name: record.name }),
  },
  errors: { conflict: true, secretStore: true },
  docs: {
    create: {
      summary: 'Register an MCP server',
      description: `Runs the MCP handshake (initialize + tools/list) at once: sync_status says whether gw reached the server. The URL follows the custom-host address rules. ${NEVER_RETURNED}`,
      response: 'The server (credential masked).',
    },
    list: {
      summary: 'List MCP servers',
      description: 'The workspace’s servers, newest first, with title, description, icons, server name and version, protocol version and sync status.',
      response: 'One page of servers.',
    },
    get: { summary: 'Get an MCP server', description: `By id or slug; another workspace’s server is a 404. ${NEVER_RETURNED}`, response: 'The server.' },
    update: {
      summary: 'Update an MCP server',
      description: 'auth replaces the stored credential; tools: null removes the rules. A new url or auth (or a server not synced) runs the handshake again.',
      response: 'The updated server.',
    },
    delete: { summary: 'Delete an MCP server and its stored credential' },
  },
  extraRoutes: (register, { service, scopeOf }) => {
    register('GET', METADATA_PATH, async (call) => {
      requireScope(call.principal, 'mcp_servers:read');
      const refresh = call.request.query.refresh;
      if (refresh !== undefined && refresh !== 'true' && refresh !== 'false') throw badRequest('invalid_request', 'refresh must be true or false', 'refresh');
      const { workspaceId } = await scopeOf(call);
      return jsonResponse(200, await service().metadata(workspaceId, call.params.serverId, refresh === 'true'));
    });
  },
  extraOperations: [
    {
      method: 'get',
      path: METADATA_PATH,
      operationId: 'getMcpServerMetadata',
      summary: 'Get an MCP server’s metadata',
      description: 'What the server’s own initialize and tools/list said, cached; ?refresh=true runs the handshake again. Each tool says whether the allow/deny rules let clients reach it.',
      tags: [TAG],
      scopes: ['mcp_servers:read'],
      pathParameters: mcpServerIdPathSchema,
      query: mcpServerMetadataQuerySchema,
      responses: { '200': { description: 'The metadata.', schema: mcpServerMetadataSchema } },
      errors: [400, 401, 403, 404],
    },
  ],
});
