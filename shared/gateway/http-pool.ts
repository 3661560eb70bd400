import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { finished } from 'node:stream';

/**
 * gw's outbound HTTP/1.1 client on Node's own `http`/`https` agents: keep-alive pools per origin, a lookup that
 * decides which addresses may be connected to, and a body idle timeout. Node's client costs about the same CPU per
 * request as undici's request API here (measured side by side: within ±10 %), and it ships with the runtime, so
 * the gateway's cold start no longer loads ~145 KiB of undici and a WebAssembly parser.
 */

export interface HttpPoolOptions {
  /** Most connections open at once to one origin. */
  maxSocketsPerOrigin: number;
  /** How long an idle keep-alive connection waits in the pool for its next request. */
  idleSocketMs: number;
  /** Resolves (and checks) the addresses of a hostname before connecting. */
  lookup: LookupFunction;
}

export interface PooledRequest {
  method: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  /** Aborting it ends the request at any point: before connecting, while waiting, or while the body streams. */
  signal: AbortSignal;
  /** Longest silence on the connection while the response body is read; 0 or absent for none. */
  bodyIdleTimeoutMs?: number;
}

/** The response body: a Node readable, plus `dump`, which reads out what is left so the connection is reused. */
export type PooledBody = IncomingMessage & { dump(options?: { limit?: number }): Promise<void> };

export interface PooledResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: PooledBody;
}

/** The response body went quiet for longer than `bodyIdleTimeoutMs`. */
export class BodyIdleTimeoutError extends Error {
  readonly code = 'GW_BODY_IDLE_TIMEOUT';
}

/** What `dump` reads at most before it gives up on the connection (as undici's own default). */
const DEFAULT_DUMP_LIMIT = 128 * 1024;

export class HttpPool {
  private readonly plain: http.Agent;
  private readonly secure: https.Agent;

  constructor(options: HttpPoolOptions) {
    // `timeout` closes a pooled connection that sat idle this long (the agent destroys only free sockets on it).
    const agentOptions = { keepAlive: true, maxSockets: options.maxSocketsPerOrigin, timeout: options.idleSocketMs, lookup: options.lookup };
    this.plain = new http.Agent(agentOptions);
    this.secure = new https.Agent(agentOptions);
  }

  /** Resolves once the response headers arrived; the body is left to the caller (read, `dump` or `destroy` it). */
  request(url: string, options: PooledRequest): Promise<PooledResponse> {
    return new Promise<PooledResponse>((resolve, reject) => {
      let outgoing: http.ClientRequest;
      try {
        const target = new URL(url);
        const secure = target.protocol === 'https:';
        outgoing = (secure ? https : http).request(target, {
          method: options.method,
          headers: options.headers,
          agent: secure ? this.secure : this.plain,
          signal: options.signal,
        });
      } catch (error) {
        // Invalid header names or values are refused before anything is sent.
        reject(error);
        return;
      }
      outgoing.on('response', (message: IncomingMessage) => {
        if (options.bodyIdleTimeoutMs) {
          // A socket timeout: the connection's silence, reset by every chunk; cleared when the socket goes back to the pool.
          outgoing.setTimeout(options.bodyIdleTimeoutMs, () => message.destroy(new BodyIdleTimeoutError(`no response data for ${options.bodyIdleTimeoutMs} ms`)));
        }
        const body = message as PooledBody;
        body.dump = ({ limit = DEFAULT_DUMP_LIMIT } = {}) => readOut(message, limit);
        resolve({ statusCode: message.statusCode ?? 0, headers: message.headers, body });
      });
      // Before the response this fails the call; after it, a broken connection surfaces as the body's error.
      outgoing.on('error', reject);
      outgoing.end(options.body);
    });
  }
}

/**
 * Reads and drops the rest of a body so its connection returns to the pool; a body longer than `limit` is not
 * worth reading, and destroying it closes the connection instead. Works beside an async iterator that was
 * abandoned mid-way (it pulls with `read()`, the iterator only listens).
 */
function readOut(message: IncomingMessage, limit: number): Promise<void> {
  return new Promise<void>((resolve) => {
    let size = 0;
    const pull = () => {
      for (let chunk: Buffer | null; (chunk = message.read() as Buffer | null) !== null; ) {
        size += chunk.length;
        if (size > limit) {
          message.destroy();
          return;
        }
      }
    };
    message.on('readable', pull);
    finished(message, () => {
      message.off('readable', pull);
      resolve();
    });
    pull();
  });
}
