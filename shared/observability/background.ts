import { logger } from './logger.js';

const pending = new Set<Promise<unknown>>();

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

export async function drainBackgroundWork(): Promise<void> {
  while (pending.size > 0) await Promise.allSettled([...pending]);
}
