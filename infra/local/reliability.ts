import { resolve } from 'node:path';
import { LocalStartupError } from './startup-errors.js';

/**
 * What keeps a long-running local gw bounded and loses nothing it owes: the housekeeping of the embedded store
 * (TTL sweep and the blob folder's lifecycle; run where the store runs; request logs keep their own retention in
 * the log engine) and the replay of charges
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

export async function startLocalReliability(storeEndpoint: string): Promise<{ stop(): Promise<void> }> {
  const { settings } = await import('../../shared/settings.js');
  const { TABLES, tableName } = await import('../../shared/store/table-definitions.js');
  const { localStoreAt } = await import('./embedded-store.js');
  const { replayCharges } = await import('../../shared/gateway/enforcement/charge-journal.js');
  const { defaultEnforcementDependencies } = await import('../../shared/gateway/enforcement/admission.js');
  const current = settings();
  // The TTL sweep runs where the data lives (the store process by default); a store that was
  // not started here (GW_DYNAMODB_ENDPOINT) is DynamoDB or acts like it, and applies TTL itself.
  const housekeeping = localStoreAt(storeEndpoint)?.housekeeping;
  if (housekeeping) {
    await housekeeping.start({
      region: current.AWS_REGION,
      intervalMs: current.GW_LOCAL_TTL_SWEEP_INTERVAL_MS,
      tables: TABLES.map((definition) => ({
        name: tableName(current, definition),
        partitionKey: definition.partitionKey,
        sortKey: definition.sortKey,
      })),
      // The bucket's lifecycle rule, locally (an absolute path: the store process resolves it on its own).
      blobs: current.GW_BLOB_BUCKET
        ? undefined
        : { directory: resolve(current.GW_BLOB_DIR), logsMaxAgeSeconds: current.GW_LOCAL_LOG_RETENTION_HOURS * HOUR_SECONDS, othersMaxAgeSeconds: current.LOG_RETENTION_DISPLAY * DAY_SECONDS },
    });
  } else {
    console.log(`gw local runtime: using the store at ${storeEndpoint} (GW_DYNAMODB_ENDPOINT); no embedded store started, no local TTL sweep (DynamoDB applies TTL itself)`);
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
