import * as z from 'zod';
import { InvalidSettingsError } from '../../shared/settings.js';
import { forkStoreProcess } from './store/child-store.js';
export { ensureTables } from './store/table-creation.js';
import { listenDynalite, probeDynalite, type DynaliteServer } from './store/dynalite-server.js';
import { LocalStartupError } from './startup-errors.js';
import { startHousekeeping, type Housekeeping, type HousekeepingPlan, type HousekeepingReport } from './store/housekeeping.js';

export interface EmbeddedStore {
  endpoint: string;
  close(): Promise<void>;
}

/** What the local runtime got from startEmbeddedStore, and who keeps its data bounded. */
export interface LocalStore extends EmbeddedStore {
  /** `child`: dynalite in its own process (default); `in-process`: in gw's; `external`: GW_DYNAMODB_ENDPOINT. */
  kind: 'child' | 'in-process' | 'external';
  /** The store process's pid (child mode). */
  pid?: number;
  /** The store process's memory (child mode): for measurements. */
  memory?(): Promise<NodeJS.MemoryUsage>;
  /** Starts (or replaces) the TTL sweep where the data lives; absent for an external store. */
  housekeeping?: {
    start(plan: HousekeepingPlan): Promise<void>;
    /** One full pass now (tests, and whoever wants the store trimmed at once). */
    pass(): Promise<HousekeepingReport>;
    stop(): Promise<void>;
  };
}

const storeModeSchema = z.enum(['child', 'in-process']).default('child');

/** Endpoints of the stores this process started: server.ts exports each one as GW_DYNAMODB_ENDPOINT. */
const ownEndpoints = new Set<string>();
const openStores = new Map<string, LocalStore>();

/**
 * The local runtime's store. When GW_DYNAMODB_ENDPOINT was set before start (not by an earlier store of this
 * process), that DynamoDB-compatible server is used and nothing is started. Otherwise dynalite is started,
 * persisted under `dataDir` or in memory when `dataDir` is `:memory:`: in its own process by default
 * (GW_LOCAL_STORE=child), so its CPU and its data stay out of the gateway's process, or in this process with
 * GW_LOCAL_STORE=in-process. Read before settings are (they are applied after the store is known).
 */
export async function startEmbeddedStore(dataDir: string): Promise<LocalStore> {
  const external = process.env.GW_DYNAMODB_ENDPOINT;
  if (external && !ownEndpoints.has(external)) return { kind: 'external', endpoint: external, close: async () => undefined };
  const mode = storeModeSchema.safeParse(process.env.GW_LOCAL_STORE || undefined);
  if (!mode.success) throw new InvalidSettingsError([`GW_LOCAL_STORE: must be child or in-process (got ${JSON.stringify(process.env.GW_LOCAL_STORE)})`]);
  const store = mode.data === 'child' ? await childStore(dataDir) : await inProcessStore(dataDir);
  ownEndpoints.add(store.endpoint);
  openStores.set(store.endpoint, store);
  const close = store.close;
  store.close = async () => {
    openStores.delete(store.endpoint);
    await close();
  };
  return store;
}

/** The store this process started at `endpoint` (still open), if any: reliability.ts sends it the plan. */
export function localStoreAt(endpoint: string): LocalStore | undefined {
  return openStores.get(endpoint);
}

async function childStore(dataDir: string): Promise<LocalStore> {
  const child = await forkStoreProcess(dataDir);
  return {
    kind: 'child',
    endpoint: child.endpoint,
    pid: child.pid,
    memory: () => child.memory(),
    close: () => child.close(),
    housekeeping: {
      start: async (plan) => void (await child.request({ op: 'housekeeping', plan })),
      pass: async () => (await child.request({ op: 'pass' }))!,
      stop: async () => void (await child.request({ op: 'stop-housekeeping' }).catch(() => undefined)),
    },
  };
}

async function inProcessStore(dataDir: string): Promise<LocalStore> {
  const server = await listenDynalite(dataDir);
  await probeInProcess(server, dataDir);
  const endpoint = `http://127.0.0.1:${server.port}`;
  let housekeeping: Housekeeping | undefined;
  return {
    kind: 'in-process',
    endpoint,
    close: async () => {
      await housekeeping?.stop();
      await server.close();
    },
    housekeeping: {
      start: async (plan) => {
        await housekeeping?.stop();
        housekeeping = startHousekeeping(endpoint, plan);
      },
      pass: () => {
        if (!housekeeping) return Promise.reject(new Error('no housekeeping plan was sent'));
        return housekeeping.pass();
      },
      stop: async () => {
        await housekeeping?.stop();
        housekeeping = undefined;
      },
    },
  };
}

/**
 * The first call of an in-process dynalite, as the store process makes it: a data directory another gw holds
 * shows only then, thrown inside dynalite (uncaught, more than once). Until the probe answered, such a throw is a
 * failed start, one line (LocalStartupError); after a failure, dynalite's further throws are ignored, since the
 * process is about to exit.
 */
async function probeInProcess(server: DynaliteServer, dataDir: string): Promise<void> {
  let onThrow: (error: Error) => void = () => undefined;
  const thrown = new Promise<never>((_resolve, reject) => (onThrow = reject));
  process.on('uncaughtException', onThrow);
  try {
    await Promise.race([probeDynalite(server.port), thrown]);
    process.off('uncaughtException', onThrow);
  } catch (error) {
    process.off('uncaughtException', onThrow);
    process.on('uncaughtException', () => undefined);
    void server.close();
    const hint = dataDir === ':memory:' ? '' : ` (is another gw using ${dataDir}? stop it first)`;
    throw new LocalStartupError(`could not open the local store: ${(error as Error).message}${hint}`);
  }
}
