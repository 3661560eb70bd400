import { randomUUID } from 'node:crypto';
import { settledOrAborted } from '../../shared/abort-race.js';
import { createServer } from 'node:http';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { ScheduledEvent } from 'aws-lambda';
import type { BootstrapResult } from '../../shared/control-plane/bootstrap.js';
import { isGatewayPath } from '../../shared/gateway/edge-routes.js';
import { ThrowawayFolders } from '../../shared/throwaway-folders.js';
import { formatPrettyRequestLine } from '../../shared/observability/pretty-request-line.js';
import { usePrettyRequestLines } from '../../shared/observability/request-line.js';
import { localLambdaContext } from './api-gateway-event.js';
import { startEmbeddedStore, ensureTables, type EmbeddedStore } from './embedded-store.js';
import { installLambdaShim } from './lambda-shim.js';
import { createNodeEdge } from './node-edge.js';
import { closeGracefully, trackInFlight, type CloseReport } from './graceful-close.js';
import { readyGate } from './ready-gate.js';
import { PortInUseError, startLocalReliability } from './reliability.js';
import { LocalStartupError, unusableHostError } from './startup-errors.js';

// The terminal's human request line is the local runtime's: a Lambda's cold start never loads it.
usePrettyRequestLines(formatPrettyRequestLine);

export interface LocalServerOptions {
  port?: number;
  host?: string;
  /** Where the embedded store persists; `:memory:` keeps everything in memory. */
  dataDir?: string;
  /** Extra environment for the handlers (applied before settings are read). */
  env?: Record<string, string>;
  /** GW_BOOTSTRAP_API_KEY: the admin key to make sure exists. */
  bootstrapApiKey?: string;
  /** How long a request that arrives during start-up waits for it before its 503 (GW_LOCAL_READY_WAIT_MS). */
  readyWaitMs?: number;
  /** Stops the start-up (a signal during it): what was started is closed, and the start rejects with StartupStopped. */
  signal?: AbortSignal;
}

export interface LocalServer {
  url: string;
  port: number;
  bootstrap: BootstrapResult;
  /** Graceful: stops accepting, drains requests in flight, flushes background work, then closes the store. */
  close(): Promise<CloseReport>;
}

/** The start-up was stopped (Ctrl-C or SIGTERM during it); everything it had started is closed. */
export class StartupStopped extends Error {
  constructor() {
    super('gw: stopped during start-up');
    this.name = 'StartupStopped';
  }
}

export const DEFAULT_READY_WAIT_MS = 30_000;

/**
 * The local runtime: one node:http server whose edge (node-edge.ts) hands each request to the same neutral
 * cores the Lambda handlers adapt, streamed responses included; the scheduled functions run as Lambda handlers.
 * It listens first (a busy port fails before anything is created) behind a ready gate (ready-gate.ts): a request
 * that arrives during start-up waits for it. The first start's admin key is created last, once listening succeeded:
 * were it created before a failed listen, it would be stored, never shown, and the next start would believe it had
 * been shown.
 */
