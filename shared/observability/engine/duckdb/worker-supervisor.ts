import { Worker } from 'node:worker_threads';
import { logger } from '../../logger.js';
import { recordLogWorkerRestartMetric } from '../../metrics.js';
import { openFailure } from './errors.js';
import type { FromWorker, WorkerOptions, WriterStatus } from './protocol.js';
import { WorkerLink } from './worker-link.js';

export type ReadyMessage = Extract<FromWorker, { type: 'ready' }>;

/** A worker started and linked; `ready` settles once its database is open and the journal replayed. */
export interface StartedWorker {
  link: WorkerLink;
  ready: Promise<ReadyMessage>;
}

/**
 * Starts the DuckDB worker (worker-entry.mjs → worker.ts). No inherited execArgv but `--cpu-prof*`: a preload of
 * the main thread (`--import` of a watchdog, a profiler) would run again in the worker, where process-wide hooks
 * misfire (stdin ends at once there); worker-entry.mjs loads what it needs. A CPU profile of the process (the
 * bench's `--cpu-prof`) profiles the worker too, in a file of its own (issue #48's anatomy).
 */
export function startWorker(options: WorkerOptions, onStatus: (status: WriterStatus) => void, onDeath: (error: Error) => void): StartedWorker {
  const module = new URL(import.meta.url.endsWith('.ts') ? './worker.ts' : './worker.js', import.meta.url).href;
  const execArgv = process.execArgv.filter((flag) => flag.startsWith('--cpu-prof'));
  const worker = new Worker(new URL('./worker-entry.mjs', import.meta.url), { workerData: { module, ...options }, execArgv });
  let opened = false;
  const link = new WorkerLink(worker, onStatus, (error) => {
    // A worker that dies before it was ready is the start's failure (below), not a death to restart from.
    if (opened) onDeath(error);
  });
  const ready = new Promise<ReadyMessage>((resolve, reject) => {
    worker.on('message', (message: FromWorker) => {
      if (message.type === 'ready') {
        opened = true;
        resolve(message);
      } else if (message.type === 'open-failed') reject(openFailure(options.path, message.message));
    });
    worker.once('error', (error) => reject(openFailure(options.path, error.message)));
    worker.once('exit', (code) => reject(openFailure(options.path, `its worker exited (${code}) before the database opened`)));
  }).catch(async (error: unknown) => {
    await worker.terminate();
    throw error;
  });
  return { link, ready };
}

/** A failed restart is tried again after this long, doubled per failure up to a minute. */
const RESTART_RETRY_MS = 1_000;

/**
 * Keeps a DuckDB worker running (issue #42): when the worker dies (a crash, an out-of-memory abort) another is
 * started with the same options; it reopens the database and replays the journal from the committed position, so
 * nothing journaled is lost. Meanwhile reads answer 503 `log_engine_unavailable` and records keep going to the
 * journal. Each restart is counted (deep health, the metric `request_log_worker_restarts`) and logged in one line.
 */
export class WorkerSupervisor {
  link: WorkerLink;
  restarts = 0;
  lastRestartAt = 0;
  private closing = false;
  private failedRestarts = 0;

  constructor(
    first: WorkerLink,
    private readonly options: WorkerOptions,
    private readonly onStatus: (status: WriterStatus) => void,
    /** The new link, once its worker is ready; and what the dead worker held in memory (lost with it). */
    private readonly onRestarted: (link: WorkerLink, ready: ReadyMessage, lostInMemory: number) => void,
  ) {
    this.link = first;
  }

  /** Given to startWorker as its death callback. */
  readonly onDeath = (error: Error): void => {
    if (this.closing) return;
    const lostInMemory = this.link.status?.inMemory ?? 0;
    void this.restart(error, lostInMemory);
  };

  /** At shutdown: a worker that exits now is not restarted. */
  close(): void {
    this.closing = true;
  }

  private async restart(cause: Error, lostInMemory: number): Promise<void> {
    const started = startWorker({ restarted: true, ...this.options }, this.onStatus, this.onDeath);
    try {
      const ready = await started.ready;
      if (this.closing) {
        await started.link.worker.terminate();
        return;
      }
      started.link.status = ready.status;
      this.link = started.link;
      this.restarts++;
      this.lastRestartAt = Date.now();
      this.failedRestarts = 0;
      recordLogWorkerRestartMetric();
      logger.error(`request logs: the DuckDB worker died (${cause.message}) and was restarted (${this.restarts} since start); it wrote ${ready.replayed} journaled record(s) at its start`, {
        worker_restarts: this.restarts,
        lost_in_memory: lostInMemory,
      });
      this.onRestarted(started.link, ready, lostInMemory);
    } catch (error) {
      this.failedRestarts++;
      const delay = Math.min(60_000, RESTART_RETRY_MS * 2 ** (this.failedRestarts - 1));
      logger.error(`request logs: the DuckDB worker died (${cause.message}) and could not be restarted (${(error as Error).message}); trying again in ${delay} ms`);
      setTimeout(() => void (this.closing ? undefined : this.restart(cause, 0)), delay).unref();
    }
  }
}
