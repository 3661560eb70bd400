import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { writeBody } from '../../functions/lib/write-body.js';
import { isStreamBody, type NeutralRequest, type NeutralResponse } from '../../shared/http/types.js';
import { cutAtShutdownError, cutAtShutdownEvent, ShutdownCut } from '../../shared/http/shutdown-cut.js';
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
  serving?(work: Promise<void>, response: ServerResponse): void;
  /**
   * Aborted when the graceful close gives up waiting (the drain timeout): every request still running is cut, once:
   * its signal aborts with ShutdownCut (the upstream call stops, the log says `cut_at_shutdown`), a stream ends with
   * an explicit SSE error event, and a request not yet answered gets a 503.
   */
  shutdown?: AbortSignal;
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
    options.serving?.(work, response);
  };
}

async function serve(request: IncomingMessage, response: ServerResponse, core: Core, fn: RecordedFunction, options: NodeEdgeOptions): Promise<void> {
  // Aborted when the client goes away before the response ended: the core cancels its upstream call.
  const controller = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) controller.abort(new Error('client closed the connection'));
  });
  const { shutdown } = options;
  const cut = () => {
    controller.abort(new ShutdownCut());
    // Not answered yet: say so now (the core, its upstream call aborted, answers into a response already sent).
    if (!response.headersSent && !response.destroyed) answerCut(response);
  };
  shutdown?.addEventListener('abort', cut, { once: true });
  try {
    const neutral = toNeutralRequest(request, await readBody(request, options.maxBodyBytes + 1), controller.signal);
    const answer = await core(neutral);
    if (fn === 'control-plane' && neutral.method !== 'GET' && neutral.method !== 'HEAD' && answer.status < 300 && ENFORCEMENT_CHANGE.test(neutral.path)) {
      options.controlPlaneChanged();
    }
    if (response.destroyed || response.headersSent) {
      await discard(answer.body);
      return;
    }
    response.writeHead(answer.status, headersFor(answer, neutral.method));
    const sse = String(answer.headers['content-type'] ?? '').startsWith('text/event-stream');
    // Cut at shutdown: an SSE stream's last words are an error event; any other body can only be cut short.
    await writeBody(response, answer.body, shutdown ? { stop: shutdown, last: sse ? cutAtShutdownEvent : undefined } : {});
    if (shutdown?.aborted && !sse && !response.writableFinished) response.destroy();
  } finally {
    shutdown?.removeEventListener('abort', cut);
  }
}

/**
 * An answer that will never be written. A stream is started and returned: a generator returned before its first
 * read skips its cleanup, and that cleanup ends the upstream call and writes the request's log record.
 */
async function discard(body: NeutralResponse['body']): Promise<void> {
  if (!isStreamBody(body)) return;
  const iterator = body[Symbol.asyncIterator]();
  await iterator.next().catch(() => undefined);
  await Promise.resolve(iterator.return?.()).catch(() => undefined);
}

function answerCut(response: ServerResponse): void {
  const body = JSON.stringify(cutAtShutdownError());
  response.writeHead(503, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'retry-after': '1', connection: 'close' });
  response.end(body);
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
