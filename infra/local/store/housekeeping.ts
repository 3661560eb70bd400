import { localStoreClient, sweepExpired, type SweptTable } from '../ttl-sweeper.js';
import { sweepBlobFolder, type BlobFolderPlan } from './blob-sweep.js';

/**
 * What keeps the embedded store bounded, run by whoever owns the data (the store process, or the gw process
 * in in-process mode): the TTL sweep of every table (caches, counters, export jobs) and the local blob folder's
 * lifecycle. Request logs are not here: they live in the log engine (DuckDB), whose retention is a delete by time
 * (shared/observability/engine/duckdb/engine.ts). The gw process sends the plan once its settings are known.
 */
export interface HousekeepingPlan {
  region: string;
  /** A full pass (TTL sweep, blob folders) this often; 0 never (passes then run only when asked). */
  intervalMs: number;
  tables: SweptTable[];
  /** Local folders without a bucket (blobs, exports), expired by age. */
  blobs?: BlobFolderPlan;
}

export interface HousekeepingReport {
  /** Items deleted because their ttl had passed. */
  expired: number;
  /** Files of the local blob folder deleted because they outlived their retention. */
  expiredBlobs: number;
}

export interface Housekeeping {
  /** A full pass now (joins one already running). */
  pass(): Promise<HousekeepingReport>;
  stop(): Promise<void>;
}

/** Starts the housekeeping of the store at `endpoint`. */
export function startHousekeeping(endpoint: string, plan: HousekeepingPlan, options: { now?: () => number } = {}): Housekeeping {
  const now = options.now ?? Date.now;
  const client = localStoreClient(endpoint, plan.region);
  let stopped = false;
  let running: Promise<HousekeepingReport> | undefined;

  const work = async (): Promise<HousekeepingReport> => {
    let expired = 0;
    for (const table of plan.tables) expired += await sweepExpired(client, table, Math.floor(now() / 1000));
    return { expired, expiredBlobs: plan.blobs ? await sweepBlobFolder(plan.blobs, now()) : 0 };
  };
  const pass = (): Promise<HousekeepingReport> => (running ??= work().finally(() => (running = undefined)));
  const timer =
    plan.intervalMs > 0
      ? setInterval(
          () =>
            void pass().catch((error: unknown) => {
              if (!stopped) console.error('gw local store: TTL sweep failed', error);
            }),
          plan.intervalMs,
        )
      : undefined;
  timer?.unref();
  return {
    pass,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running?.catch(() => undefined);
      client.destroy();
    },
  };
}
