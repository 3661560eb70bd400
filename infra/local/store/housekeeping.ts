import { localStoreClient, sweepExpired, type SweptTable } from '../ttl-sweeper.js';
import { sweepBlobFolder, type BlobFolderPlan } from './blob-sweep.js';
import { capLogRecords } from './log-cap.js';
import type { StoreWriteControl } from './write-pressure.js';

/**
 * What keeps the embedded store bounded, run by whoever owns the data (the store process, or the gw process
 * in in-process mode): the TTL sweep of every table (with the local log-retention cap as `aheadSeconds`) and
 * the count cap of request logs. The gw process sends the plan once its settings are known (reliability.ts).
 */
export interface HousekeepingPlan {
  region: string;
  /** A full pass (TTL sweep, then log cap) this often; 0 never (passes then run only when asked). */
  intervalMs: number;
  tables: SweptTable[];
  /** Request logs: at most `maxRecords` records in `table` (0: no count cap). */
  logCap: { table: string; maxRecords: number };
  /** After this many write calls the log cap is checked at once, between timed passes (default 2,000). */
  writesPerCapCheck?: number;
  /** The local blob folder, when blobs are not in a bucket: expired by age, and log bodies go with their record. */
  blobs?: BlobFolderPlan;
}

const WRITES_PER_CAP_CHECK = 2_000;

export interface HousekeepingReport {
  /** Items deleted because their ttl (or the local retention) had passed. */
  expired: number;
  /** Request-log records deleted by the count cap (each with its index rows and blobs). */
  capped: number;
  /** Files of the local blob folder deleted because they outlived their retention. */
  expiredBlobs: number;
}

export interface Housekeeping {
  /** A full pass now (joins one already running). */
  pass(): Promise<HousekeepingReport>;
  /** Counts a write call the store received; every `writesPerCapCheck` of them the log cap runs (or runs again after the one in progress). */
  noteWrite(): void;
  stop(): Promise<void>;
}

/**
 * Starts the housekeeping of the store at `endpoint`. With `writes` (the store's own server, where housekeeping
 * runs beside it), the log cap's deletes go first and gw's batch writes wait for them (write-pressure.ts).
 */
export function startHousekeeping(endpoint: string, plan: HousekeepingPlan, options: { writes?: StoreWriteControl; now?: () => number } = {}): Housekeeping {
  const now = options.now ?? Date.now;
  const client = localStoreClient(endpoint, plan.region);
  let stopped = false;
  let writes = 0;
  const writesPerCheck = plan.writesPerCapCheck ?? WRITES_PER_CAP_CHECK;
  const report = (what: string) => (error: unknown) => {
    if (!stopped) console.error(`gw local store: ${what} failed`, error);
  };

  const sweep = singleFlight(async () => {
    let expired = 0;
    for (const table of plan.tables) expired += await sweepExpired(client, table, Math.floor(now() / 1000));
    return expired;
  }, report('TTL sweep'));
  // The cap runs on its own, never queued behind a sweep: a sweep scans whole tables and takes long on a big
  // one, and a cap that waited for it would let the logs grow meanwhile, which makes the next sweep longer still.
  const cap = singleFlight(() => (plan.logCap.maxRecords > 0 ? capLogRecords(client, plan.logCap.table, plan.logCap.maxRecords, { writes: options.writes, blobDirectory: plan.blobs?.directory }) : Promise.resolve(0)), report('request-log cap'));

  const pass = async (): Promise<HousekeepingReport> => {
    const expired = await sweep.run();
    const capped = await cap.run();
    return { expired, capped, expiredBlobs: plan.blobs ? await sweepBlobFolder(plan.blobs, now()) : 0 };
  };
  const timer = plan.intervalMs > 0 ? setInterval(() => void pass().catch(report('TTL sweep')), plan.intervalMs) : undefined;
  timer?.unref();
  return {
    pass,
    noteWrite: () => {
      if (++writes < writesPerCheck || plan.logCap.maxRecords === 0) return;
      writes = 0;
      if (!stopped) cap.request().catch(report('request-log cap'));
    },
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await Promise.all([sweep.idle(), cap.idle()]);
      client.destroy();
    },
  };
}

/**
 * One run at a time of `work`. `run` joins the run in progress, or starts one. `request` (a trigger, e.g. a
 * burst of writes) starts one, or, while one runs, asks for one more after it, so what was written during a long
 * run is looked at too; any number of requests during one run make one more run, not many.
 */
function singleFlight<T>(work: () => Promise<T>, onFollowUpError: (error: unknown) => void) {
  let running: Promise<T> | undefined;
  let again = false;
  const run = (): Promise<T> => {
    running ??= work().finally(() => {
      running = undefined;
      if (again) {
        again = false;
        run().catch(onFollowUpError);
      }
    });
    return running;
  };
  return {
    run,
    request: (): Promise<unknown> => {
      if (running) {
        again = true;
        return Promise.resolve();
      }
      return run();
    },
    idle: async () => {
      again = false;
      await running?.catch(() => undefined);
    },
  };
}
