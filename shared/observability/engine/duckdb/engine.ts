import { logger } from '../../logger.js';
import type { LogEventSink, QueryEngine, QueryResult, SqlStatement } from '../types.js';
import { LogEngineUnavailableError } from './errors.js';
import { JournalSink, type JournalSinkBounds, type LogSinkHealth } from './journal-sink.js';
import { JournalWriter, listSegments } from './journal.js';
import type { WorkerOptions, WriterStatus } from './protocol.js';
import { startWorker, WorkerSupervisor } from './worker-supervisor.js';

export type { LogSinkHealth } from './journal-sink.js';

/**
 * Rows reach DuckDB within this long of their request's record (the worker's pass interval): what
 * `x-gw-data-freshness-ms` says. A pass costs DuckDB ~3–4 ms of CPU whatever its size (issue #34), now in the worker.
 */
export const FLUSH_DELAY_MS = 500;
/** A journal segment is closed and a new one begun past this size; the worker deletes the segments it has written. */
const SEGMENT_BYTES = 8 * 1024 * 1024;

export interface DuckDbLogEngineOptions extends JournalSinkBounds {
  /** A file (its folder is created), or `:memory:`. */
  path: string;
  /** Where DuckDB may spill a sort or an export that outgrows `memoryLimit`. */
  spillDirectory: string;
  /** DuckDB's memory_limit, e.g. `256MB`: exports and big queries spill past it instead of growing the process. */
  memoryLimit: string;
  /** Rows older than this (ms) are deleted, at start and then every `retentionIntervalMs`. */
  retentionMs: number;
  retentionIntervalMs: number;
  /** The journal's folder (issue #42): records wait there, one JSON line each, until the worker has written them. */
  journalDirectory: string;
  /** Rounds of one write pass (default 16); tests lower it to end passes while records keep coming. */
  roundsPerPass?: number;
}

export interface DuckDbLogEngine {
  sink: LogEventSink;
  /** How writing and reading stand, for the deep health check. */
  health(): Promise<LogSinkHealth>;
  engine: QueryEngine & {
    /** Deletes rows older than the cutoff; returns how many requests went. */
    deleteOlderThan(cutoffIso: string): Promise<number>;
  };
}

/**
 * Request logs in an embedded DuckDB (issues #32, #42, #48), owned by a worker thread (worker.ts): the gateway's
 * thread only writes journal lines and posts messages, so no append, commit or query pauses a request. Opening
 * replays the last run's unwritten journal; a database that cannot open (damaged, held by another process) fails
 * with a LogEngineUnavailableError whose `startupLine` says what to do.
 */
export async function openDuckDbLogEngine(options: DuckDbLogEngineOptions): Promise<DuckDbLogEngine> {
  const firstSegment = (listSegments(options.journalDirectory).at(-1) ?? 0) + 1;
  const workerOptions: WorkerOptions = {
    path: options.path,
    spillDirectory: options.spillDirectory,
    memoryLimit: options.memoryLimit,
    retentionMs: options.retentionMs,
    retentionIntervalMs: options.retentionIntervalMs,
    journalDirectory: options.journalDirectory,
    firstSegment,
    flushDelayMs: FLUSH_DELAY_MS,
    memoryRecords: options.memoryRecords,
    roundsPerPass: options.roundsPerPass ?? 16,
  };
  // The sink exists once the database is open; statuses before that need no answer.
  const opened: { sink?: JournalSink } = {};
  const onStatus = (status: WriterStatus) => opened.sink?.onStatus(status);
  let readFailure: string | undefined;
  const first = startWorker(workerOptions, onStatus, (error) => workers.onDeath(error));
  const ready = await first.ready;
  first.link.status = ready.status;
  // A worker that dies once ready is restarted (worker-supervisor.ts); `workers.link` is always the live one.
  const workers = new WorkerSupervisor(first.link, workerOptions, onStatus, (link, _ready, lostInMemory) => {
    // The reads that failed on the dead worker say nothing of the new one.
    readFailure = undefined;
    opened.sink?.useRestartedWorker(link, lostInMemory);
  });
  // Only now, with the database open: a gw that cannot open it leaves no journal file behind.
  const sink = new JournalSink(new JournalWriter(options.journalDirectory, SEGMENT_BYTES), first.link, options, () => workers.close());
  opened.sink = sink;
  sink.lastRun = { replayed: ready.replayed, lost: ready.lost, unrecorded: ready.unrecorded };
  if (ready.replayed > 0) logger.warn(`request logs: ${ready.replayed} record(s) the last run had journaled but not written are written now (it did not stop cleanly)`);
  if (ready.unrecorded > 0) {
    logger.warn(`request logs: ${ready.unrecorded} record(s) from the last run were not written (it died between answering and recording); each is written now from its answer's marker, without usage, cost, bodies or metadata`);
  }
  if (ready.lost > 0) logger.error(`request logs: ${ready.lost} record(s) of the last run were cut mid-write in the journal and are lost`);

  const engine: DuckDbLogEngine['engine'] = {
    dialect: 'duckdb',
    freshnessMs: FLUSH_DELAY_MS,
    async query(statement: SqlStatement): Promise<QueryResult> {
      try {
        const rows = await workers.link.call<Array<Record<string, unknown>>>({ type: 'query', sql: statement.sql, params: statement.params });
        readFailure = undefined;
        return { rows };
      } catch (error) {
        // Deep health reports a read that met a failing engine until a read succeeds again.
        if (error instanceof LogEngineUnavailableError) readFailure = error.message;
        throw error;
      }
    },
    startExport: (statement, format, destination) => workers.link.call({ type: 'export', sql: statement.sql, params: statement.params, format, destination }),
    exportStatus: (jobId) => workers.link.call({ type: 'export-status', jobId }),
    deleteOlderThan: (cutoffIso) => workers.link.call({ type: 'delete-older-than', cutoffIso }),
  };
  /**
   * The sink's state, a read of the newest record (every column, as the log list reads it: a database damaged
   * under a running gw fails here), and a read API's failure until a read succeeds again. The probe does not
   * clear that failure: it may be served from DuckDB's cache while other blocks are gone.
   */
  const health = async (): Promise<LogSinkHealth> => {
    const written = sink.health();
    if (written.status === 'failed') return written;
    try {
      await workers.link.call({ type: 'query', sql: 'SELECT * FROM requests ORDER BY created_at DESC LIMIT 1', params: [] });
    } catch (error) {
      return Object.assign(written, { status: 'failed' as const, error: (error as Error).message });
    }
    return readFailure ? Object.assign(written, { status: 'failed' as const, error: readFailure }) : written;
  };
  return { engine, sink, health };
}
