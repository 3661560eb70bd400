import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { ApiKeyAuthenticator } from '../auth/authenticate.js';
import { hasScope, type Principal } from '../auth/principal.js';
import { GatewayError, toGatewayError } from '../http/errors.js';
import { assertJsonNesting } from '../http/json-nesting.js';
import { CUT_AT_SHUTDOWN, isShutdownCut, ShutdownCut } from '../http/shutdown-cut.js';
import { isEventStream, isJsonMediaType } from '../http/media-type.js';
import { jsonResponse, type Handler, type NeutralRequest } from '../http/types.js';
import { runInBackground } from '../observability/background.js';
import { writeRequestLog, type RequestLogRecord } from '../observability/request-log.js';
import { recordHead, UNANSWERED_FIELDS } from '../observability/log-record.js';
import { settings } from '../settings.js';
import { secretStore } from '../store/secrets/secret-store-factory.js';
import { readUpstreamBody, type UpstreamResponse } from '../gateway/upstream-client.js';
import { readMcpServerSecret, upstreamAuthHeaders } from './credentials.js';
import { filterServerMessage, inspectPost, invalidRequestResponse, isJsonRpcBody, parseErrorResponse, type InspectedPost } from './jsonrpc.js';
import { findMcpServer } from './lookup.js';
import { callMcpServer, type McpHttpMethod } from './outbound.js';
import { redact } from '../observability/redact.js';
import { knownRequestCredentials, requestCredentials } from '../observability/request-credentials.js';
import { admitMcpRequest, releaseMcpAdmission } from './metering.js';
import { maskedBody } from './mcp-masking.js';
import { relayServerEvents } from './sse-relay.js';
import { ToolCallSpans } from './tool-call-spans.js';
import type { McpServerRecord, McpServerSecret } from './types.js';