export async function startLocalServer(options: LocalServerOptions = {}): Promise<LocalServer> {
  // Not on the request path: it lets code in this process import the streaming Lambda handler (tests, tools).
  installLambdaShim();
  const host = options.host ?? '127.0.0.1';
  const gate = readyGate(options.readyWaitMs ?? DEFAULT_READY_WAIT_MS);
  const server = createServer(gate.listener);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      // A busy port is a setup problem, not a crash: one line that says what to do (main.ts prints it).
      if (error.code === 'EADDRINUSE') reject(new PortInUseError(host, options.port ?? 8787));
      else reject(unusableHostError(error, host) ?? error);
    });
    server.listen(options.port ?? 8787, host, () => resolve());
  });
  // Whatever start-up has started, closed in reverse order if it fails or is stopped.
  const started: Array<() => Promise<unknown>> = [() => new Promise((resolve) => server.close(resolve))];
  const phase = <T>(work: Promise<T>) => untilStopped(work, options.signal);
  try {
    const store = await phase(startEmbeddedStore(options.dataDir ?? '.data'));
    started.push(() => store.close());
    applyLocalEnvironment(store, options.env ?? {}, options.dataDir ?? '.data');

    // Settings are read on first use, so everything that reads them is loaded only now.
    const { settings } = await import('../../shared/settings.js');
    const current = settings();
    const { TABLES, tableName } = await import('../../shared/store/table-definitions.js');
    await phase(ensureTables(store.endpoint, current.AWS_REGION, TABLES.map((definition) => ({ definition, name: tableName(current, definition) }))));
    const { createGatewayApp } = await import('../../shared/gateway/app.js');
    const { createControlPlaneApp } = await import('../../shared/control-plane/app.js');
    const { forgetEnforcementSnapshots } = await import('../../shared/gateway/enforcement/snapshot-cache.js');
    // The log engine's modules load now, not during a shutdown's drain (see loadLogEngineModules).
    const logEngineSelection = await import('../../shared/observability/engine/select.js');
    await phase(logEngineSelection.loadLogEngineModules());
    // The log engine opens now (issue #42): a damaged or held database stops start-up with one line saying what to do.
    await phase(logEngineSelection.openLogEnginesAtStart()).catch((error: unknown) => {
      const line = (error as { startupLine?: unknown }).startupLine;
      throw typeof line === 'string' ? new LocalStartupError(line) : error;
    });
    started.push(() => logEngineSelection.closeLogEngines());
    const schedules = await phase(startSchedules(current.GW_LOCAL_SCHEDULE_INTERVAL_MS, current.AWS_REGION));
    started.push(() => schedules.stop());
    // Reliability of the local runtime (infra/local/reliability.ts): TTL sweep, charge replay on start.
    const reliability = await phase(startLocalReliability(store.endpoint));
    started.push(() => reliability.stop());
    if (options.signal?.aborted) throw new StartupStopped();
    // From here on start-up is not stopped half-way: the first start's admin key is created and then shown.
    const { bootstrapOrganisation } = await import('../../shared/control-plane/bootstrap.js');
    const bootstrap = await bootstrapOrganisation(options.bootstrapApiKey);

    const inFlight = trackInFlight();
    const shutdown = new AbortController();
    gate.open(
      createNodeEdge({
        gateway: createGatewayApp(),
        controlPlane: createControlPlaneApp(),
        isGatewayPath,
        maxBodyBytes: current.GW_MAX_BODY_BYTES,
        controlPlaneChanged: forgetEnforcementSnapshots,
        serving: (work, response) => inFlight.track(work, response),
        shutdown: shutdown.signal,
      }),
    );
    const { port } = server.address() as AddressInfo;
    const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
    // Links gw hands out (an export's download_url) use this address unless GW_PUBLIC_BASE_URL names another.
    const { setListeningBaseUrl } = await import('../../shared/http/public-base-url.js');
    setListeningBaseUrl(url);
    return {
      url,
      port,
      bootstrap,
      close: async () => {
        const { drainAllBackgroundWork } = await import('../../shared/observability/background.js');
        return closeGracefully(server, inFlight, {
          drainTimeoutMs: current.GW_SHUTDOWN_DRAIN_TIMEOUT_MS,
          flushTimeoutMs: current.GW_SHUTDOWN_DRAIN_TIMEOUT_MS,
          cutInFlight: () => shutdown.abort(),
          stopTimers: async () => {
            await schedules.stop();
            await reliability.stop();
          },
          flushBackground: async (timeoutMs: number) => {
            // Unused quota leases go back to their counters before the store closes (docs/architecture.md).
            const { returnAllQuotaLeases } = await import('../../shared/gateway/enforcement/quota-leases.js');
            await returnAllQuotaLeases();
            return drainAllBackgroundWork(timeoutMs);
          },
          closeStore: async () => {
            // Request logs (DuckDB) are flushed and closed after the background work, before the store goes.
            const { closeLogEngines } = await import('../../shared/observability/engine/select.js');
            await closeLogEngines();
            await store.close();
            throwaway.remove();
          },
        });
      },
    };
  } catch (error) {
    gate.fail();
    server.closeAllConnections();
    for (const stop of started.reverse()) await stop().catch(() => undefined);
    throwaway.remove();
    throw error;
  }
}

/** `work`, unless the start-up is stopped first (a phase can wait long: an external store that does not answer). */
function untilStopped<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  return settledOrAborted(work, signal, (): never => {
    throw new StartupStopped();
  });
}

