import { pipeline, type Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { BodyIdleTimeoutError, HttpPool } from './http-pool.js';
import { GatewayError } from '../http/errors.js';
import type { UpstreamCall } from '../providers/types.js';
import { settings } from '../settings.js';
import type { HostRules } from './custom-host.js';
import { checkedLookup, RefusedAddressError } from './checked-lookup.js';
import { inSubsegment } from '../observability/tracer.js';

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** `dump` reads what is left so the connection goes back to the pool; `destroy` drops the connection. */
  body: AsyncIterable<Uint8Array> & { destroy(error?: Error): unknown; dump?(options?: { limit?: number }): Promise<unknown> };
}

export interface UpstreamCallOptions {
  /** Connect + first byte (response headers). */
  timeoutMs: number;
  /** Longest gap between two body chunks. */
  idleTimeoutMs: number;
  /** The client went away. */
  signal?: AbortSignal;
}

let pool: HttpPool | undefined;

/**
 * One keep-alive pool per process, a pool per upstream origin inside it, reused across requests and warm Lambda
 * invocations. Every connection resolves its host through the custom-host address rules, so a hostname that
 * resolves to a metadata or (where refused) private address is never connected to. Connect, first byte and the
 * whole call are bounded by gw's own timers (see sendUpstream), never by a fixed connect timeout that would cut a
 * long x-gw-request-timeout short.
 */
function upstreamPool(): HttpPool {
  if (pool) return pool;
  const rules: HostRules = { allowLoopback: settings().GW_ALLOW_LOOPBACK_HOSTS, allowPrivate: settings().GW_ALLOW_PRIVATE_HOSTS };
  pool = new HttpPool({
    maxSocketsPerOrigin: settings().GW_UPSTREAM_MAX_SOCKETS_PER_ORIGIN,
    idleSocketMs: 30_000,
    lookup: checkedLookup(() => rules, (hostname, refusal) => `${hostname} resolves to a refused address: ${refusal}`),
  });
  return pool;
}

/**
 * One upstream call, returning once response headers arrived (the body is left to the caller); an X-Ray
 * subsegment from connect to first byte when tracing is on.
 */
export function sendUpstream(call: UpstreamCall, options: UpstreamCallOptions): Promise<UpstreamResponse> {
  return inSubsegment('upstream', () => sendUpstreamUntraced(call, options));
}

async function sendUpstreamUntraced(call: UpstreamCall, options: UpstreamCallOptions): Promise<UpstreamResponse> {
  const controller = new AbortController();
  let reason: 'timeout' | 'client' | 'ceiling' | undefined;
  const abort = (why: typeof reason) => {
    reason ??= why;
    controller.abort();
  };
  const onClientAbort = () => abort('client');
  if (options.signal?.aborted) throw clientClosed();
  options.signal?.addEventListener('abort', onClientAbort, { once: true });
  const firstByteTimer = setTimeout(() => abort('timeout'), options.timeoutMs);
  const ceilingTimer = setTimeout(() => abort('ceiling'), settings().GW_UPSTREAM_MAX_DURATION_MS);
  ceilingTimer.unref();
  const release = () => {
    clearTimeout(ceilingTimer);
    options.signal?.removeEventListener('abort', onClientAbort);
  };
  try {
    const response = await upstreamPool().request(call.url, {
      method: call.method ?? 'POST',
      headers: call.headers,
      body: call.body,
      signal: controller.signal,
      bodyIdleTimeoutMs: options.idleTimeoutMs,
    });
    clearTimeout(firstByteTimer);
    response.body.once('close', release);
    return { status: response.statusCode, headers: withoutFraming(response.headers), body: decodedBody(response.body, response.headers['content-encoding']) };
  } catch (error) {
    clearTimeout(firstByteTimer);
    release();
    if (error instanceof GatewayError) throw error;
    throw translateUpstreamError(error, reason, options.timeoutMs);
  }
}

function translateUpstreamError(error: unknown, reason: string | undefined, timeoutMs: number): GatewayError {
  if (reason === 'client') return clientClosed();
  if (reason === 'timeout' || reason === 'ceiling') {
    return new GatewayError(408, 'request_timeout', `The provider did not answer within ${timeoutMs} ms (request timeout)`, { cause: error, upstream: true });
  }
  const cause = findCause(error);
  if (cause instanceof RefusedAddressError) {
    return new GatewayError(400, 'custom_host_not_allowed', `x-gw-custom-host is not allowed: ${cause.message}`, { param: 'x-gw-custom-host', cause: error });
  }
  const code = (cause as { code?: string } | undefined)?.code;
  const detail = code ? ` (${code})` : '';
  return new GatewayError(502, 'upstream_unreachable', `Could not reach the provider${detail}`, { type: 'upstream_error', cause: error, upstream: true });
}

