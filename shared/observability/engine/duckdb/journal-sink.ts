import type { AnswerMarker } from '../../answer-marker.js';
import type { RequestLogRecord } from '../../log-record.js';
import { logger } from '../../logger.js';
import { recordDroppedLogRecordsMetric } from '../../metrics.js';
import type { EngineRow, EngineTable, LogEventSink } from '../types.js';
import { JournalWriteError, type JournalWriter } from './journal.js';
import type { WriterStatus } from './protocol.js';
import type { WorkerLink } from './worker-link.js';

/** How the request-log sink stands, for `/health?deep=true` (shared/gateway/health.ts). */
export interface LogSinkHealth {
  status: 'ok' | 'degraded' | 'failed';
  /** Journal bytes and in-memory records not yet in the database. */
  pending_bytes: number;
  pending_in_memory: number;
  /** Records given up since start (the bounds below were reached), and when the last one was. */
  dropped_records: number;
  last_drop_at?: string;
  /** What the last run left in the journal: written at this start, or cut mid-write by a crash and lost. */
  /** `unrecorded`: answers whose record it never wrote (killed in between), written at this start from their markers. */
  last_run?: { replayed: number; lost: number; unrecorded: number };
  /** Times the DuckDB worker died and was started again since start (it replays the journal), and the last one. */
  worker_restarts?: number;
  last_worker_restart_at?: string;
  error?: string;
}

export interface JournalSinkBounds {
  /** Past this many journal bytes not yet in the database, new records are dropped (and counted). */
  journalMaxBytes: number;
  /** Records the journal cannot take (a full disk) wait in memory, up to this many; more are dropped. */
  memoryRecords: number;
}

/** A drop (or a worker restart) stays in the health's status this long: time for an operator's check to see it. */
const DROP_DEGRADES_MS = 5 * 60_000;
const LOUD_EVERY_MS = 10_000;

/**
 * The sink the gateway's after-path calls (issues #42, #48): each record becomes one journal line, written before
 * `appendRecord` returns (a few µs; `kill -9` can no longer lose it), and the DuckDB worker takes it from there.
 * A record the journal cannot take (a full disk) waits in memory, bounded, and goes to the worker; past either
 * bound a record is dropped, counted, logged (at most every 10 s) and metered, and deep health says degraded.
 */
export class JournalSink implements LogEventSink {
  private unjournaled: RequestLogRecord[] = [];
  private sendTimer: NodeJS.Timeout | undefined;
  private bytesSinceStatus = 0;
  private journalError: string | undefined;
  private dropped = 0;
  private lastDropAt = 0;
  private lastLoudAt = 0;
  private closed = false;
  private reportedFailing = false;
  private restarts = 0;
  private lastRestartAt = 0;
  lastRun: LogSinkHealth['last_run'];

  constructor(
    private readonly journal: JournalWriter,
    private link: WorkerLink,
    private readonly bounds: JournalSinkBounds,
    /** Called first at close: a worker that exits from now on is not restarted. */
    private readonly stopRestarts: () => void = () => undefined,
  ) {}

  /** The live DuckDB worker thread (diagnostics; the fault tests stop it to see it restarted). */
  get worker(): WorkerLink['worker'] {
    return this.link.worker;
  }

  /**
   * The worker died and another took over (worker-supervisor.ts): it replayed the journal; the records the dead one
   * held in memory (the journal could not take them) are lost with it and counted as dropped.
   */
  useRestartedWorker(link: WorkerLink, lostInMemory: number): void {
    this.link = link;
    this.restarts++;
    this.lastRestartAt = Date.now();
    if (lostInMemory > 0) this.drop(lostInMemory, 'the DuckDB worker that held them in memory died');
  }

  appendRecord(record: RequestLogRecord): void {
    if (this.closed) return;
    this.keep(() => JSON.stringify({ r: record }), record);
  }

  /**
   * The marker of an answer about to be released (issue #42): journaled before its last byte leaves gw, so a
   * `kill -9` before the after-path's record still leaves a record at the next start. Best effort: a marker the
   * journal cannot take is not kept (its record, when it comes, is kept as any other).
   */
  appendAnswer(marker: AnswerMarker): void {
    if (this.closed || this.unjournaled.length > 0) return;
    if ((this.link.status?.backlogBytes ?? 0) + this.bytesSinceStatus >= this.bounds.journalMaxBytes) return;
    try {
      this.bytesSinceStatus += this.journal.append(JSON.stringify({ a: marker }));
    } catch {
      // The record that follows meets the same journal and is kept in memory or counted.
    }
  }

  append(table: EngineTable, rows: EngineRow[]): void {
    if (this.closed || rows.length === 0) return;
    // Rows without a record (tests, tools): journaled alike; when the journal refuses them they are dropped.
    this.keep(() => JSON.stringify({ t: table, rows }), undefined, rows.length);
  }

  /** Writes what waits, now; resolves once the worker has committed it (or failed to, keeping it). */
  async flush(): Promise<void> {
    this.sendUnjournaled();
    if (this.link.dead) return;
    await this.link.call({ type: 'flush' }).catch(() => undefined);
  }

