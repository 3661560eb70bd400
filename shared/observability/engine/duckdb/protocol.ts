import type { RequestLogRecord } from '../../log-record.js';
import type { JournalPosition } from './journal.js';

/** What the main thread tells the DuckDB worker (worker.ts). Requests with an `id` get one `reply`. */
export type ToWorker =
  | { type: 'flush'; id: number }
  | { type: 'close'; id: number }
  /** Records the journal could not take (a full disk): kept in the worker's memory, bounded, until written. */
  | { type: 'records'; records: RequestLogRecord[] }
  | { type: 'query'; id: number; sql: string; params: Array<string | number | boolean | null> }
  | { type: 'export'; id: number; sql: string; params: Array<string | number | boolean | null>; format: 'jsonl' | 'parquet' | 'csv'; destination: string }
  | { type: 'export-status'; id: number; jobId: string }
  | { type: 'delete-older-than'; id: number; cutoffIso: string };

/** How the writing stands, sent after every pass over the journal. */
export interface WriterStatus {
  position: JournalPosition;
  /** Journal bytes not yet in DuckDB. */
  backlogBytes: number;
  /** Records held in the worker's memory (the journal could not take them) not yet in DuckDB. */
  inMemory: number;
  /** Records the worker's memory bound made it drop, since start. */
  droppedInMemory: number;
  /** Requests written to DuckDB since start. */
  written: number;
  /** The last write's error while writes fail; undefined once one succeeds. */
  failing?: { message: string; sinceMs: number };
}

export type FromWorker =
  /** `unrecorded`: the last run's answers with a marker but no record, written now from their markers. */
  | { type: 'ready'; replayed: number; lost: number; unrecorded: number; status: WriterStatus }
  | { type: 'open-failed'; message: string }
  | { type: 'status'; status: WriterStatus }
  | { type: 'reply'; id: number; value?: unknown; error?: { message: string; unavailable: boolean } };

/** Options the worker is started with (workerData). */
export interface WorkerOptions {
  path: string;
  spillDirectory: string;
  memoryLimit: string;
  retentionMs: number;
  retentionIntervalMs: number;
  journalDirectory: string;
  /** This process's first journal segment: older ones are the last run's. */
  firstSegment: number;
  flushDelayMs: number;
  memoryRecords: number;
  /** Read-and-write rounds of one pass before it yields to the next (a pass under sustained load returns). */
  roundsPerPass: number;
  /** A worker started again under a running gw (its last one died): the open answers are not the last run's. */
  restarted?: boolean;
}

/**
 * DuckDB errors that mean the engine itself is unusable (a damaged, unreadable or vanished file, a database
 * invalidated by an earlier fatal error), not a query gw got wrong: the read APIs answer them 503.
 */
export function isEngineFailure(message: string): boolean {
  return /^(IO Error|FATAL Error|Fatal Error|INTERNAL Error|Serialization Error)|database has been invalidated|not a valid DuckDB database|Could not (read|write|set lock)|No space left|File too large/i.test(message);
}