function applyLocalEnvironment(store: EmbeddedStore, extra: Record<string, string>, dataDir: string): void {
  const defaults: Record<string, string> = {
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_REGION: 'us-east-1',
    // Locally the providers people run (ollama, vLLM, mock servers) live on loopback.
    GW_ALLOW_LOOPBACK_HOSTS: 'ON',
    POWERTOOLS_SERVICE_NAME: 'gw-local',
    // Node 20 is supported here; Lambda runs Node 22. The SDK's reminder would only be noise.
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    // A person at a terminal gets one short line per request; a pipe (logs collected, the bench) keeps JSON.
    GW_LOG_FORMAT: process.stdout.isTTY ? 'pretty' : 'json',
  };
  for (const [name, value] of Object.entries(defaults)) process.env[name] ??= value;
  Object.assign(process.env, extra);
  process.env.GW_DYNAMODB_ENDPOINT = store.endpoint;
  // Virtual-key credentials: an AES-256-GCM file store beside the embedded store (no AWS account needed).
  // An in-memory store gets a throwaway directory, removed when the server closes (or the process exits).
  process.env.GW_SECRET_STORE ??= 'local-file';
  if (process.env.GW_LOCAL_SECRET_DIR === undefined) {
    if (dataDir === ':memory:') {
      process.env.GW_LOCAL_SECRET_DIR = throwaway.make('gw-secrets-');
    } else {
      process.env.GW_LOCAL_SECRET_DIR = join(dataDir, 'secrets');
    }
  }
  // Charges that failed wait in a file journal beside the store and are replayed on start (charge-journal.ts).
  if (process.env.GW_CHARGE_JOURNAL_DIR === undefined) {
    if (dataDir === ':memory:') {
      process.env.GW_CHARGE_JOURNAL_DIR = throwaway.make('gw-journal-');
    } else {
      process.env.GW_CHARGE_JOURNAL_DIR = join(dataDir, 'journal');
    }
  }
  // Request logs: an embedded DuckDB file beside the store, in memory with it. Exports go to the blob folder.
  process.env.GW_LOG_DUCKDB_PATH ??= dataDir === ':memory:' ? ':memory:' : join(dataDir, 'logs.duckdb');
  // Blobs (large log bodies, exports) without a bucket: a folder beside the store, throwaway in memory mode.
  if (process.env.GW_BLOB_DIR === undefined && process.env.GW_BLOB_BUCKET === undefined) {
    if (dataDir === ':memory:') {
      process.env.GW_BLOB_DIR = throwaway.make('gw-blobs-');
    } else {
      process.env.GW_BLOB_DIR = join(dataDir, 'blobs');
    }
  }
}

/**
 * The folders an in-memory gw made for itself: nothing outlives the server that would read them. Removed once the
 * store has closed, and at the process's end whatever ends it but SIGKILL (shared/throwaway-folders.ts). A later
 * server of this process keeps the same paths (settings are read once) and its stores create them again on first write.
 */
const throwaway = new ThrowawayFolders();

type ScheduledHandler = (event: ScheduledEvent, context: unknown) => Promise<unknown>;

/**
 * The scheduled functions, run like EventBridge runs them in AWS: the exported handler, invoked with a
 * `Scheduled Event` every `intervalMs` (0: never). A run still going when the next is due is not doubled.
 * Timers are unref'd, so they never keep the process alive; `stop` clears them and waits for a running pass.
 */
async function startSchedules(intervalMs: number, region: string): Promise<{ stop(): Promise<void> }> {
  const functions: Array<[string, ScheduledHandler]> = [
    ['expire-api-keys', (await import('../../functions/expire-api-keys/handler.js')).handler as unknown as ScheduledHandler],
    ['restore-budgets', (await import('../../functions/restore-budgets/handler.js')).handler as unknown as ScheduledHandler],
  ];
  if (intervalMs <= 0) return { stop: async () => undefined };
  const running = new Map<string, Promise<void>>();
  const timers = functions.map(([name, handler]) => {
    const timer = setInterval(() => {
      if (running.has(name)) return;
      const run = handler(scheduledEvent(name, region), localLambdaContext(`gw-${name}`, 120_000))
        .then(() => undefined)
        .catch((error: unknown) => console.error(`gw local runtime: scheduled function ${name} failed`, error))
        .finally(() => running.delete(name));
      running.set(name, run);
    }, intervalMs);
    timer.unref();
    return timer;
  });
  return {
    stop: async () => {
      for (const timer of timers) clearInterval(timer);
      await Promise.allSettled([...running.values()]);
    },
  };
}

/** The event an EventBridge schedule rule delivers. */
export function scheduledEvent(functionName: string, region: string): ScheduledEvent {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '000000000000',
    time: new Date().toISOString(),
    region,
    resources: [`arn:aws:events:${region}:000000000000:rule/gw-${functionName}`],
    detail: {},
  };
}