/** Client headers that belong to the MCP conversation and go upstream; nothing else does (least of all gw's key). */
const FORWARDED_REQUEST_HEADERS = ['content-type', 'accept', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id'];
/** Server headers the client needs back. */
const RELAYED_RESPONSE_HEADERS = ['content-type', 'mcp-session-id', 'mcp-protocol-version', 'cache-control'];
const MAX_JSON_RESPONSE_BYTES = 10 * 1024 * 1024;

/** The gw key from `x-gw-api-key`, or from `Authorization: Bearer` (what most MCP clients can be told to send). */
function gwApiKey(request: NeutralRequest): string | undefined {
  return request.headers['x-gw-api-key'] || request.headers.authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
}

/**
 * The MCP gateway, `/v1/mcp/{server}` (id or slug): Streamable HTTP in (POST, GET for the server's event stream,
 * DELETE to end a session), forwarded to the registered server with its stored credential. Denied tools are
 * answered by gw with a JSON-RPC error and hidden from every `tools/list` result, JSON or streamed.
 */
export function mcpGatewayHandler(authenticator: ApiKeyAuthenticator): Handler {
  const secrets = new McpSecretCache();
  return async (request, params) => {
    const startedAt = Date.now();
    const principal = await authenticator.authenticate(gwApiKey(request));
    if (!hasScope(principal, 'mcp:invoke')) throw new GatewayError(403, 'missing_scope', 'This API key lacks the mcp:invoke scope');
    // Before the server lookup: a body too deep to inspect is refused the same way for every server id.
    if (request.method.toUpperCase() === 'POST') assertJsonNesting(request.body.toString('utf8'), 'The request body');
    const server = await findMcpServer(principal.workspaceId, params.server);
    if (!server) throw new GatewayError(404, 'not_found', `No MCP server with id or slug '${params.server.slice(0, 128)}' in this workspace`);
    const traceId = request.headers['x-gw-trace-id'];
    const secret = await secrets.get(server);
    // The server's token is masked by value in this request's log record and in the error the client receives.
    requestCredentials(request).add(secret?.value);
    const upstreamHeaders = { ...forwardedHeaders(request), ...upstreamAuthHeaders(server, secret) };
    const spans = new ToolCallSpans(server);
    const method = request.method.toUpperCase() as McpHttpMethod;

    let inspected: InspectedPost | undefined;
    if (method === 'POST') {
      const limit = settings().GW_MAX_BODY_BYTES;
      if (request.body.length > limit) throw new GatewayError(413, 'body_too_large', `The request body must be at most ${limit} bytes`);
      let body: unknown;
      try {
        body = JSON.parse(request.body.toString('utf8'));
      } catch {
        return jsonResponse(400, parseErrorResponse(), { 'x-gw-trace-id': traceId });
      }
      if (!isJsonRpcBody(body)) return jsonResponse(400, invalidRequestResponse(), { 'x-gw-trace-id': traceId });
      inspected = inspectPost(body, server.tools);
      spans.begin(inspected.toolCalls);
      // Only denied calls: gw answers them itself, the server never hears of them. Denied notifications only:
      // nothing to answer, 202 Accepted as Streamable HTTP answers a POST of notifications.
      if (inspected.forward.length === 0) {
        const accepted = inspected.denied.length === 0;
        logToolCalls(request, principal, server, spans, { traceId, status: accepted ? 202 : 200, stream: false, startedAt });
        if (accepted) return { status: 202, headers: { 'x-gw-trace-id': traceId }, body: undefined };
        return jsonResponse(200, inspected.isBatch ? inspected.denied : inspected.denied[0], { 'x-gw-trace-id': traceId });
      }
    }

    // allowed_request_types and requests policies, before anything is forwarded (metering.ts). What gw answers
    // itself above (a bad body, denied calls only) reaches no server and takes no slot.
    const admission = await admitMcpRequest(request, principal, traceId).catch((error: unknown) => {
      spans.finish(error);
      // A refusal is logged even without tool calls: who was stopped, by which rule.
      logToolCalls(request, principal, server, spans, { traceId, status: toGatewayError(error).status, stream: false, startedAt, refusal: toGatewayError(error) });
      throw error;
    });
    let upstream: UpstreamResponse;
    try {
      const body = inspected ? JSON.stringify(inspected.isBatch ? inspected.forward : inspected.forward[0]) : undefined;
      upstream = await callMcpServer({ url: server.url, method, headers: upstreamHeaders, body, signal: request.signal });
    } catch (error) {
      spans.finish(error);
      logToolCalls(request, principal, server, spans, { traceId, status: error instanceof GatewayError ? error.status : 502, stream: false, startedAt });
      // The server never answered: the request's policy slots go back, as for a chat request no provider answered.
      await releaseMcpAdmission(admission, false, traceId);
      throw error;
    }
    if (upstream.status === 401 || upstream.status === 403) {
      discard(upstream.body);
      spans.finish({ code: 'mcp_server_auth_failed' });
      logToolCalls(request, principal, server, spans, { traceId, status: 502, stream: false, startedAt });
      // Not the caller's 401: its gw key was fine, gw's stored credential for the server was not.
      throw new GatewayError(502, 'mcp_server_auth_failed', `The MCP server refused gw's stored credential (HTTP ${upstream.status}); update the server's auth`, { type: 'upstream_error' });
    }

    const headers = relayedHeaders(upstream, traceId);
    const contentType = headers['content-type'] ?? '';
    const denied = inspected?.denied ?? [];
    const finish = (stream: boolean) => (error?: unknown) => {
      spans.finish(error);
      // A stream cut by the local edge at the drain timeout is logged as such, tool calls or not (issue #42).
      logToolCalls(request, principal, server, spans, { traceId, status: upstream.status, stream, startedAt, cut: isShutdownCut(request.signal) });
    };

    // The server's stored credential never reaches the client, however the server quotes it (an error's message,
    // a 500 page, a tool's failed result): masked by value in every body and event relayed (mcp-masking.ts).
    const known = knownRequestCredentials(request);
    if (isEventStream(contentType)) {
      const events = relayServerEvents(upstream.body, server.tools, (responses) => spans.settle(responses), finish(true), known);
      return { status: upstream.status, headers, body: withLeadingEvents(denied, events, method === 'GET') };
    }
    const raw = await readUpstreamBody(upstream.body, MAX_JSON_RESPONSE_BYTES);
    const body = maskedBody(isJsonMediaType(contentType) && raw.length > 0 ? filteredJson(raw, server, spans, denied) : raw, known);
    finish(false)();
    return { status: upstream.status, headers, body };
  };
}

/** Drops an upstream body gw will not read; the abort error that follows has nobody to tell. */
export function discard(body: UpstreamResponse['body']): void {
  (body as unknown as { on?: (event: string, listener: () => void) => void }).on?.('error', () => undefined);
  body.destroy();
}

function forwardedHeaders(request: NeutralRequest): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of FORWARDED_REQUEST_HEADERS) if (request.headers[name]) headers[name] = request.headers[name];
  return headers;
}

