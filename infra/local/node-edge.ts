import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { writeBody } from '../../functions/lib/write-body.js';
import type { NeutralRequest, NeutralResponse } from '../../shared/http/types.js';
import { runAsFunction, type RecordedFunction } from '../../shared/store/recording/aws-operation-recorder.js';
import { merged } from '../../shared/merged.js';

type Core = (request: NeutralRequest) => Promise<NeutralResponse>;

export interface NodeEdgeOptions {
  gateway: Core;
  controlPlane: Core;
  /** Which core a path belongs to: the same table API Gateway is built from (shared/gateway/edge-routes.ts). */
  isGatewayPath(path: string): boolean;
  /** GW_MAX_BODY_BYTES: a body past it is cut at one byte more, which the core answers with its 413. */
  maxBodyBytes: number;
  /** Called after a successful policy or workspace change: the gateway in this process enforces it at once. */
  controlPlaneChanged(): void;
  /** Given each request's handler, which can outlive its response: the graceful close waits for it. */
  serving?(work: Promise<void>): void;
}

/** Control-plane changes that invalidate what the gateway in this process keeps about enforcement. */
const ENFORCEMENT_CHANGE = /^\/v1\/(policies|workspaces)(\/|$)/;

/**
 * The local edge: node:http straight to the neutral cores, as functions/lib/ adapts API Gateway events to them
 * (issue #23: no API Gateway event and no Lambda shim on the request path). Each request runs as the function
 * that serves it in AWS, so the test-time recorder attributes its AWS calls to that function's grants.
 */
export function createNodeEdge(options: NodeEdgeOptions): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    // The path decides the core; the query string never does.
    const rawUrl = request.url ?? '/';
    const queryAt = rawUrl.indexOf('?');
    const fn: RecordedFunction = options.isGatewayPath(queryAt < 0 ? rawUrl : rawUrl.slice(0, queryAt)) ? 'gateway' : 'control-plane';
    const core = fn === 'gateway' ? options.gateway : options.controlPlane;
    const work = runAsFunction(fn, () => serve(request, response, core, fn, options)).catch((error: unknown) => failResponse(response, error));
    options.serving?.(work);
  };
}

async function serve(request: IncomingMessage, response: ServerResponse, core: Core, fn: RecordedFunction, options: NodeEdgeOptions): Promise<void> {
  // Aborted when the client goes away before the response ended: the core cancels its upstream call.
  const controller = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) controller.abort(new Error('client closed the connection'));
  });
  const neutral = toNeutralRequest(request, await readBody(request, options.maxBodyBytes + 1), controller.signal);
  const answer = await core(neutral);
  if (fn === 'control-plane' && neutral.method !== 'GET' && neutral.method !== 'HEAD' && answer.status < 300 && ENFORCEMENT_CHANGE.test(neutral.path)) {
    options.controlPlaneChanged();
  }
  if (response.destroyed) return;
  response.writeHead(answer.status, headersFor(answer, neutral.method));
  await writeBody(response, answer.body);
}

/** The neutral request: header names lower-cased and repeats joined with `, `, as the Lambda edge does. */
export function toNeutralRequest(request: IncomingMessage, body: Buffer, signal: AbortSignal): NeutralRequest {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const headers: Record<string, string> = {};
  const raw = request.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    const seen = headers[name];
    headers[name] = seen === undefined ? raw[i + 1] : `${seen}, ${raw[i + 1]}`;
  }
  const query: Record<string, string> = {};
  // A repeated parameter keeps its last value, as API Gateway's queryStringParameters does.
  for (const [name, value] of url.searchParams) query[name] = value;
  return { method: request.method ?? 'GET', path: url.pathname, headers, query, body, sourceIp: request.socket.remoteAddress ?? '127.0.0.1', signal };
}

/**
 * The response headers as the core gave them; a value that is a list (set-cookie) becomes one header line per
 * item. A body known in full gets its content-length, so small answers go out without chunked framing.
 */
function headersFor(answer: NeutralResponse, method: string): OutgoingHttpHeaders {
  const { body, status } = answer;
  if (method === 'HEAD' || status === 204 || status === 304 || answer.headers['content-length'] !== undefined) return answer.headers;
  if (typeof body === 'string') return withContentLength(answer.headers, Buffer.byteLength(body));
  if (body instanceof Uint8Array) return withContentLength(answer.headers, body.byteLength);
  if (body === undefined) return withContentLength(answer.headers, 0);
  return answer.headers;
}

function withContentLength(headers: OutgoingHttpHeaders, length: number): OutgoingHttpHeaders {
  return merged(headers, { 'content-length': length });
}

/** Reads the body, keeping at most `limit` bytes (the rest is read and dropped, so the connection stays usable). */
async function readBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    if (size >= limit) continue;
    const part = chunk.length <= limit - size ? chunk : chunk.subarray(0, limit - size);
    parts.push(part);
    size += part.length;
  }
  return parts.length === 1 ? parts[0] : Buffer.concat(parts, size);
}

/** A failure outside the core's own error handling: a structured 500, never a stack; cut if headers went out. */
function failResponse(response: ServerResponse, error: unknown): void {
  console.error('gw local runtime: request failed', error);
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const body = JSON.stringify({ error: { message: 'gw local runtime failed to serve the request', type: 'api_error', code: 'internal_error', param: null }, status: 'failure' });
  response.writeHead(500, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  response.end(body);
}
