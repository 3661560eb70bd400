import { isToolAllowed, visibleTools } from './tool-rules.js';
import type { McpToolRules } from './types.js';

/** JSON-RPC's "invalid params": what MCP servers answer for an unknown tool, so clients treat a denied one alike. */
export const TOOL_DENIED_CODE = -32602;
export const PARSE_ERROR_CODE = -32700;

type JsonRpcId = string | number | null;

export interface JsonRpcErrorResponse {
  jsonrpc: '2.0';
  id: JsonRpcId;
  error: { code: number; message: string; data?: unknown };
}

export interface ToolCall {
  /** Undefined for a notification (a `tools/call` without an id): it gets no answer, but obeys the same rules. */
  id?: JsonRpcId;
  name: string;
}

/** A POST body from an MCP client, split into what goes upstream and what gw answers itself. */
export interface InspectedPost {
  isBatch: boolean;
  /** Messages to forward (everything except denied tool calls). */
  forward: unknown[];
  /** gw's own answers to the denied tool calls (none for a denied notification: JSON-RPC answers no notification). */
  denied: JsonRpcErrorResponse[];
  /** Every `tools/call` request, allowed or not, in order. */
  toolCalls: Array<ToolCall & { allowed: boolean }>;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A `tools/call` message's id and tool name, or undefined for any other message. A call without an id (a
 * notification) is a tool call too: a server may run it, so the tool rules decide whether it is forwarded.
 */
function toolCallOf(message: unknown): ToolCall | undefined {
  if (!isObject(message) || message.method !== 'tools/call') return undefined;
  const name = isObject(message.params) ? message.params.name : undefined;
  return { id: 'id' in message ? (message.id as JsonRpcId) : undefined, name: typeof name === 'string' ? name : '' };
}

/** Splits a parsed POST body (one message or a batch) by the server's allow/deny rules. */
export function inspectPost(body: unknown, rules: McpToolRules): InspectedPost {
  const isBatch = Array.isArray(body);
  const messages = isBatch ? (body as unknown[]) : [body];
  const inspected: InspectedPost = { isBatch, forward: [], denied: [], toolCalls: [] };
  for (const message of messages) {
    const call = toolCallOf(message);
    if (call && !isToolAllowed(rules, call.name)) {
      inspected.toolCalls.push({ ...call, allowed: false });
      // A denied notification is dropped: never forwarded, and (as JSON-RPC says) not answered.
      if (call.id === undefined) continue;
      inspected.denied.push({
        jsonrpc: '2.0',
        id: call.id ?? null,
        error: { code: TOOL_DENIED_CODE, message: `Tool '${call.name}' is not available through this gateway`, data: { reason: 'tool_denied' } },
      });
      continue;
    }
    if (call) inspected.toolCalls.push({ ...call, allowed: true });
    inspected.forward.push(message);
  }
  return inspected;
}

/** JSON-RPC's code for a body that is JSON but no request: not an object, or a batch that is empty or holds non-objects. */
export const INVALID_REQUEST_CODE = -32600;

/**
 * Whether a parsed POST body is a JSON-RPC message or batch: an object, or a non-empty array of objects. Anything
 * else (`null`, a number, a string, `[]`, `[1]`) is answered by gw with 400 and never reaches the server, which
 * might otherwise crash on it or treat it in a way its authors never tested.
 */
export function isJsonRpcBody(body: unknown): boolean {
  return Array.isArray(body) ? body.length > 0 && body.every(isJsonRpcMessage) : isJsonRpcMessage(body);
}

/**
 * A JSON-RPC 2.0 message a client may send: `"jsonrpc": "2.0"` and either a request or notification (a string
 * `method`) or a response to the server's request (`result` or `error`). Anything else (`{}`, a 1.0 message, a
 * numeric method) is gw's to refuse, not the server's to interpret.
 */
function isJsonRpcMessage(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const message = value as Record<string, unknown>;
  return message.jsonrpc === '2.0' && (typeof message.method === 'string' || 'result' in message || 'error' in message);
}

export function invalidRequestResponse(): JsonRpcErrorResponse {
  return { jsonrpc: '2.0', id: null, error: { code: INVALID_REQUEST_CODE, message: 'Invalid Request: the body must be a JSON-RPC object or a non-empty array of them' } };
}

export function parseErrorResponse(): JsonRpcErrorResponse {
  return { jsonrpc: '2.0', id: null, error: { code: PARSE_ERROR_CODE, message: 'Parse error: the body is not JSON' } };
}

/** What a server's message says about a request: its id, and whether it failed. */
export interface ResponseOutcome {
  id: JsonRpcId;
  failed: boolean;
}

/**
 * Hides the tools the rules deny from every `tools/list` result in a server message (one message or a batch),
 * and reports the responses it saw, so tool-call spans can end with their outcome. `changed` is false when the
 * message needed no rewrite.
 */
export function filterServerMessage(message: unknown, rules: McpToolRules): { message: unknown; changed: boolean; responses: ResponseOutcome[] } {
  const responses: ResponseOutcome[] = [];
  let changed = false;
  const filterOne = (one: unknown): unknown => {
    if (!isObject(one) || !('id' in one) || (!('result' in one) && !('error' in one))) return one;
    const result = one.result;
    responses.push({ id: one.id as JsonRpcId, failed: 'error' in one || (isObject(result) && result.isError === true) });
    if (!isObject(result) || !Array.isArray(result.tools)) return one;
    const tools = visibleTools(rules, result.tools);
    if (tools.length === result.tools.length) return one;
    changed = true;
    return { ...one, result: { ...result, tools } };
  };
  const filtered = Array.isArray(message) ? message.map(filterOne) : filterOne(message);
  return { message: filtered, changed, responses };
}
