import { captureFunctionContext } from '../store/recording/aws-operation-recorder.js';
import { logger } from './logger.js';

/**
 * Every pending task. No per-invocation scope (issue #23: an AsyncLocalStorage scope per request cost ~50 µs): a
 * Lambda sandbox serves one invocation at a time, so everything pending there is that invocation's work, and the
 * local runtime never drains per request (only at shutdown).
 */
const pending = new Set<Promise<unknown>>();
const flushers = new Set<() => Promise<void>>();

/**
 * Work that must not delay or fail the response (request logs, counters after the fact). A Lambda freezes
 * once its handler returns, so the Lambda edges call `drainBackgroundWork` after the response is fully written.
 */
export function runInBackground(label: string, work: () => Promise<unknown>): void {
  const task: Promise<unknown> = takeSlot()
    .then(work)
    .catch((error: unknown) => logger.error(`background task failed: ${label}`, { error: error as Error }))
    .finally(() => {
      giveSlot();
      pending.delete(task);
    });
  pending.add(task);
}

/** Write-behind buffers register here, so a drain sends what they hold at once instead of after their delay. */
export function onDrain(flush: () => Promise<void>): void {
  // Test-only attribution of the AWS calls a flush makes to the function that created the buffer, whoever drains
  // it (shared/store/recording/); a plain call when deployed.
  const flushAs = captureFunctionContext();
  flushers.add(() => flushAs(flush));
}

/**
 * Waits for all pending background work, write-behind buffers flushed at once: what a Lambda invocation does
 * after its response ended (one invocation per sandbox, so all pending work is its own).
 */
export async function drainBackgroundWork(): Promise<void> {
  await drainAllBackgroundWork();
}

/**
 * Bounds: at most MAX_RUNNING tasks run at once (each holds store calls); the rest wait in order. Past
 * HIGH_WATER waiting tasks, `backgroundCapacity` makes new requests wait before they start, so a process under
 * sustained load slows its intake instead of growing memory or dropping logs and charges.
 */
const MAX_RUNNING = 128;
const HIGH_WATER = 2_000;
let running = 0;
const waiting: Array<() => void> = [];

function takeSlot(): Promise<void> {
  if (running < MAX_RUNNING) {
    running++;
    return Promise.resolve();
  }
  return new Promise<void>((resolve) =>
    waiting.push(() => {
      running++;
      resolve();
    }),
  );
}

function giveSlot(): void {
  running--;
  waiting.shift()?.();
}

/** Background tasks started and not yet finished (running or waiting). */
export function backgroundBacklog(): number {
  return pending.size;
}

/** Resolves at once unless the backlog is past its high-water mark; then once it fell below it again. */
export async function backgroundCapacity(): Promise<void> {
  while (waiting.length >= HIGH_WATER) await new Promise((resolve) => setTimeout(resolve, 5));
}

/**
 * Waits for every pending background task: for a Lambda invocation's end, a process that is shutting down, and
 * tests. With a timeout, gives up after it and returns how many tasks were still pending (0: all done).
 */
export async function drainAllBackgroundWork(timeoutMs = Number.POSITIVE_INFINITY): Promise<number> {
  const giveUpAt = Date.now() + timeoutMs;
  while (pending.size > 0) {
    if (Date.now() >= giveUpAt) return pending.size;
    await flushAll();
    // A task may still be on its way into a buffer: look again shortly rather than wait for the buffer's timer.
    await Promise.race([Promise.allSettled([...pending]), new Promise((resolve) => setTimeout(resolve, 2))]);
  }
  await flushAll();
  return 0;
}

function flushAll(): Promise<unknown> {
  return Promise.all([...flushers].map((flush) => flush()));
}
