import * as z from 'zod';
import { headerCredentialText } from '../header-credential.js';
import { workspaceListQuerySchema, workspaceQuerySchema } from '../query-schemas.js';
import { resourceDeletedSchema, resourceIdPathSchema, resourceListSchema } from '../resource/schema-helpers.js';

/**
 * Bodies and responses of /v1/mcp-servers. The auth block's secret (a bearer token or a header value) goes to the
 * secret store and is never returned: reads carry only its type (and header name).
 */

const text = (max: number) => z.string().min(1).max(max);

/** Lower-case letters, digits, `-` and `_`; never UUID-shaped, so `/v1/mcp/<id or slug>` is never ambiguous. */
export const mcpServerSlugSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, 'must be 1-63 lower-case letters, digits, - or _, starting with a letter or digit')
  .refine((slug) => !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(slug), 'must not look like a server id (a UUID)')
  .meta({ description: 'Names the server in gw’s MCP gateway URL, /v1/mcp/<slug>; unique in the workspace. Derived from the name when absent.' });

/** Headers gw sets itself or that would break the forwarding; a `header` credential may not use them. */
const RESERVED_HEADERS = new Set(['host', 'content-length', 'content-type', 'accept', 'connection', 'transfer-encoding', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id', 'x-gw-api-key']);

export const mcpServerAuthSchema = z
  .discriminatedUnion('type', [
    z.strictObject({ type: z.literal('none') }),
    z.strictObject({ type: z.literal('bearer'), token: headerCredentialText(16_384).meta({ description: 'Sent upstream as Authorization: Bearer <token>. Stored in the secret store; never returned.' }) }),
    z.strictObject({
      type: z.literal('header'),
      name: z
        .string()
        .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}$/, 'must be an HTTP header name')
        .refine((name) => !RESERVED_HEADERS.has(name.toLowerCase()), 'is a header gw sets itself')
        .meta({ description: 'The header the credential is sent in, e.g. x-api-key.' }),
      value: headerCredentialText(16_384).meta({ description: 'The header’s value. Stored in the secret store; never returned.' }),
    }),
  ])
  .meta({ id: 'McpServerAuth', description: 'How gw authenticates to the server. Defaults to none.' });

export const mcpToolRulesSchema = z
  .strictObject({
    allow: z.array(text(256)).max(500).optional().meta({ description: 'Only these tools are reachable (exact names, or prefix* patterns).' }),
    deny: z.array(text(256)).max(500).optional().meta({ description: 'These tools are never reachable, even when allow names them.' }),
  })
  .meta({ id: 'McpToolRules' });

const urlSchema = z.url({ protocol: /^https?$/ }).max(2048).meta({ description: 'The server’s Streamable HTTP endpoint. Checked with the custom-host address rules.' });

export const mcpServerCreateSchema = z
  .strictObject({
    name: text(255),
    slug: mcpServerSlugSchema.optional(),
    url: urlSchema,
    auth: mcpServerAuthSchema.optional(),
    tools: mcpToolRulesSchema.optional(),
    workspace_id: text(128).optional().meta({ description: 'Another workspace of the organisation, by id or slug (organisation admin keys only).' }),
  })
  .meta({ id: 'McpServerCreate' });

/** Every field optional; `auth` replaces the stored credential, `tools: null` removes the rules. */
export const mcpServerUpdateSchema = z
  .strictObject({
    name: text(255).optional(),
    slug: mcpServerSlugSchema.optional(),
    url: urlSchema.optional(),
    auth: mcpServerAuthSchema.optional(),
    tools: mcpToolRulesSchema.nullable().optional(),
  })
  .refine((body) => Object.keys(body).length > 0, 'send at least one field to change')
  .meta({ id: 'McpServerUpdate' });

export const mcpSyncStatusSchema = z.enum(['synced', 'failed', 'pending']).meta({ description: 'Outcome of the last handshake with the server.' });

const serverDescription = {
  title: z.string().optional(),
  description: z.string().optional(),
  icons: z.array(z.unknown()).optional(),
  server_name: z.string().optional(),
  server_version: z.string().optional(),
  protocol_version: z.string().optional(),
  sync_status: mcpSyncStatusSchema,
  synced_at: z.string().optional().meta({ description: 'When the last handshake was attempted.' }),
  error: z.string().optional().meta({ description: 'Why the last handshake failed.' }),
};

export const mcpServerSchema = z
  .object({
    object: z.literal('mcp_server'),
    id: z.string(),
    workspace_id: z.string(),
    name: z.string(),
    slug: z.string(),
    url: z.string(),
    auth: z.object({ type: z.enum(['none', 'bearer', 'header']), name: z.string().optional() }).meta({ description: 'The credential’s kind only; its value is never returned.' }),
    tools: mcpToolRulesSchema,
    gateway_path: z.string().meta({ description: 'Where MCP clients reach the server through gw: /v1/mcp/<slug>.' }),
    ...serverDescription,
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'McpServer' });

export const mcpToolSchema = z
  .looseObject({
    name: z.string(),
    title: z.string().optional(),
    description: z.string().optional(),
    inputSchema: z.unknown().optional(),
    allowed: z.boolean().meta({ description: 'Whether the allow/deny rules let MCP clients see and call the tool through gw.' }),
  })
  .meta({ id: 'McpTool' });

export const mcpServerMetadataSchema = z
  .object({
    object: z.literal('mcp_server_metadata'),
    id: z.string(),
    ...serverDescription,
    website_url: z.string().optional(),
    instructions: z.string().optional(),
    capabilities: z.record(z.string(), z.unknown()).optional(),
    tools: z.array(mcpToolSchema),
  })
  .meta({ id: 'McpServerMetadata' });

export const mcpServerDeletedSchema = resourceDeletedSchema('mcp_server', 'McpServerDeleted');

export const mcpServerListSchema = resourceListSchema(mcpServerSchema, 'McpServerList');

export const mcpServerIdPathSchema = resourceIdPathSchema('serverId', 'The MCP server id (or its slug).');
export const mcpServerWorkspaceQuerySchema = workspaceQuerySchema;
export const mcpServerListQuerySchema = workspaceListQuerySchema;
export const mcpServerMetadataQuerySchema = workspaceQuerySchema.extend({
  refresh: z.enum(['true', 'false']).optional().meta({ description: 'true: run the handshake again now instead of answering from the cache.' }),
});

export type McpServerCreate = z.infer<typeof mcpServerCreateSchema>;
export type McpServerUpdate = z.infer<typeof mcpServerUpdateSchema>;
export type McpServerView = z.infer<typeof mcpServerSchema>;
export type McpServerMetadataView = z.infer<typeof mcpServerMetadataSchema>;
export type McpServerAuth = z.infer<typeof mcpServerAuthSchema>;

/** The MCP gateway's path parameter and its JSON-RPC bodies (documentation: gw relays them, see docs/mcp.md). */
export const mcpGatewayPathSchema = z.object({ server: z.string().meta({ description: 'The MCP server id or slug (of the caller’s workspace).' }) });

export const jsonRpcMessageSchema = z
  .looseObject({ jsonrpc: z.literal('2.0'), id: z.union([z.string(), z.number(), z.null()]).optional(), method: z.string().optional() })
  .meta({ id: 'JsonRpcMessage', description: 'An MCP JSON-RPC message (request, notification or response), or a batch of them.' });
