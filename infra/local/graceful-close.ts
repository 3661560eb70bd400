import type { Server } from 'node:http';

/** What a graceful close did, for the shutdown line the local runtime prints. */
export interface CloseReport {
  /** Requests still running when the drain timeout passed (their connections were then cut). */
  cutRequests: number;
  /** Background tasks (logs, charges) still pending when their flush timeout passed. */
  pendingBackground: number;
}

export interface InFlight {
  count(): number;
  idle(): Promise<void>;
  /** Counts `work` (a request's handler) until it settles: it may outlive its response (a client that left). */
  track(work: Promise<unknown>): void;
}

/**
 * Counts the requests in flight on a server, so a shutdown can wait for them. A request counts from its
 * arrival until its response finished or its connection closed, and until its handler settled (`track`): a
 * stream whose client left still runs its cleanup (the charge and log of what was sent), which must have
 * queued its background work before the flush that precedes closing the store.
 */
export function trackInFlight(server: Server): InFlight {
  let inFlight = 0;
  let waiters: Array<() => void> = [];
  const begin = () => {
    inFlight++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      inFlight--;
      if (inFlight === 0) {
        for (const wake of waiters) wake();
        waiters = [];
      }
    };
  };
  server.on('request', (_request, response) => {
    const finish = begin();
    response.once('finish', finish);
    response.once('close', finish);
  });
  return {
    count: () => inFlight,
    idle: () => (inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve))),
    track: (work) => {
      const finish = begin();
      void work.then(finish, finish);
    },
  };
}

/**
 * Graceful shutdown in the order that loses nothing: stop accepting connections (idle keep-alive ones are
 * closed), let the requests in flight finish up to `drainTimeoutMs` (then cut what is left), flush the
 * background work they left (logs, charges) up to `flushTimeoutMs`, and only then close the store.
 */
export async function closeGracefully(
  server: Server,
  inFlight: Pick<InFlight, 'count' | 'idle'>,
  options: { drainTimeoutMs: number; flushTimeoutMs: number; stopTimers(): Promise<void>; flushBackground(timeoutMs: number): Promise<number>; closeStore(): Promise<void> },
): Promise<CloseReport> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  // Keep-alive connections that go idle after their last response are closed as they do.
  const idleSweep = setInterval(() => server.closeIdleConnections(), 50);
  let timer: NodeJS.Timeout | undefined;
  const drained = await Promise.race([
    inFlight.idle().then(() => true),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), options.drainTimeoutMs))),
  ]);
  clearTimeout(timer);
  clearInterval(idleSweep);
  const cutRequests = drained ? 0 : inFlight.count();
  server.closeAllConnections();
  await closed;
  await options.stopTimers();
  const pendingBackground = await options.flushBackground(options.flushTimeoutMs);
  await options.closeStore();
  return { cutRequests, pendingBackground };
}
