import { parentPort, workerData } from 'node:worker_threads';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { sqlTimestamp } from '../columns.js';
import { recordFromMarker } from '../../answer-marker.js';
import type { RequestLogRecord } from '../../log-record.js';
import { emptyBatch } from './batch-columns.js';
import { openDuckDb } from './open-database.js';
import { ExportJobs } from './export-jobs.js';
import { deleteSegmentsBefore, journalBacklogBytes, readJournal, type JournalPosition } from './journal.js';
import { isEngineFailure, type FromWorker, type ToWorker, type WorkerOptions, type WriterStatus } from './protocol.js';
import { OPEN_ANSWERS_TABLE_SQL, OpenAnswers } from './open-answers.js';
import { POSITION_TABLE_SQL, TransactionalWriter } from './transactional-writer.js';

/**
 * The DuckDB worker thread (issue #48): it owns the database, so no append, commit or query ever runs on the
 * gateway's event loop. Every `flushDelayMs` (or on a flush) it reads the journal from the committed position,
 * writes those records with the records the journal could not take, and commits them with the new position; a
 * failed write keeps everything for the next pass. Reads and exports run here on their own connections.
 */

/** A pass reads at most this much of the journal; a longer backlog takes several passes. */
const PASS_BYTES = 16 * 1024 * 1024;
/** After a failed write, the next pass waits this long, doubled per failure up to 30 s. */
const RETRY_BASE_MS = 500;

const port = parentPort!;
const options = workerData as WorkerOptions;
const post = (message: FromWorker) => port.postMessage(message);

let instance: DuckDBInstance;
let writer: TransactionalWriter;
let position: JournalPosition;
const memory: RequestLogRecord[] = [];
const answers = new OpenAnswers();
/** Records dropped from memory whose answers' markers the next write closes. */
const droppedIds: string[] = [];
let droppedInMemory = 0;
let written = 0;
let failing: WriterStatus['failing'];
let failures = 0;
let timer: NodeJS.Timeout | undefined;
let passing: Promise<void> | undefined;
let closed = false;
let exports: ExportJobs;

async function start(): Promise<void> {
  try {
    const opened = await openDuckDb(options);
    instance = opened.instance;
    const setup = await instance.connect();
    await setup.run(POSITION_TABLE_SQL);
    await setup.run(OPEN_ANSWERS_TABLE_SQL);
    setup.closeSync();
    writer = new TransactionalWriter(await instance.connect(), opened.values);
    position = (await writer.position()) ?? { segment: 0, offset: 0 };
    answers.load(await writer.openAnswers());
  } catch (error) {
    post({ type: 'open-failed', message: (error as Error).message });
    return;
  }
  exports = new ExportJobs(withConnection);
  // The last run's journal tail: records it answered but had not yet written to DuckDB (a crash, a kill -9).
  const before = written;
  let lost = 0;
  // The whole tail, however long (a drain stops after 16 passes): until a drain moves no further. An unfinished
  // line at the very end (cut by the kill) stays unread and keeps the backlog above 0, so progress is the test.
  for (let from = undefined as JournalPosition | undefined; !failing && (from?.segment !== position.segment || from.offset !== position.offset); ) {
    from = position;
    lost += (await drain()).lost;
  }
  const replayed = written - before;
  // A worker restarted under a running gw leaves the open answers be: their records are still on their way.
  const unrecorded = options.restarted || failing ? 0 : await recordUnrecordedAnswers();
  await applyRetention();
  post({ type: 'ready', replayed, lost, unrecorded, status: status() });
  if (options.retentionIntervalMs > 0) setInterval(() => void applyRetention(), options.retentionIntervalMs).unref();
  schedule(options.flushDelayMs);
}

/**
 * The last run's answers whose marker was journaled but whose record never was (it died in between): each becomes
 * a record from its marker, so no answered request is missing; counted for the start-up line.
 */
async function recordUnrecordedAnswers(): Promise<number> {
  const markers = answers.all();
  if (markers.length === 0) return 0;
  const staged = answers.stage();
  for (const marker of markers) staged.close(marker.id);
  const batch = emptyBatch();
  batch.records.push(...markers.map(recordFromMarker));
  try {
    await writer.write(batch, position, staged.changes());
  } catch (error) {
    failing = { message: (error as Error).message, sinceMs: Date.now() };
    return 0;
  }
  answers.commit(staged);
  written += markers.length;
  return markers.length;
}

