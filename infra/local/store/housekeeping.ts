import { localStoreClient, sweepExpired, type SweptTable } from '../ttl-sweeper.js';
import { capLogRecords } from './log-cap.js';

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
}

const WRITES_PER_CAP_CHECK = 2_000;

export interface HousekeepingReport {
  /** Items deleted because their ttl (or the local retention) had passed. */
  expired: number;
  /** Request-log records deleted by the count cap (each with its index rows). */
  capped: number;
}

export interface Housekeeping {
  /** A full pass now (joins one already running). */
  pass(): Promise<HousekeepingReport>;
  /** Counts a write call the store received; every `writesPerCapCheck` of them the log cap runs (unless a pass is). */
  noteWrite(): void;
  stop(): Promise<void>;
}

export function startHousekeeping(endpoint: string, plan: HousekeepingPlan, now: () => number = Date.now): Housekeeping {
  const client = localStoreClient(endpoint, plan.region);
  let running: Promise<HousekeepingReport> | undefined;
  let stopped = false;
  let writes = 0;
  const writesPerCheck = plan.writesPerCapCheck ?? WRITES_PER_CAP_CHECK;

  // Writes that asked for a cap check while a pass ran: one more check follows that pass, so a long pass under
  // load does not let the logs outgrow the cap by everything written meanwhile.
  let capAgain = false;
  const run = (work: () => Promise<HousekeepingReport>): Promise<HousekeepingReport> => {
    running ??= work().finally(() => {
      running = undefined;
      if (capAgain && !stopped) {
        capAgain = false;
        void run(capOnly).catch(report('request-log cap'));
      }
    });
    return running;
  };
  const capOnly = async (): Promise<HousekeepingReport> => ({ expired: 0, capped: await cap() });
  const fullPass = async (): Promise<HousekeepingReport> => {
    let expired = 0;
    for (const table of plan.tables) expired += await sweepExpired(client, table, Math.floor(now() / 1000));
    return { expired, capped: await cap() };
  };
  const cap = () => (plan.logCap.maxRecords > 0 ? capLogRecords(client, plan.logCap.table, plan.logCap.maxRecords) : Promise.resolve(0));
  const report = (what: string) => (error: unknown) => {
    if (!stopped) console.error(`gw local store: ${what} failed`, error);
  };

  const timer = plan.intervalMs > 0 ? setInterval(() => void run(fullPass).catch(report('TTL sweep')), plan.intervalMs) : undefined;
  timer?.unref();
  return {
    pass: () => run(fullPass),
    noteWrite: () => {
      if (++writes < writesPerCheck || plan.logCap.maxRecords === 0) return;
      writes = 0;
      if (stopped) return;
      if (running) capAgain = true;
      else void run(capOnly).catch(report('request-log cap'));
    },
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running?.catch(() => undefined);
      client.destroy();
    },
  };
}
