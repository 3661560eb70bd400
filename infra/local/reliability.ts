import { resolve } from 'node:path';
import { LocalStartupError } from './startup-errors.js';

/**
 * What keeps a long-running local gw bounded and loses nothing it owes: the housekeeping of the embedded store
 * (TTL sweep, the local caps on request-log age and count; run where the store runs) and the replay of charges
 * that failed (the file journal under the data directory, and reservations of requests a crash left behind),
 * on start and then periodically.
 * Loaded after settings were applied (server.ts imports it lazily through startLocalReliability).
 */
export class PortInUseError extends LocalStartupError {
  constructor(host: string, port: number) {
    super(`gw: port ${port} on ${host} is already in use (another gw?). Stop that process or start with PORT=<another port> npm start`);
    this.name = 'PortInUseError';
  }
}

const HOUR_SECONDS = 3_600;
const DAY_SECONDS = 86_400;

/**
 * The request-log count cap when GW_LOCAL_LOG_MAX_RECORDS is unset. In memory every record costs the store
 * process ~40 KiB of RSS (dynalite keeps each item, its gsi1 copy and its index rows as JSON in a tree): 20,000
 * records held ~0.8–1.5 GiB in the 30,000-request soak, so an in-memory store keeps 5,000 (~200–400 MiB). On
 * disk LevelDB holds them in files and the process stays small, so 20,000.
 */
export function defaultLogCap(dataDir: string): number {
  return dataDir === ':memory:' ? 5_000 : 20_000;
}

/**
 * How many store write calls pass between two checks of the log cap: a tenth of the cap (a log batch carries
 * up to 25 items, ~3 requests' records), within 100..2,000, so the store overshoots the cap by a fraction of it
 * between checks, and a small cap is not rescanned on every few writes.
 */
export function writesPerCapCheck(maxRecords: number): number {
  return Math.min(2_000, Math.max(100, Math.round(maxRecords / 10)));
}

export async function startLocalReliability(storeEndpoint: string, dataDir: string): Promise<{ stop(): Promise<void> }> {
  const { settings } = await import('../../shared/settings.js');
  const { TABLES, LOGS_TABLE, tableName } = await import('../../shared/store/table-definitions.js');
  const { localStoreAt } = await import('./embedded-store.js');
  const { replayCharges } = await import('../../shared/gateway/enforcement/charge-journal.js');
  const { defaultEnforcementDependencies } = await import('../../shared/gateway/enforcement/admission.js');
  const current = settings();
  // A log's TTL is LOG_RETENTION_DISPLAY days after it was written; locally it goes after the shorter cap.
  const logsAhead = Math.max(0, current.LOG_RETENTION_DISPLAY * DAY_SECONDS - current.GW_LOCAL_LOG_RETENTION_HOURS * HOUR_SECONDS);
  // The TTL sweep and the log caps run where the data lives (the store process by default); a store that was
  // not started here (GW_DYNAMODB_ENDPOINT) is DynamoDB or acts like it, and applies TTL itself.
  const housekeeping = localStoreAt(storeEndpoint)?.housekeeping;
  const maxRecords = current.GW_LOCAL_LOG_MAX_RECORDS ?? defaultLogCap(dataDir);
  if (housekeeping) {
    await housekeeping.start({
      region: current.AWS_REGION,
      intervalMs: current.GW_LOCAL_TTL_SWEEP_INTERVAL_MS,
      tables: TABLES.map((definition) => ({
        name: tableName(current, definition),
        partitionKey: definition.partitionKey,
        sortKey: definition.sortKey,
        aheadSeconds: definition === LOGS_TABLE ? logsAhead : 0,
      })),
      logCap: { table: tableName(current, LOGS_TABLE), maxRecords },
      writesPerCapCheck: writesPerCapCheck(maxRecords),
      // The bucket's lifecycle rule, locally (an absolute path: the store process resolves it on its own).
      blobs: current.GW_BLOB_BUCKET
        ? undefined
        : { directory: resolve(current.GW_BLOB_DIR), logsMaxAgeSeconds: current.GW_LOCAL_LOG_RETENTION_HOURS * HOUR_SECONDS, othersMaxAgeSeconds: current.LOG_RETENTION_DISPLAY * DAY_SECONDS },
    });
  } else {
    console.log(`gw local runtime: using the store at ${storeEndpoint} (GW_DYNAMODB_ENDPOINT); no embedded store started, no local TTL sweep or log cap (DynamoDB applies TTL itself)`);
  }
  const replay = () =>
    replayCharges(new Date(), defaultEnforcementDependencies()).catch((error: unknown) => {
      console.error('gw local runtime: replaying journaled charges failed', error);
    });
  // Charges a previous run journaled (or reservations it left) are settled before the first request.
  await replay();
  const interval = current.GW_LOCAL_TTL_SWEEP_INTERVAL_MS;
  const timer = interval > 0 ? setInterval(() => void replay(), interval) : undefined;
  timer?.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await housekeeping?.stop();
    },
  };
}