/** Writes everything the journal and the memory queue hold now; stops at the first failure. */
async function drain(): Promise<{ lost: number }> {
  let lost = 0;
  // Bounded, so a flush under sustained load returns: what arrives meanwhile is the next pass's.
  for (let round = 0; round < options.roundsPerPass; round++) {
    const read = readJournal(options.journalDirectory, position, PASS_BYTES, options.firstSegment);
    lost += read.lost;
    const held = memory.slice();
    const moved = read.end.segment !== position.segment || read.end.offset !== position.offset;
    if (read.entries.length === 0 && held.length === 0 && !moved) break;
    const batch = emptyBatch();
    const staged = answers.stage();
    for (const entry of read.entries) {
      if ('r' in entry) {
        batch.records.push(entry.r);
        staged.close(entry.r.id);
      } else if ('a' in entry) staged.open(entry.a);
      else if ('d' in entry) staged.close(entry.d);
      else batch.rows[entry.t].push(...entry.rows);
    }
    for (const record of held) staged.close(record.id);
    const dropNotes = droppedIds.length;
    for (const id of droppedIds.slice(0, dropNotes)) staged.close(id);
    batch.records.push(...held);
    try {
      await writer.write(batch, read.end, staged.changes());
    } catch (error) {
      failures++;
      failing = { message: (error as Error).message, sinceMs: failing?.sinceMs ?? Date.now() };
      break;
    }
    answers.commit(staged);
    droppedIds.splice(0, dropNotes);
    failures = 0;
    failing = undefined;
    written += batch.records.length + batch.rows.requests.length;
    memory.splice(0, held.length);
    position = read.end;
    deleteSegmentsBefore(options.journalDirectory, position);
  }
  return { lost };
}

function pass(): Promise<void> {
  passing ??= drain()
    .then(() => post({ type: 'status', status: status() }))
    .finally(() => (passing = undefined));
  return passing;
}

/**
 * A pass that covers every line journaled before it was asked for. Joining a pass already running is not enough:
 * that pass may have read the journal for the last time (its bound of rounds reached) before those lines were
 * written, and a flush that returned then left records unwritten (a CI run counted 196 of 200 after a drain).
 */
async function passCoveringNow(): Promise<void> {
  if (passing) await passing.catch(() => undefined);
  // Another flush that waited on the same pass may have started the next one first: it began after this call too.
  await pass();
}

function schedule(delayMs: number): void {
  if (closed) return;
  clearTimeout(timer);
  timer = setTimeout(() => {
    void pass().then(() => schedule(failures > 0 ? Math.min(30_000, RETRY_BASE_MS * 2 ** (failures - 1)) : options.flushDelayMs));
  }, delayMs);
}

function status(): WriterStatus {
  return {
    position,
    backlogBytes: journalBacklogBytes(options.journalDirectory, position),
    inMemory: memory.length,
    droppedInMemory,
    written,
    failing,
  };
}

async function withConnection<T>(work: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
  const connection = await instance.connect();
  try {
    return await work(connection);
  } finally {
    connection.closeSync();
  }
}

async function deleteOlderThan(cutoffIso: string): Promise<number> {
  return withConnection(async (connection) => {
    const cutoff = sqlTimestamp(cutoffIso);
    const requests = await connection.run('DELETE FROM requests WHERE created_at < CAST(? AS TIMESTAMP)', [cutoff]);
    await connection.run('DELETE FROM spans WHERE start_time < CAST(? AS TIMESTAMP)', [cutoff]);
    return requests.rowsChanged;
  });
}

function applyRetention(): Promise<unknown> {
  return deleteOlderThan(new Date(Date.now() - options.retentionMs).toISOString()).catch((error: unknown) => console.error(`gw: request-log retention failed: ${(error as Error).message}`));
}

/** Plain values that cross to the main thread: bigints (counts, sums) as numbers, timestamps as ISO strings. */
function plainRow(row: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(row)) {
    result[name] = typeof value === 'bigint' ? Number(value) : value instanceof Date ? value.toISOString() : value;
  }
  return result;
}

async function handle(message: ToWorker): Promise<unknown> {
  switch (message.type) {
    case 'records': {
      for (const record of message.records) {
        if (memory.length < options.memoryRecords) memory.push(record);
        else {
          droppedInMemory++;
          // Counted as dropped: its answer's marker must not become a record at the next start.
          droppedIds.push(record.id);
        }
      }
      return undefined;
    }
    case 'flush':
      // A drain (local shutdown, tests) also waits for exports in flight, so none is cut half written.
      await passCoveringNow();
      await exports.settled();
      return status();
    case 'close':
      closed = true;
      clearTimeout(timer);
      await passCoveringNow();
      await exports.settled();
      writer.close();
      instance.closeSync();
      return status();
    case 'query': {
      const reader = await withConnection((connection) => connection.runAndReadAll(message.sql, message.params));
      return reader.getRowObjectsJS().map(plainRow);
    }
    case 'export':
      return exports.start(message.sql, message.params, message.format, message.destination);
    case 'export-status':
      return exports.status(message.jobId);
    case 'delete-older-than':
      return deleteOlderThan(message.cutoffIso);
  }
}

port.on('message', (message: ToWorker) => {
  const work = handle(message);
  if (!('id' in message)) {
    void work.catch(() => undefined);
    return;
  }
  work.then(
    (value) => post({ type: 'reply', id: message.id, value }),
    (error: unknown) => {
      const text = (error as Error).message ?? String(error);
      post({ type: 'reply', id: message.id, error: { message: text, unavailable: isEngineFailure(text) } });
    },
  );
});

void start();