function findCause(error: unknown): unknown {
  let current = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (current instanceof RefusedAddressError) return current;
    if ((current as { code?: string }).code) return current;
    if (!current.cause) return current;
    current = current.cause;
  }
  return current;
}

export function clientClosed(): GatewayError {
  return new GatewayError(499, 'client_closed_request', 'The client closed the request');
}

export function isIdleTimeout(error: unknown): boolean {
  return error instanceof BodyIdleTimeoutError;
}

/**
 * Reads a whole (non-streamed) upstream body, refusing bodies larger than the limit. A body that does not
 * arrive complete (the connection dropped, the length did not match, the encoding could not be decoded, the
 * gap between chunks passed the idle timeout) is an upstream failure that retries and falls back.
 */
export async function readUpstreamBody(body: UpstreamResponse['body'], maxBytes: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  try {
    for await (const part of body) {
      size += part.length;
      if (size > maxBytes) {
        discard(body);
        throw new GatewayError(502, 'upstream_response_too_large', `The provider's response exceeded ${maxBytes} bytes`, { type: 'upstream_error' });
      }
      parts.push(Buffer.from(part.buffer, part.byteOffset, part.byteLength));
    }
  } catch (error) {
    if (error instanceof GatewayError) throw error;
    discard(body);
    throw bodyReadFailure(error);
  }
  return Buffer.concat(parts, size);
}

/** Drops a body gw will not read; the abort error that destroying it emits is expected, not a crash. */
function discard(body: UpstreamResponse['body']): void {
  (body as unknown as NodeJS.EventEmitter).on?.('error', () => undefined);
  body.destroy();
}

/** What went wrong while a response body was read, as a retryable upstream failure. */
export function bodyReadFailure(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  if (isIdleTimeout(error)) {
    return new GatewayError(504, 'upstream_idle_timeout', 'The provider stopped sending its response (idle timeout)', { type: 'upstream_error', cause: error, upstream: true });
  }
  if (decodeErrors.has(error as object)) {
    return new GatewayError(502, 'upstream_bad_encoding', "The provider's response could not be decoded with its content-encoding", { type: 'upstream_error', cause: error, upstream: true });
  }
  const code = (findCause(error) as { code?: string } | undefined)?.code;
  return new GatewayError(502, 'upstream_body_incomplete', `The provider's response ended before it was complete${code ? ` (${code})` : ''}`, {
    type: 'upstream_error',
    cause: error,
    upstream: true,
  });
}

/** Errors raised by a content-encoding decoder (bad gzip, deflate or br data), told apart from network errors. */
const decodeErrors = new WeakSet<object>();

const DECODERS: Record<string, () => NodeJS.ReadWriteStream> = {
  gzip: () => createGunzip(),
  'x-gzip': () => createGunzip(),
  deflate: () => createInflate(),
  br: () => createBrotliDecompress(),
};

/**
 * Node's client hands the body over as sent. A compressed body (gzip, deflate, br) is decoded here, for
 * streams and whole bodies alike; an encoding gw cannot decode is refused as an upstream failure.
 */
function decodedBody(body: UpstreamResponse['body'], encoding: string | string[] | undefined): UpstreamResponse['body'] {
  const codings = (Array.isArray(encoding) ? encoding.join(',') : (encoding ?? ''))
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
  if (codings.length === 0) return body;
  const unknown = codings.find((coding) => !DECODERS[coding]);
  if (unknown) {
    discard(body);
    throw new GatewayError(502, 'upstream_bad_encoding', `The provider answered with content-encoding ${JSON.stringify(unknown)}, which gw cannot decode`, { type: 'upstream_error', upstream: true });
  }
  // Codings are listed in the order they were applied: undo them last first.
  const decoders = codings.reverse().map((coding) => DECODERS[coding]().on('error', (error: Error) => decodeErrors.add(error)));
  const stages = [body, ...decoders];
  const decoded = (pipeline as unknown as (...streams: unknown[]) => Readable)(...stages, () => undefined);
  return decoded as unknown as UpstreamResponse['body'];
}

/** Framing headers describe the bytes on the wire, which gw decodes: they never describe what gw passes on. */
function withoutFraming(headers: UpstreamResponse['headers']): UpstreamResponse['headers'] {
  const { 'content-encoding': _encoding, 'content-length': _length, ...rest } = headers;
  return rest;
}
