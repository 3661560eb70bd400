import { AsyncLocalStorage } from 'node:async_hooks';
import { captureFunctionContext } from '../store/recording/aws-operation-recorder.js';
import { logger } from './logger.js';

type TaskSet = Set<Promise<unknown>>;

/** Tasks started outside any invocation scope (tests, start-up work). */
const unscoped: TaskSet = new Set();
/** Every pending task, whatever its scope: what a shutdown must wait for. */
const everything: TaskSet = new Set();
/** Each Lambda invocation (and each local request) gets its own set, so a drain waits only for its own work. */
const invocationTasks = new AsyncLocalStorage<TaskSet>();
const flushers = new Set<() => Promise<void>>();

/**
 * Work that must not delay or fail the response (request logs, counters after the fact). A Lambda freezes
 * once its handler returns, so the edges call `drainBackgroundWork` after the response is fully written.
 */
export function runInBackground(label: string, work: () => Promise<unknown>): void {
  const owner = invocationTasks.getStore() ?? unscoped;
  const task: Promise<unknown> = takeSlot()
    .then(work)
    .catch((error: unknown) => logger.error(`background task failed: ${label}`, { error: error as Error }))
    .finally(() => {
      giveSlot();
      owner.delete(task);
      everything.delete(task);
    });
  owner.add(task);
  everything.add(task);
}

/**
 * Starts the background-task scope of one invocation. Called first thing in a handler (middy's
 * `requestStart`): everything that invocation schedules, even from its response stream, belongs to it.
 */
export function beginBackgroundScope(): void {
  invocationTasks.enterWith(new Set());
}

/** Write-behind buffers register here, so a drain sends what they hold at once instead of after their delay. */
export function onDrain(flush: () => Promise<void>): void {
  // Test-only attribution of the AWS calls a flush makes to the function that created the buffer, whoever drains
  // it (shared/store/recording/); a plain call when deployed.
  const flushAs = captureFunctionContext();
  flushers.add(() => flushAs(flush));
}

/** Waits for the current invocation's background work (or, outside one, for all unscoped work). */
export async function drainBackgroundWork(): Promise<void> {
  const owner = invocationTasks.getStore() ?? unscoped;
  while (owner.size > 0) {
    await flushAll();
    // A task may still be on its way into a buffer: look again shortly rather than wait for the buffer's timer.
    await Promise.race([Promise.allSettled([...owner]), new Promise((resolve) => setTimeout(resolve, 2))]);
  }
  await flushAll();
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
  return everything.size;
}

/** Resolves at once unless the backlog is past its high-water mark; then once it fell below it again. */
export async function backgroundCapacity(): Promise<void> {
  while (waiting.length >= HIGH_WATER) await new Promise((resolve) => setTimeout(resolve, 5));
}

/**
 * Waits for every invocation's background work: for a process that is shutting down (and for tests). With a
 * timeout, gives up after it and returns how many tasks were still pending (0: all done).
 */
export async function drainAllBackgroundWork(timeoutMs = Number.POSITIVE_INFINITY): Promise<number> {
  const giveUpAt = Date.now() + timeoutMs;
  while (everything.size > 0) {
    if (Date.now() >= giveUpAt) return everything.size;
    await flushAll();
    await Promise.race([Promise.allSettled([...everything]), new Promise((resolve) => setTimeout(resolve, 2))]);
  }
  await flushAll();
  return 0;
}

function flushAll(): Promise<unknown> {
  return Promise.all([...flushers].map((flush) => flush()));
}
