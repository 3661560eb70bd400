import type { Server, ServerResponse } from 'node:http';

/** What a graceful close did, for the shutdown line the local runtime prints. */
export interface CloseReport {
  /** Requests still running when the drain timeout passed: each was cut once (logged as `cut_at_shutdown`). */
  cutRequests: number;
  /** Background tasks (logs, charges) still pending when their flush timeout passed. */
  pendingBackground: number;
}

export interface InFlight {
  count(): number;
  idle(): Promise<void>;
  /**
   * Counts one request from its arrival until its response finished (or its connection closed) and its handler
   * `work` settled: the handler may outlive its response (a client that left) and still run its cleanup.
   */
  track(work: Promise<unknown>, response?: ServerResponse): void;
}

/**
 * Counts the requests in flight, one per request, so a shutdown can wait for them and say how many it cut. A
 * stream whose client left still runs its cleanup (the charge and log of what was sent), which must have queued
 * its background work before the flush that precedes closing the store.
 */
export function trackInFlight(): InFlight {
  let inFlight = 0;
  let waiters: Array<() => void> = [];
  return {
    count: () => inFlight,
    idle: () => (inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve))),
    track: (work, response) => {
      inFlight++;
      let open = response && !response.writableFinished && !response.destroyed ? 2 : 1;
      const finish = () => {
        if (--open > 0) return;
        inFlight--;
        if (inFlight === 0) {
          for (const wake of waiters) wake();
          waiters = [];
        }
      };
      if (open === 2) {
        let done = false;
        const responseDone = () => {
          if (done) return;
          done = true;
          finish();
        };
        response?.once('finish', responseDone);
        response?.once('close', responseDone);
      }
      void work.then(finish, finish);
    },
  };
}

export interface CloseOptions {
  drainTimeoutMs: number;
  flushTimeoutMs: number;
  /** Cuts every request still in flight (node-edge.ts: its signal aborts, a stream ends with an error event). */
  cutInFlight(): void;
  stopTimers(): Promise<void>;
  flushBackground(timeoutMs: number): Promise<number>;
  closeStore(): Promise<void>;
}

/** How long cut requests get to write their last event and queue their log before their connections are closed. */
const CUT_SETTLE_MS = 5_000;

/**
 * Graceful shutdown in the order that loses nothing: stop accepting connections (idle keep-alive ones are
 * closed), let the requests in flight finish up to `drainTimeoutMs`, then cut what is left (each once: its stream
 * ends with an explicit error event, its upstream call stops, its log record says `cut_at_shutdown`) and give those
 * a moment to settle, flush the background work they left (logs, charges) up to `flushTimeoutMs`, and only then
 * close the store.
 */
export async function closeGracefully(server: Server, inFlight: Pick<InFlight, 'count' | 'idle'>, options: CloseOptions): Promise<CloseReport> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  // Keep-alive connections that go idle after their last response are closed as they do.
  const idleSweep = setInterval(() => server.closeIdleConnections(), 50);
  const drained = await idleWithin(inFlight, options.drainTimeoutMs);
  const cutRequests = drained ? 0 : inFlight.count();
  if (!drained) {
    options.cutInFlight();
    // A cut request settles at once unless its client reads nothing (its last event waits in a full socket).
    await idleWithin(inFlight, Math.min(CUT_SETTLE_MS, options.flushTimeoutMs));
  }
  clearInterval(idleSweep);
  server.closeAllConnections();
  await closed;
  await options.stopTimers();
  const pendingBackground = await options.flushBackground(options.flushTimeoutMs);
  await options.closeStore();
  return { cutRequests, pendingBackground };
}

async function idleWithin(inFlight: Pick<InFlight, 'idle'>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const idle = await Promise.race([
    inFlight.idle().then(() => true),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs))),
  ]);
  clearTimeout(timer);
  return idle;
}
