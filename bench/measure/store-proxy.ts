import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A DynamoDB-shaped network in front of the bench's store: every call waits `latencyMs` before it is forwarded,
 * as a call from a Lambda to DynamoDB costs a few ms on AWS, and is recorded with its operation (the
 * `X-Amz-Target` header, e.g. `DynamoDB_20120810.GetItem` → `GetItem`) and when it arrived and was answered.
 * It runs in the harness process, so its timestamps and the latency probe's share one clock
 * (`performance.now()`): the calls made while one request was in flight can be told from the others.
 */

export interface StoreCall {
  operation: string;
  /**
   * What the call read or wrote, by the leading segments of its key (`APIKEY/APIKEY`, `WS/WS`): enough to tell a
   * key lookup from a policy counter in a timeline, never a whole key.
   */
  target?: string;
  /** performance.now() when the call arrived. */
  receivedAt: number;
  /** performance.now() when its answer was fully sent back; undefined while it is in flight. */
  answeredAt?: number;
}

export interface StoreProxy {
  url: string;
  readonly calls: readonly StoreCall[];
  /** Calls not answered yet. */
  inFlight(): number;
  /** The latest arrival or answer, performance.now() (0 before any call). */
  lastActivityAt(): number;
  close(): Promise<void>;
}

export async function startStoreProxy(storeUrl: string, latencyMs: number): Promise<StoreProxy> {
  const target = new URL(storeUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const calls: StoreCall[] = [];
  let inFlight = 0;
  let lastActivity = 0;
  const answered = (call: StoreCall) => {
    if (call.answeredAt !== undefined) return;
    call.answeredAt = performance.now();
    lastActivity = call.answeredAt;
    inFlight--;
  };

  const server: Server = createServer({ keepAliveTimeout: 60_000 }, (incoming, outgoing) => {
    const call: StoreCall = { operation: operationOf(incoming.headers['x-amz-target']), receivedAt: performance.now() };
    calls.push(call);
    inFlight++;
    lastActivity = call.receivedAt;
    // 'finish': the answer was handed to the socket; 'close' covers an answer cut short.
    outgoing.once('finish', () => answered(call));
    outgoing.once('close', () => answered(call));
    const parts: Buffer[] = [];
    incoming.on('data', (part: Buffer) => parts.push(part));
    incoming.once('end', () => {
      call.target = keyKindOf(Buffer.concat(parts));
      // The added latency stands for the network and the service's own time, before the store sees the call.
      setTimeout(() => {
        const forwarded = request(
          { host: target.hostname, port: target.port, path: incoming.url, method: incoming.method, headers: incoming.headers, agent },
          (answer) => {
            outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(outgoing);
          },
        );
        forwarded.once('error', (error) => {
          if (!outgoing.headersSent) outgoing.writeHead(502, { 'content-type': 'text/plain' });
          outgoing.end(`store proxy: ${error.message}`);
        });
        forwarded.end(Buffer.concat(parts));
      }, latencyMs);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    inFlight: () => inFlight,
    lastActivityAt: () => lastActivity,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        agent.destroy();
      }),
  };
}

function keyKindOf(body: Buffer): string | undefined {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { TableName?: string; Key?: Record<string, { S?: string }> };
    const key = parsed.Key;
    if (!key) return undefined;
    return Object.values(key)
      .map((value) => (value.S ?? '?').split('#')[0])
      .join('/');
  } catch {
    return undefined;
  }
}

function operationOf(target: string | string[] | undefined): string {
  const value = Array.isArray(target) ? target[0] : target;
  return value ? value.slice(value.lastIndexOf('.') + 1) : 'unknown';
}

/** The calls that arrived in [from, to] (performance.now() times). */
export function callsBetween(calls: readonly StoreCall[], from: number, to: number): StoreCall[] {
  return calls.filter((call) => call.receivedAt >= from && call.receivedAt <= to);
}

/**
 * The longest chain of calls that ran one after another (each arrived after the previous one was answered): how
 * many round trips the request had to wait for in sequence, however many ran side by side. Calls still in
 * flight at `to` count as ending then.
 */
export function sequentialDepth(calls: readonly StoreCall[], to: number): number {
  const intervals = calls.map((call) => ({ start: call.receivedAt, end: call.answeredAt === undefined ? to : Math.min(call.answeredAt, to) })).sort((a, b) => a.start - b.start);
  // depth[i]: the longest chain ending with interval i (n is a handful per request: O(n²) is fine).
  const depth: number[] = [];
  for (let i = 0; i < intervals.length; i++) {
    depth[i] = 1;
    for (let j = 0; j < i; j++) if (intervals[j].end <= intervals[i].start) depth[i] = Math.max(depth[i], depth[j] + 1);
  }
  return depth.length === 0 ? 0 : Math.max(...depth);
}

/**
 * Resolves once no call has been in flight or arrived for `quietMs`, counted from `since` at the earliest (e.g. the
 * end of a request whose after-path has not made its first call yet), or after `maxWaitMs` (returns false then).
 */
export async function waitForQuiet(proxy: StoreProxy, quietMs: number, maxWaitMs: number, since = 0): Promise<boolean> {
  const giveUpAt = performance.now() + maxWaitMs;
  for (;;) {
    const now = performance.now();
    const quietFor = now - Math.max(proxy.lastActivityAt(), since);
    if (proxy.inFlight() === 0 && quietFor >= quietMs) return true;
    if (now >= giveUpAt) return false;
    await new Promise((resolve) => setTimeout(resolve, Math.max(5, Math.min(50, quietMs - quietFor))));
  }
}
