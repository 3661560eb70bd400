import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { settings } from '../../settings.js';
import { ThrowawayFolders } from '../../throwaway-folders.js';
import { onDrain } from '../background.js';
import type { LogSinkHealth } from './duckdb/engine.js';
import type { LogEventSink, QueryEngine } from './types.js';

export interface LogEngines {
  sink: LogEventSink;
  engine: QueryEngine;
  /** How writing stands (the DuckDB sink: journal backlog, drops, failures); engines without one are not probed. */
  health?: () => Promise<LogSinkHealth>;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

let opened: Promise<LogEngines> | undefined;
/** The sink of `opened` once it has opened: the answer markers (answer-marker.ts) are written synchronously. */
let openedSink: LogEventSink | undefined;
let drainRegistered = false;

/** Which engine holds request logs: GW_LOG_ENGINE, else `aws` inside a Lambda and `duckdb` everywhere else. */
export function logEngineKind(): 'duckdb' | 'aws' {
  return settings().GW_LOG_ENGINE ?? (process.env.AWS_LAMBDA_FUNCTION_NAME !== undefined ? 'aws' : 'duckdb');
}

/**
 * The sink the after-path appends to and the engine the read APIs query, opened once per process on first use
 * (neither the gateway's cold start nor a Lambda bundle's cold path loads an engine). A drain (Lambda end of
 * invocation, local shutdown, tests) flushes the sink.
 */
export function logEngines(): Promise<LogEngines> {
  if (!drainRegistered) {
    drainRegistered = true;
    onDrain(async () => {
      if (opened) await (await opened.catch(() => undefined))?.sink.flush();
    });
  }
  if (!opened) {
    const opening = open().then(
      (engines) => {
        if (opened === opening) openedSink = engines.sink;
        return engines;
      },
      (error: unknown) => {
        opened = undefined;
        throw error;
      },
    );
    opened = opening;
  }
  return opened;
}

/** The sink, if the engines have opened (the local runtime opens them at start); undefined before. */
export function loadedLogSink(): LogEventSink | undefined {
  return openedSink;
}

/**
 * Loads (without opening) the modules the after-path needs to write request-log rows. The local runtime calls it at
 * start: under `npm start` (node with the tsx loader) a Ctrl-C to the process group also stops tsx's compiler, so a
 * module first imported while the drain writes the last records would fail to load, and those records be lost.
 */
export async function loadLogEngineModules(): Promise<void> {
  await import('./columns.js');
  if (logEngineKind() === 'duckdb') await Promise.all([import('./duckdb/engine.js'), import('@duckdb/node-api')]);
}

/** Flushes and closes the engines (local shutdown, tests); the next `logEngines()` opens them again. */
export async function closeLogEngines(): Promise<void> {
  const current = opened;
  opened = undefined;
  openedSink = undefined;
  const engines = await current?.catch(() => undefined);
  await engines?.sink.close();
  // The engine's throwaway folders go with it (and at the process's end, by exit or signal, whatever is left).
  throwaway.remove();
}

/** Folders of this process that nothing reads after the engine closes (an in-memory database's spill and journal, exports on their way to S3). */
const throwaway = new ThrowawayFolders();

async function open(): Promise<LogEngines> {
  if (logEngineKind() === 'aws') {
    // Firehose sink and Athena queries (engine/aws/): the Glue tables and the sink's rows share TABLE_COLUMNS.
    const [{ createAwsLogEngine }, { TABLE_COLUMNS }] = await Promise.all([import('./aws/index.js'), import('./columns.js')]);
    return createAwsLogEngine(TABLE_COLUMNS);
  }
  const current = settings();
  const { openDuckDbLogEngine } = await import('./duckdb/engine.js');
  const retentionMs = Math.min(current.LOG_RETENTION_DISPLAY * DAY_MS, current.GW_LOCAL_LOG_RETENTION_HOURS * HOUR_MS);
  const { sink, engine, health } = await openDuckDbLogEngine({
    path: current.GW_LOG_DUCKDB_PATH,
    // A file database spills beside itself (`<file>.tmp`, DuckDB's default); one in memory to a folder of this process.
    spillDirectory: current.GW_LOG_DUCKDB_PATH === ':memory:' ? throwaway.add(join(tmpdir(), `gw-duckdb-spill-${process.pid}`)) : `${current.GW_LOG_DUCKDB_PATH}.tmp`,
    memoryLimit: current.GW_LOG_DUCKDB_MEMORY_LIMIT,
    retentionMs,
    retentionIntervalMs: HOUR_MS,
    journalDirectory: journalDirectory(current.GW_LOG_JOURNAL_DIR, current.GW_LOG_DUCKDB_PATH),
    journalMaxBytes: current.GW_LOG_JOURNAL_MAX_BYTES,
    memoryRecords: current.GW_LOG_MEMORY_BUFFER_RECORDS,
  });
  return { sink, engine, health };
}

/**
 * The request-log journal's folder: GW_LOG_JOURNAL_DIR, else beside the DuckDB file (`<file>.journal`); for a
 * database in memory, a folder of this process removed at exit (nothing outlives it to replay into).
 */
function journalDirectory(configured: string | undefined, databasePath: string): string {
  if (configured) return configured;
  if (databasePath !== ':memory:') return `${databasePath}.journal`;
  return throwaway.add(join(tmpdir(), `gw-log-journal-${process.pid}-${Math.random().toString(36).slice(2)}`));
}

/**
 * The local runtime's start-up check (issue #42): opens the log engine now, so a damaged or held database stops
 * start-up with one line that says what to do (LogEngineUnavailableError.startupLine) instead of a gw that answers
 * and then fails every log read.
 */
export async function openLogEnginesAtStart(): Promise<void> {
  await logEngines();
}

/** How the log engine's writing stands, for the deep health check; undefined when it is not open or has no probe. */
export async function logEngineHealth(): Promise<LogSinkHealth | undefined> {
  const engines = await opened?.catch(() => undefined);
  return engines?.health?.();
}

/**
 * Refuses with 503 `log_engine_unavailable` when the engine cannot serve now (its worker dead or restarting, its
 * file failing): for work that would otherwise be accepted and fail later in the background (an export's job).
 */
export async function assertLogEngineServing(): Promise<void> {
  const engines = await logEngines();
  const health = await engines.health?.();
  if (health?.status !== 'failed') return;
  const { LogEngineUnavailableError } = await import('./duckdb/errors.js');
  throw new LogEngineUnavailableError(`Request logs are unavailable: the log engine is failing (${health.error ?? 'unknown'}); try again later`);
}

/**
 * The folder DuckDB exports are written to: GW_LOG_EXPORT_DIR, else `exports/` of the local blob folder (so the
 * blob folder's lifecycle expires them like every other blob), else a temporary folder of this process.
 */
export function localExportDirectory(): string {
  const current = settings();
  if (current.GW_LOG_EXPORT_DIR) return current.GW_LOG_EXPORT_DIR;
  // With blobs in S3 the local export file is only a step on its way to the bucket: a throwaway folder.
  return current.GW_BLOB_BUCKET ? throwaway.add(join(tmpdir(), `gw-exports-${process.pid}`)) : join(resolve(current.GW_BLOB_DIR), 'exports');
}
