import type { UpstreamCall } from '../providers/types.js';
import { readUpstreamBody, sendUpstream, type UpstreamCallOptions, type UpstreamResponse } from './upstream-client.js';
import { merged } from '../merged.js';

/** Each part of a fanned-out answer is one provider answer (a Titan embedding): far below this. */
const MAX_PART_BYTES = 16 * 1024 * 1024;

/**
 * Sends the parts of a call that fans out (UpstreamCall.fanOut) in parallel, at most `concurrency` at a time, and
 * answers as one upstream response, so routing, retries and fallbacks see one attempt:
 *
 * - the first part that answers non-2xx is the answer (its status, headers and body, mapped by the provider's
 *   error translation as for any call); parts not yet sent are not sent, and parts in flight are cancelled, so
 *   the failure is answered (and retried or fallen back from) without waiting for the slowest sibling;
 * - a part that fails on the way (timeout, connection) fails the whole call with that error, the same way;
 * - otherwise the answer is 200 with `{"answers": [...]}`, each part's JSON body in call order, built from the
 *   bytes as they came (nothing re-serialised), with the first part's headers.
 */
export async function sendFannedOut(call: UpstreamCall, options: UpstreamCallOptions): Promise<UpstreamResponse> {
  const { calls, concurrency } = call.fanOut!;
  const bodies: Buffer[] = new Array(calls.length);
  let firstHeaders: UpstreamResponse['headers'] | undefined;
  let failed: UpstreamResponse | undefined;
  let thrown: unknown;
  let next = 0;
  const stopped = () => failed !== undefined || thrown !== undefined;
  // One per part in flight, aborted at the first failure, except the failed part's own: its body is the answer.
  const inFlight = new Map<number, AbortController>();
  const stopSiblingsOf = (index: number) => {
    for (const [other, controller] of inFlight) if (other !== index) controller.abort();
  };

  async function worker(): Promise<void> {
    while (!stopped() && next < calls.length) {
      const index = next++;
      const controller = new AbortController();
      inFlight.set(index, controller);
      try {
        const signal = options.signal ? AbortSignal.any([options.signal, controller.signal]) : controller.signal;
        const response = await sendUpstream(calls[index], merged(options, { signal }));
        if (stopped()) {
          drop(response.body);
          return;
        }
        if (response.status < 200 || response.status >= 300) {
          failed = response;
          stopSiblingsOf(index);
          return;
        }
        if (index === 0) firstHeaders = response.headers;
        bodies[index] = await readUpstreamBody(response.body, MAX_PART_BYTES);
      } catch (error) {
        if (!stopped()) {
          thrown = error;
          stopSiblingsOf(index);
        }
        return;
      } finally {
        inFlight.delete(index);
      }
    }
  }

  await Promise.all(Array.from({ length: Math.min(Math.max(1, concurrency), calls.length) }, worker));
  if (failed) return failed;
  if (thrown !== undefined) throw thrown;
  const joined = Buffer.concat([Buffer.from('{"answers":['), ...bodies.flatMap((body, index) => (index === 0 ? [body] : [COMMA, body])), Buffer.from(']}')]);
  return { status: 200, headers: firstHeaders ?? {}, body: oneChunkBody(joined) };
}

const COMMA = Buffer.from(',');

/** Drops the body of an answer nobody will read; the abort error destroying it emits is expected, not a crash. */
function drop(body: UpstreamResponse['body']): void {
  (body as unknown as NodeJS.EventEmitter).on?.('error', () => undefined);
  body.destroy();
}

function oneChunkBody(bytes: Buffer): UpstreamResponse['body'] {
  let done = false;
  return {
    async *[Symbol.asyncIterator]() {
      if (!done) {
        done = true;
        yield bytes;
      }
    },
    destroy: () => {
      done = true;
    },
  };
}
