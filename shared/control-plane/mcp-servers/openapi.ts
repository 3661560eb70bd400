// Documentation only: read by scripts/openapi.ts to write docs/openapi.yaml, never imported by a handler.
// The MCP gateway's routes (served by the gateway, shared/mcp/); the /v1/mcp-servers routes derive from resource.ts.
import type { OpenApiOperation } from '../openapi-operation.js';
import { jsonRpcMessageSchema, mcpGatewayPathSchema } from './schemas.js';

const SESSION_HEADERS = [
  { name: 'mcp-session-id', description: 'The MCP session, as the server assigned it on initialize (relayed both ways).' },
  { name: 'mcp-protocol-version', description: 'The negotiated MCP protocol version (relayed).' },
];

export const openApiOperations: OpenApiOperation[] = [
  {
    method: 'post',
    path: '/v1/mcp/{server}',
    operationId: 'mcpGatewayPost',
    summary: 'MCP gateway: send JSON-RPC messages (Streamable HTTP)',
    description:
      'Forwarded to the registered server with its stored credential. The gw key comes as x-gw-api-key or Authorization: Bearer. A tools/call of a denied tool is answered by gw with JSON-RPC error -32602 (a denied tools/call notification, without an id, is dropped unanswered); denied tools are removed from every tools/list result. Before forwarding, the guardrail allowed_request_types (request type `mcp`) and the workspace’s requests policies apply: 400 guardrail_violation, 429 rate_limit_exceeded. Each tools/call is recorded as a span of the request’s trace.',
    tags: ['MCP gateway'],
    scopes: ['mcp:invoke'],
    pathParameters: mcpGatewayPathSchema,
    body: jsonRpcMessageSchema,
    responses: {
      '200': { description: 'The server’s answer, as JSON or as an SSE stream.', schema: jsonRpcMessageSchema, alternatives: [{ contentType: 'text/event-stream', schema: jsonRpcMessageSchema }], headers: SESSION_HEADERS },
      '202': { description: 'Notifications and responses only (or denied tools/call notifications only): accepted.' },
    },
    errors: [400, 401, 403, 404, 429, 502, 504],
  },
  {
    method: 'get',
    path: '/v1/mcp/{server}',
    operationId: 'mcpGatewayStream',
    summary: 'MCP gateway: the server’s event stream',
    tags: ['MCP gateway'],
    scopes: ['mcp:invoke'],
    pathParameters: mcpGatewayPathSchema,
    responses: { '200': { description: 'Server-sent events, relayed event by event.', contentType: 'text/event-stream', schema: jsonRpcMessageSchema } },
    errors: [400, 401, 403, 404, 405, 429, 502],
  },
  {
    method: 'delete',
    path: '/v1/mcp/{server}',
    operationId: 'mcpGatewayEndSession',
    summary: 'MCP gateway: end the session',
    tags: ['MCP gateway'],
    scopes: ['mcp:invoke'],
    pathParameters: mcpGatewayPathSchema,
    responses: { '200': { description: 'The server ended the session.' } },
    errors: [400, 401, 403, 404, 405, 429, 502],
  },
];
