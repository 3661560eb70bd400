import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, ScheduledEvent } from 'aws-lambda';
import type { BootstrapResult } from '../../shared/control-plane/bootstrap.js';
import { isGatewayPath } from '../../shared/http/edge-routes.js';
import { toApiGatewayEvent, localLambdaContext } from './api-gateway-event.js';
import { startEmbeddedStore, ensureTables, type EmbeddedStore } from './embedded-store.js';
import { installLambdaShim, isStreamingHandler, type StreamingHandler } from './lambda-shim.js';
import { PreludeSplittingStream, type StreamPrelude } from './response-stream.js';
import { closeGracefully, trackInFlight, type CloseReport } from './graceful-close.js';
import { PortInUseError, startLocalReliability } from './reliability.js';

export interface LocalServerOptions {
  port?: number;
  host?: string;
  /** Where the embedded store persists; `:memory:` keeps everything in memory. */
  dataDir?: string;
  /** Extra environment for the handlers (applied before settings are read). */
  env?: Record<string, string>;
  /** GW_BOOTSTRAP_API_KEY: the admin key to make sure exists. */
  bootstrapApiKey?: string;
}

export interface LocalServer {
  url: string;
  port: number;
  bootstrap: BootstrapResult;
  /** Graceful: stops accepting, drains requests in flight, flushes background work, then closes the store. */
  close(): Promise<CloseReport>;
}

type BufferedHandler = (event: APIGatewayProxyEvent, context: unknown) => Promise<APIGatewayProxyResult>;

/**
 * The local runtime: one node:http server that turns each request into the API Gateway event the Lambda
 * receives and calls the exported Lambda handlers in-process, streamed responses included.
 */
export async function startLocalServer(options: LocalServerOptions = {}): Promise<LocalServer> {
  installLambdaShim();
  const store = await startEmbeddedStore(options.dataDir ?? '.data');
  applyLocalEnvironment(store, options.env ?? {}, options.dataDir ?? '.data');

  // Settings are read on first use, so everything that reads them is loaded only now.
  const { settings } = await import('../../shared/settings.js');
  const current = settings();
  const { TABLES, tableName } = await import('../../shared/store/table-definitions.js');
  await ensureTables(store.endpoint, current.AWS_REGION, TABLES.map((definition) => ({ definition, name: tableName(current, definition) })));
  const { bootstrapOrganisation } = await import('../../shared/control-plane/bootstrap.js');
  const bootstrap = await bootstrapOrganisation(options.bootstrapApiKey);

  const gateway = (await import('../../functions/gateway/handler.js')).handler as unknown;
  const controlPlane = (await import('../../functions/control-plane/handler.js')).handler as unknown as BufferedHandler;
  if (!isStreamingHandler(gateway)) throw new Error('the gateway handler is not a streaming handler');
  const { forgetEnforcementSnapshots } = await import('../../shared/gateway/enforcement/snapshot-cache.js');
  const schedules = await startSchedules(current.GW_LOCAL_SCHEDULE_INTERVAL_MS, current.AWS_REGION);
  // Reliability of the local runtime (infra/local/reliability.ts): TTL sweep, log cap, charge replay on start.
  const reliability = await startLocalReliability(store.endpoint);

  const maxBody = current.GW_MAX_BODY_BYTES;
  const server = createServer((request, response) => {
    void serve(request, response, { gateway, controlPlane, maxBody, controlPlaneChanged: forgetEnforcementSnapshots }).catch((error: unknown) => failResponse(response, error));
  });
  const inFlight = trackInFlight(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      // A busy port is a setup problem, not a crash: one line that says what to do (main.ts prints it).
      if (error.code === 'EADDRINUSE') reject(new PortInUseError(options.host ?? '127.0.0.1', options.port ?? 8787));
      else reject(error);
    });
    server.listen(options.port ?? 8787, options.host ?? '127.0.0.1', () => resolve());
  }).catch(async (error: unknown) => {
    await reliability.stop();
    await schedules.stop();
    await store.close();
    throw error;
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host ?? '127.0.0.1';
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    bootstrap,
    close: async () => {
      const { drainAllBackgroundWork } = await import('../../shared/observability/background.js');
      return closeGracefully(server, inFlight, {
        drainTimeoutMs: current.GW_SHUTDOWN_DRAIN_TIMEOUT_MS,
        flushTimeoutMs: current.GW_SHUTDOWN_DRAIN_TIMEOUT_MS,
        stopTimers: async () => {
          await schedules.stop();
          await reliability.stop();
        },
        flushBackground: drainAllBackgroundWork,
        closeStore: () => store.close(),
      });
    },
  };
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
  };
  for (const [name, value] of Object.entries(defaults)) process.env[name] ??= value;
  Object.assign(process.env, extra);
  process.env.GW_DYNAMODB_ENDPOINT = store.endpoint;
  // Virtual-key credentials: an AES-256-GCM file store beside the embedded store (no AWS account needed).
  // An in-memory store gets a throwaway directory, removed when the process exits.
  process.env.GW_SECRET_STORE ??= 'local-file';
  if (process.env.GW_LOCAL_SECRET_DIR === undefined) {
    if (dataDir === ':memory:') {
      const directory = mkdtempSync(join(tmpdir(), 'gw-secrets-'));
      process.once('exit', () => rmSync(directory, { recursive: true, force: true }));
      process.env.GW_LOCAL_SECRET_DIR = directory;
    } else {
      process.env.GW_LOCAL_SECRET_DIR = join(dataDir, 'secrets');
    }
  }
  // Charges that failed wait in a file journal beside the store and are replayed on start (charge-journal.ts).
  if (process.env.GW_CHARGE_JOURNAL_DIR === undefined) {
    if (dataDir === ':memory:') {
      const directory = mkdtempSync(join(tmpdir(), 'gw-journal-'));
      process.once('exit', () => rmSync(directory, { recursive: true, force: true }));
      process.env.GW_CHARGE_JOURNAL_DIR = directory;
    } else {
      process.env.GW_CHARGE_JOURNAL_DIR = join(dataDir, 'journal');
    }
  }
  // Blobs (large log bodies, exports) without a bucket: a folder beside the store, throwaway in memory mode.
  if (process.env.GW_BLOB_DIR === undefined && process.env.GW_BLOB_BUCKET === undefined) {
    if (dataDir === ':memory:') {
      const directory = mkdtempSync(join(tmpdir(), 'gw-blobs-'));
      process.once('exit', () => rmSync(directory, { recursive: true, force: true }));
      process.env.GW_BLOB_DIR = directory;
    } else {
      process.env.GW_BLOB_DIR = join(dataDir, 'blobs');
    }
  }
}