  async close(): Promise<void> {
    this.stopRestarts();
    await this.flush();
    this.closed = true;
    clearTimeout(this.sendTimer);
    const last = await this.link.call<WriterStatus>({ type: 'close' }).catch(() => undefined);
    this.journal.close();
    // A shutdown is not clean for request logs while records wait: they stay in the journal for the next start.
    const waiting = last ? last.backlogBytes + last.inMemory : undefined;
    if (waiting === undefined || waiting > 0 || last?.failing) {
      logger.error('request logs: not every record is written to DuckDB at shutdown; the journal keeps them and the next start writes them', {
        pending_bytes: last?.backlogBytes,
        lost_in_memory: last?.inMemory,
        error_message: last?.failing?.message ?? this.link.dead?.message,
      });
    }
    await this.link.worker.terminate();
  }

  /** Called with each status the worker sends: the journal backlog is known again, failures are reported. */
  onStatus(status: WriterStatus): void {
    this.bytesSinceStatus = 0;
    if (status.failing && !this.reportedFailing) {
      this.reportedFailing = true;
      logger.error('request logs cannot be written to DuckDB; records are kept in the journal and retried', { error_message: status.failing.message, pending_bytes: status.backlogBytes });
    } else if (!status.failing && this.reportedFailing) {
      this.reportedFailing = false;
      logger.info('request logs are written to DuckDB again');
    }
  }

  health(): LogSinkHealth {
    const status = this.link.status;
    const recentDrop = this.dropped > 0 && Date.now() - this.lastDropAt < DROP_DEGRADES_MS;
    const recentRestart = this.restarts > 0 && Date.now() - this.lastRestartAt < DROP_DEGRADES_MS;
    const error = this.link.dead?.message ?? status?.failing?.message ?? this.journalError;
    return {
      status: this.link.dead ? 'failed' : status?.failing || this.journalError || recentDrop || recentRestart ? 'degraded' : 'ok',
      pending_bytes: (status?.backlogBytes ?? 0) + this.bytesSinceStatus,
      pending_in_memory: (status?.inMemory ?? 0) + this.unjournaled.length,
      dropped_records: this.dropped + (status?.droppedInMemory ?? 0),
      ...(this.lastDropAt > 0 ? { last_drop_at: new Date(this.lastDropAt).toISOString() } : {}),
      ...(this.lastRun ? { last_run: this.lastRun } : {}),
      worker_restarts: this.restarts,
      ...(this.lastRestartAt > 0 ? { last_worker_restart_at: new Date(this.lastRestartAt).toISOString() } : {}),
      ...(error ? { error } : {}),
    };
  }

  private keep(line: () => string, record: RequestLogRecord | undefined, count = 1): void {
    const backlog = (this.link.status?.backlogBytes ?? 0) + this.bytesSinceStatus;
    if (backlog >= this.bounds.journalMaxBytes) {
      this.drop(count, `the journal holds ${backlog} bytes not yet written (GW_LOG_JOURNAL_MAX_BYTES)`, record);
      return;
    }
    // Records already waiting in memory go first, in order: a new one joins them until the journal takes lines again.
    if (this.unjournaled.length === 0) {
      try {
        this.bytesSinceStatus += this.journal.append(line());
        this.journalError = undefined;
        return;
      } catch (error) {
        this.journalError = (error as Error).message;
        if (!(error instanceof JournalWriteError)) logger.error('a request-log record could not be journaled', { error: error as Error });
      }
    }
    if (!record || this.unjournaled.length >= this.bounds.memoryRecords) {
      this.drop(count, `the journal cannot be written (${this.journalError ?? 'unknown'}) and ${this.unjournaled.length} records already wait in memory (GW_LOG_MEMORY_BUFFER_RECORDS)`, record);
      return;
    }
    this.unjournaled.push(record);
    this.sendTimer ??= setTimeout(() => this.sendUnjournaled(), 100).unref();
  }

  /** Hands the records the journal refused to the worker, which keeps them (bounded) until it has written them. */
  private sendUnjournaled(): void {
    clearTimeout(this.sendTimer);
    this.sendTimer = undefined;
    if (this.unjournaled.length === 0) return;
    // A worker being restarted takes nothing: they wait here (bounded as before) for the next one.
    if (this.link.dead) {
      if (!this.closed) this.sendTimer = setTimeout(() => this.sendUnjournaled(), 100).unref();
      return;
    }
    const records = this.unjournaled;
    this.unjournaled = [];
    this.link.send({ type: 'records', records });
  }

  private drop(count: number, why: string, record?: RequestLogRecord): void {
    // Its answer's marker may be journaled: a note (a few bytes, past the bound) closes it, so the next start does
    // not write as a record what was counted as dropped.
    if (record) {
      try {
        this.journal.append(JSON.stringify({ d: record.id }));
      } catch {
        // Then the next start writes the marker's record: one more record, never one fewer.
      }
    }
    this.dropped += count;
    this.lastDropAt = Date.now();
    recordDroppedLogRecordsMetric(count);
    if (this.lastDropAt - this.lastLoudAt >= LOUD_EVERY_MS) {
      this.lastLoudAt = this.lastDropAt;
      logger.error(`request-log records DROPPED: ${this.dropped} since start, because ${why}`, { dropped_records: this.dropped });
    }
  }
}
