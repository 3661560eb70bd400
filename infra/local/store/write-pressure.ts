import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** Added to the user agent of housekeeping's own store client: its writes are neither counted nor held back. */
export const HOUSEKEEPING_USER_AGENT = 'gw-local-housekeeping';

/**
 * How long one batch write may be held back while the log cap deletes: well inside the gateway's store-call
 * timeout (5 s of socket inactivity, shared/store/dynamo-client.ts), so a held write is slow, never failed.
 */
const MAX_HOLD_MS = 1_000;

export interface StoreWriteControl {
  /**
   * Runs `work` (the log cap's deletes) with the store's incoming BatchWriteItem calls held back, each until
   * `work` ends or for at most `maxHoldMs` (default MAX_HOLD_MS). The embedded store is one single-threaded
   * process: when request logs arrive faster than it can both write them and delete the oldest, deletes that
   * merely queue beside the writes fall behind for good and the store grows without bound. Held writes turn that
   * into backpressure: gw's bounded background queue fills and its intake slows
   * (shared/observability/background.ts), so the store holds about the cap however hard it is driven.
   */
  prioritise<T>(work: () => Promise<T>): Promise<T>;
}

type RequestListener = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * Puts the store's HTTP server under housekeeping's control: `onWrite` is called for every write call (PutItem,
 * BatchWriteItem) of a client other than housekeeping, once answered, so a burst of request logs gets the log cap
 * checked without waiting for the next timed pass; and `prioritise` holds batch writes back. Both read headers
 * only: nothing per request beyond that.
 */
export function controlStoreWrites(server: Server, onWrite: () => void, maxHoldMs = MAX_HOLD_MS): StoreWriteControl {
  const dynaliteListeners = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  let held: Array<() => void> | undefined;
  let prioritised = 0;

  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const dispatch = () => {
      for (const listener of dynaliteListeners) listener.call(server, request, response);
    };
    if (String(request.headers['user-agent'] ?? '').includes(HOUSEKEEPING_USER_AGENT)) return dispatch();
    const target = String(request.headers['x-amz-target'] ?? '');
    const batchWrite = target.endsWith('.BatchWriteItem');
    // Counted once answered, so a check it triggers sees the write.
    if (batchWrite || target.endsWith('.PutItem')) response.once('finish', onWrite);
    if (!batchWrite || !held) return dispatch();
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      clearTimeout(timer);
      dispatch();
    };
    const timer = setTimeout(release, maxHoldMs);
    held.push(release);
  });

  return {
    prioritise: async (work) => {
      prioritised++;
      held ??= [];
      try {
        return await work();
      } finally {
        if (--prioritised === 0) {
          const waiting = held;
          held = undefined;
          for (const release of waiting ?? []) release();
        }
      }
    },
  };
}
