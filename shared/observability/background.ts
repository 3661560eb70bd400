import { AsyncLocalStorage } from 'node:async_hooks';
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
  const task: Promise<unknown> = Promise.resolve()
    .then(work)
    .catch((error: unknown) => logger.error(`background task failed: ${label}`, { error: error as Error }))
    .finally(() => {
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
  flushers.add(flush);
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

/** Waits for every invocation's background work: for a process that is shutting down (and for tests). */
export async function drainAllBackgroundWork(): Promise<void> {
  while (everything.size > 0) {
    await flushAll();
    await Promise.race([Promise.allSettled([...everything]), new Promise((resolve) => setTimeout(resolve, 2))]);
  }
  await flushAll();
}

function flushAll(): Promise<unknown> {
  return Promise.all([...flushers].map((flush) => flush()));
}
