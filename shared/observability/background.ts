import { logger } from './logger.js';

const pending = new Set<Promise<unknown>>();
const flushers = new Set<() => Promise<void>>();

/**
 * Work that must not delay or fail the response (request logs, counters after the fact). A Lambda freezes
 * once its handler returns, so the edges call `drainBackgroundWork` after the response is fully written.
 */
export function runInBackground(label: string, work: () => Promise<unknown>): void {
  const task = Promise.resolve()
    .then(work)
    .catch((error: unknown) => logger.error(`background task failed: ${label}`, { error: error as Error }))
    .finally(() => pending.delete(task));
  pending.add(task);
}

/** Write-behind buffers register here, so a drain sends what they hold at once instead of after their delay. */
export function onDrain(flush: () => Promise<void>): void {
  flushers.add(flush);
}

export async function drainBackgroundWork(): Promise<void> {
  while (pending.size > 0) {
    await Promise.all([...flushers].map((flush) => flush()));
    // Tasks may still be on their way to a buffer: look again shortly rather than wait for its timer.
    await Promise.race([Promise.allSettled([...pending]), new Promise((resolve) => setTimeout(resolve, 2))]);
  }
  await Promise.all([...flushers].map((flush) => flush()));
}
