import type { Writable } from 'node:stream';
import { settledOrAborted } from '../../shared/abort-race.js';
import { isStreamBody, type ResponseBody } from '../../shared/http/types.js';

export interface WriteBodyOptions {
  /**
   * Ends a stream early on the writer's side (the local runtime's drain timeout at shutdown): the body's iterator is
   * returned, `last()` is written as the stream's final bytes (an explicit error event) and the target is ended.
   */
  stop?: AbortSignal;
  last?: () => Uint8Array | undefined;
}

const STOPPED = Symbol('stopped');

/**
 * Writes a neutral response body to a writable (a Lambda response stream or a node:http response) and ends it.
 * Streams honour backpressure: a write the target cannot take yet waits for 'drain', and no next chunk is read from
 * the body (so none from the provider) until it drained: what gw holds per stream is the target's high-water mark
 * plus the chunk in hand. A target that goes away
 * (client closed the connection) returns the body's iterator at once, even while a read is pending, which is what
 * cancels the upstream call behind it and records the answer as closed by the client (not as a provider that
 * stopped mid-body). Resolves `false` when the target went away (or was stopped) before the end, and then only once
 * the iterator has finished returning: its cleanup (the stream's settlement: charge, log) starts background work,
 * and a caller that drains background work next (a Lambda before it freezes, a local server before it closes its
 * store) must find that work already queued.
 */
export async function writeBody(target: Writable, body: ResponseBody, options: WriteBodyOptions = {}): Promise<boolean> {
  if (!isStreamBody(body)) {
    if (target.destroyed) return false;
    target.end(body ?? '');
    return true;
  }
  const iterator = body[Symbol.asyncIterator]();
  let returned = false;
  let returning: Promise<unknown> | undefined;
  const giveUp = () => {
    if (returned) return;
    returned = true;
    // An async generator runs a return() after the read in progress settles (the upstream's abort settles it).
    returning = Promise.resolve(iterator.return?.()).catch(() => undefined);
  };
  const onClose = () => {
    if (!target.writableFinished) giveUp();
  };
  target.once('close', onClose);
  const { stop } = options;
  try {
    for (;;) {
      const step = stop ? await orStopped(iterator.next(), stop) : await iterator.next();
      if (step === STOPPED) return endStopped(target, giveUp, options);
      if (step.done) break;
      if (target.destroyed) return false;
      if (!target.write(step.value) && (stop ? await orStopped(writable(target), stop) : await writable(target)) === STOPPED) return endStopped(target, giveUp, options);
      if (target.destroyed) return false;
    }
  } catch (error) {
    // A read that failed because the client left (its abort reached the upstream) is not the body's failure.
    if (target.destroyed || options.stop?.aborted) return false;
    throw error;
  } finally {
    target.off('close', onClose);
    if (target.destroyed) giveUp();
    await returning;
  }
  returned = true;
  target.end();
  return true;
}

/** Stopped by the writer's side: the body is returned, its last words written, the target ended. */
function endStopped(target: Writable, giveUp: () => void, options: WriteBodyOptions): false {
  giveUp();
  if (!target.destroyed && !target.writableEnded) {
    const last = options.last?.();
    if (last) target.write(last);
    target.end();
  }
  return false;
}

/** `work`, or STOPPED as soon as `signal` aborts (shared/abort-race.ts). */
function orStopped<T>(work: Promise<T>, signal: AbortSignal): Promise<T | typeof STOPPED> {
  return settledOrAborted(work, signal, () => STOPPED);
}

/** Resolves once the target drained its buffer, or closed (then the caller sees `destroyed`). */
function writable(target: Writable): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      target.off('drain', done);
      target.off('close', done);
      resolve();
    };
    target.on('drain', done);
    target.on('close', done);
  });
}