function relayedHeaders(upstream: UpstreamResponse, traceId: string): Record<string, string> {
  const headers: Record<string, string> = { 'x-gw-trace-id': traceId };
  for (const name of RELAYED_RESPONSE_HEADERS) {
    const value = upstream.headers[name];
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

/** A JSON answer with denied tools hidden; gw's own answers to denied calls of a batch are added to it. */
function filteredJson(raw: Buffer, server: McpServerRecord, spans: ToolCallSpans, denied: unknown[]): string | Buffer {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    return raw;
  }
  const { message, changed, responses } = filterServerMessage(parsed, server.tools);
  spans.settle(responses);
  if (denied.length > 0) return JSON.stringify([...(Array.isArray(message) ? message : [message]), ...denied]);
  return changed ? JSON.stringify(message) : raw;
}

/**
 * gw's answers to the denied calls of a batch go first in the stream, then the server's events. A GET stream
 * starts with an SSE comment (ignored by every client): a server may stay silent for minutes, and the edges
 * send the response head only with the first body bytes.
 */
async function* withLeadingEvents(denied: unknown[], events: AsyncIterable<Uint8Array>, openWithComment: boolean): AsyncGenerator<Uint8Array> {
  const encoder = new TextEncoder();
  if (openWithComment) yield encoder.encode(': gw relaying the MCP server event stream\n\n');
  for (const answer of denied) yield encoder.encode(`event: message\ndata: ${JSON.stringify(answer)}\n\n`);
  yield* events;
}

interface LogFacts {
  traceId: string;
  status: number;
  stream: boolean;
  startedAt: number;
  /** gw refused the request before forwarding it (a policy, a guardrail): logged with or without tool calls. */
  refusal?: GatewayError;
  /** Cut at shutdown (the drain timeout): logged with or without tool calls, as `cut_at_shutdown`. */
  cut?: boolean;
}

/** A request with tool calls, or one gw refused, is logged like a gateway request, its spans (one per call) attached. */
function logToolCalls(request: object, principal: Principal, server: McpServerRecord, spans: ToolCallSpans, facts: LogFacts): void {
  if (spans.count === 0 && !facts.refusal && !facts.cut) return;
  const failedSpan = spans.spans.find((span) => span.status === 'error');
  const refusal = facts.refusal ?? (facts.cut ? cutAtShutdown() : undefined);
  const failed = facts.status >= 400 || failedSpan !== undefined || facts.cut === true;
  const record: RequestLogRecord = {
    ...recordHead(randomUUID(), facts.traceId, spans.rootSpanId, new Date(facts.startedAt).toISOString(), principal),
    virtual_key_id: null,
    endpoint: 'mcp',
    provider: 'mcp',
    model: spans.toolNames() || null,
    status: facts.status,
    latency_ms: Date.now() - facts.startedAt,
    ...UNANSWERED_FIELDS,
    metadata: { mcp_server_id: server.id, mcp_server_slug: server.slug },
    error: refusal
      ? { type: refusal.type, code: refusal.code, message: refusal.message }
      : failedSpan?.error
        ? { type: failedSpan.error.type ?? null, code: failedSpan.error.code ?? null, message: failedSpan.error.message ?? null }
        : null,
    stream: facts.stream,
    outcome: failed ? 'error' : 'success',
    attempts: [],
    spans: spans.spans,
    request_body: null,
    response_body: null,
    ...(facts.cut ? { error_code: CUT_AT_SHUTDOWN } : {}),
  };
  // Redacted where the record is built, like every gateway record (shared/observability/redact.ts).
  runInBackground('mcp request log', () => writeRequestLog(redact(record, knownRequestCredentials(request))));
}

/**
 * Server credentials, kept in memory briefly (GW_VIRTUAL_KEY_CACHE_TTL_MS, like virtual keys) so a busy MCP
 * session does not read the secret store on every message. Keyed by the record's `updated_at`, so a changed
 * credential is read again at once in this process.
 */
class McpSecretCache {
  private readonly cache = new LRUCache<string, { secret: McpServerSecret | undefined }>({ max: 1_000, ttl: Math.max(1, settings().GW_VIRTUAL_KEY_CACHE_TTL_MS) });

  async get(server: McpServerRecord): Promise<McpServerSecret | undefined> {
    if (server.auth_type === 'none') return undefined;
    const key = `${server.workspace_id}/${server.id}/${server.updated_at}`;
    const hit = this.cache.get(key);
    if (hit) return hit.secret;
    const secret = await readMcpServerSecret(secretStore(), server.workspace_id, server.id);
    if (settings().GW_VIRTUAL_KEY_CACHE_TTL_MS > 0) this.cache.set(key, { secret });
    return secret;
  }
}

/** The error a record of an MCP stream cut at shutdown carries (the client got it as the stream's last event). */
function cutAtShutdown(): GatewayError {
  return new GatewayError(503, CUT_AT_SHUTDOWN, new ShutdownCut().message, { type: 'api_error' });
}