interface Handlers {
  gateway: StreamingHandler;
  controlPlane: BufferedHandler;
  maxBody: number;
  /** Called after a successful policy or workspace change: the gateway in this process enforces it at once. */
  controlPlaneChanged: () => void;
}

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

async function serve(request: IncomingMessage, response: ServerResponse, handlers: Handlers): Promise<void> {
  const body = await readBody(request, handlers.maxBody + 1);
  const event = toApiGatewayEvent(request, body);
  if (isGatewayPath(event.path)) return serveStreaming(event, response, handlers.gateway);
  const result = await handlers.controlPlane(event, localLambdaContext('gw-control-plane'));
  if (event.httpMethod !== 'GET' && result.statusCode < 300 && /^\/v1\/(policies|workspaces)(\/|$)/.test(event.path)) handlers.controlPlaneChanged();
  response.writeHead(result.statusCode, { ...(result.headers as Record<string, string>), ...(result.multiValueHeaders as Record<string, string[]> | undefined) });
  response.end(result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body);
}

async function serveStreaming(event: APIGatewayProxyEvent, response: ServerResponse, handler: StreamingHandler): Promise<void> {
  const stream = new PreludeSplittingStream(
    (prelude: StreamPrelude) => response.writeHead(prelude.statusCode ?? 200, { ...prelude.headers, ...prelude.multiValueHeaders }),
    (chunk, done) => {
      if (response.write(chunk)) done();
      else response.once('drain', () => done());
    },
    () => response.end(),
  );
  // A client that goes away destroys the stream; the handler's pipeline then stops reading the upstream. Until
  // the handler pipes into the stream nothing else listens, so the destroy error must not go unhandled.
  stream.on('error', () => undefined);
  response.once('close', () => {
    if (!response.writableFinished) stream.destroy(new Error('client closed the connection'));
  });
  try {
    await handler(event, stream, localLambdaContext('gw-gateway'));
  } catch (error) {
    if (response.destroyed) return;
    throw error;
  }
}

/** Reads the body, keeping at most `limit` bytes (the handlers turn an over-long body into a 413). */
async function readBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    if (size >= limit) continue;
    const part = chunk.subarray(0, limit - size);
    parts.push(part);
    size += part.length;
  }
  return Buffer.concat(parts, size);
}

function failResponse(response: ServerResponse, error: unknown): void {
  console.error('gw local runtime: request failed', error);
  if (response.headersSent) {
    response.destroy();
    return;
  }
  response.writeHead(500, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ error: { message: 'gw local runtime failed to serve the request', type: 'api_error', code: 'internal_error', param: null }, status: 'failure' }));
}

