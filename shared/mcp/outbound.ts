import { Readable } from 'node:stream';
import { GatewayError } from '../http/errors.js';
import { validateCustomHost, type HostRules } from '../gateway/custom-host.js';
import { sendUpstream, type UpstreamResponse } from '../gateway/upstream-client.js';
import type { UpstreamCall } from '../providers/types.js';
import { settings } from '../settings.js';

export type McpHttpMethod = 'GET' | 'POST' | 'DELETE';

export interface McpUpstreamRequest {
  url: string;
  method: McpHttpMethod;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  signal?: AbortSignal;
  /** Connect + response headers; the request default when absent. */
  timeoutMs?: number;
}

function hostRules(): HostRules {
  const current = settings();
  return { allowLoopback: current.GW_ALLOW_LOOPBACK_HOSTS, allowPrivate: current.GW_ALLOW_PRIVATE_HOSTS };
}

/**
 * An MCP server URL checked with the custom-host address rules (http(s) only, no credentials or query in the
 * URL, metadata and link-local addresses always refused, loopback/private only where settings allow). The
 * custom-host check speaks of `x-gw-custom-host`; here the refusal names the `url` field instead.
 */
export function checkedMcpServerUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
    validateCustomHost(`${url.protocol}//${url.host}`, hostRules());
    if (url.username || url.password) throw new Error('must not carry credentials; use auth');
    if (url.search || url.hash) throw new Error('must not carry a query string or fragment; put credentials in auth');
  } catch (error) {
    const reason = (error as Error).message.replace(/^x-gw-custom-host (is not allowed: )?/, '');
    throw new GatewayError(400, 'mcp_server_url_not_allowed', `url is not allowed: ${reason}`, { param: 'url' });
  }
  return url.toString();
}

/**
 * One call to an MCP server through gw's upstream pool, whose connect-time DNS check applies the same address
 * rules to the addresses a hostname resolves to. Errors name the MCP server, not "the provider".
 */
export async function callMcpServer(request: McpUpstreamRequest): Promise<UpstreamResponse> {
  // The upstream client's call type names POST (what providers use); MCP's GET and DELETE go the same way.
  const call = { url: request.url, method: request.method, headers: request.headers, body: request.body } as unknown as UpstreamCall;
  const current = settings();
  try {
    return await sendUpstream(call, {
      timeoutMs: request.timeoutMs ?? current.GW_DEFAULT_REQUEST_TIMEOUT_MS,
      idleTimeoutMs: current.GW_STREAM_IDLE_TIMEOUT_MS,
      signal: request.signal,
    });
  } catch (error) {
    throw mcpUpstreamError(error);
  }
}

function mcpUpstreamError(error: unknown): unknown {
  if (!(error instanceof GatewayError)) return error;
  if (error.code === 'custom_host_not_allowed') {
    return new GatewayError(502, 'mcp_server_address_refused', error.message.replace(/^x-gw-custom-host is not allowed: /, 'The MCP server address is refused: '), { type: 'upstream_error', cause: error });
  }
  if (error.code === 'request_timeout') return new GatewayError(504, 'mcp_server_timeout', 'The MCP server did not answer in time', { type: 'upstream_error', cause: error });
  if (error.code === 'upstream_unreachable') return new GatewayError(502, 'mcp_server_unreachable', error.message.replace('the provider', 'the MCP server'), { type: 'upstream_error', cause: error });
  return error;
}

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/**
 * A `fetch` for the MCP client package, sent through `callMcpServer`, so the metadata handshake follows the
 * same address rules and pool as the gateway's own forwarding.
 */
export function guardedFetch(timeoutMs: number): (input: string | URL, init?: RequestInit) => Promise<Response> {
  return async (input, init = {}) => {
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const method = (init.method ?? 'GET').toUpperCase() as McpHttpMethod;
    const body = typeof init.body === 'string' ? init.body : init.body instanceof Uint8Array ? init.body : undefined;
    const upstream = await callMcpServer({ url: String(input), method, headers, body, signal: init.signal ?? undefined, timeoutMs });
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(upstream.headers)) {
      if (value === undefined) continue;
      for (const item of Array.isArray(value) ? value : [value]) responseHeaders.append(name, item);
    }
    if (NULL_BODY_STATUSES.has(upstream.status)) {
      upstream.body.destroy();
      return new Response(null, { status: upstream.status, headers: responseHeaders });
    }
    const stream = Readable.toWeb(upstream.body as unknown as Readable) as ReadableStream<Uint8Array>;
    return new Response(stream, { status: upstream.status, headers: responseHeaders });
  };
}
