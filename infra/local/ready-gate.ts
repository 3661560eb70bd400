import type { IncomingMessage, ServerResponse } from 'node:http';

type Listener = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * The local server listens from its first moment (so a busy port fails before anything is created), but answers
 * only once start-up is done: until then a request waits for it, up to `waitMs`, and then gets a 503 with
 * `retry-after` (never a 401 from a key the bootstrap has not written yet). A start-up that fails or is stopped
 * answers the waiting requests with the same 503 at once.
 */
export interface ReadyGate {
  listener: Listener;
  /** Start-up is done: waiting requests and every later one go to `serve`. */
  open(serve: Listener): void;
  /** Start-up failed or was stopped: waiting requests get their 503 now. */
  fail(): void;
}

interface Waiting {
  request: IncomingMessage;
  response: ServerResponse;
  timer: NodeJS.Timeout;
}

export function readyGate(waitMs: number): ReadyGate {
  let serve: Listener | undefined;
  let failed = false;
  const waiting = new Set<Waiting>();
  const release = (entry: Waiting, to?: Listener) => {
    clearTimeout(entry.timer);
    waiting.delete(entry);
    if (to) to(entry.request, entry.response);
    else notReady(entry.response);
  };
  return {
    listener: (request, response) => {
      if (serve) return serve(request, response);
      if (failed) return notReady(response);
      const entry: Waiting = { request, response, timer: setTimeout(() => release(entry), waitMs) };
      waiting.add(entry);
      response.once('close', () => {
        clearTimeout(entry.timer);
        waiting.delete(entry);
      });
    },
    open: (listener) => {
      serve = listener;
      for (const entry of [...waiting]) release(entry, listener);
    },
    fail: () => {
      failed = true;
      for (const entry of [...waiting]) release(entry);
    },
  };
}

function notReady(response: ServerResponse): void {
  if (response.headersSent || response.destroyed) return;
  const body = JSON.stringify({
    error: { message: 'gw is starting up and not ready yet; retry in a moment', type: 'api_error', code: 'not_ready', param: null },
    status: 'failure',
  });
  response.writeHead(503, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'retry-after': '1' });
  response.end(body);
}
