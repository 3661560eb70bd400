import { closeSync, fstatSync, ftruncateSync, mkdirSync, openSync, readdirSync, readSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { AnswerMarker } from '../../answer-marker.js';
import type { RequestLogRecord } from '../../log-record.js';
import type { EngineRow, EngineTable } from '../types.js';

/**
 * The request-log journal (issues #42, #48): the main thread appends each record as one JSON line to a file
 * (a `write(2)`, no fsync: the bytes are the kernel's once it returns, so a `kill -9` loses none of them; a power
 * cut may), and the DuckDB worker reads the lines back, writes them in one transaction with its read position,
 * and deletes the files it has passed. A record is thus written to DuckDB exactly once, even across a crash.
 * Files are segments `<12-digit sequence>.jsonl`; a process writes only segments newer than every file it found
 * at start, so a line cut by a crash is always at the end of an older segment and is skipped (and counted).
 */

/**
 * One line of the journal: a whole record, rows of a table (the sink's `append`), the marker of an answer written
 * before it was released (its record follows), or the note that a marked answer's record was dropped (counted).
 */
export type JournalEntry = { r: RequestLogRecord } | { t: EngineTable; rows: EngineRow[] } | { a: AnswerMarker } | { d: string };

export interface JournalPosition {
  segment: number;
  offset: number;
}

const SEGMENT_FILE = /^(\d{12})\.jsonl$/;

export function segmentPath(directory: string, segment: number): string {
  return join(directory, `${String(segment).padStart(12, '0')}.jsonl`);
}

/** The journal's segments, oldest first. */
export function listSegments(directory: string): number[] {
  let names: string[];
  try {
    names = readdirSync(directory);
  } catch {
    return [];
  }
  return names
    .map((name) => SEGMENT_FILE.exec(name)?.[1])
    .filter((digits): digits is string => digits !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}

/** Why the writer could not take a line: the caller keeps the record elsewhere and counts it. */
export class JournalWriteError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'JournalWriteError';
  }
}

/**
 * Appends lines to the newest segment, starting a new one past `segmentBytes`. A line is written whole or not at
 * all: a short write (a full disk, a file-size limit) is cut back off the file, so a reader never meets half a line
 * in the middle of a segment. After a failure the file is reopened at most once a second.
 */
export class JournalWriter {
  /** The first segment of this process: older ones are the last run's, which the worker replays. */
  readonly firstSegment: number;
  private segment: number;
  private fd: number | undefined;
  private size = 0;
  private retryOpenAt = 0;

  constructor(
    private readonly directory: string,
    private readonly segmentBytes: number,
  ) {
    mkdirSync(directory, { recursive: true });
    this.firstSegment = (listSegments(directory).at(-1) ?? 0) + 1;
    this.segment = this.firstSegment;
    this.openSegment();
  }

  /**
   * Appends one line (without its newline); returns the bytes written, or throws a JournalWriteError. A segment
   * that cannot grow (a file-size limit) is closed and the line tried once more in a new one.
   */
  append(line: string): number {
    try {
      return this.appendOnce(line);
    } catch (error) {
      if (this.size === 0) throw error;
      this.rotate();
      return this.appendOnce(line);
    }
  }

  private appendOnce(line: string): number {
    if (this.fd === undefined) {
      if (Date.now() < this.retryOpenAt) throw new JournalWriteError('the journal file could not be opened');
      this.openSegment();
      if (this.fd === undefined) throw new JournalWriteError('the journal file could not be opened');
    }
    // Written as a string: Node encodes it straight into the write, without a Buffer of its own per record.
    const text = `${line}\n`;
    const length = Buffer.byteLength(text);
    let written: number;
    try {
      written = writeSync(this.fd, text);
    } catch (error) {
      this.cutBack();
      throw new JournalWriteError(`could not append to the journal: ${(error as Error).message}`, { cause: error });
    }
    if (written !== length) {
      this.cutBack();
      throw new JournalWriteError(`could not append to the journal: ${written} of ${length} bytes written (disk full or file-size limit)`);
    }
    this.size += written;
    if (this.size >= this.segmentBytes) this.rotate();
    return written;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private rotate(): void {
    this.close();
    this.segment++;
    this.openSegment();
  }

  private openSegment(): void {
    try {
      this.fd = openSync(segmentPath(this.directory, this.segment), 'a');
      this.size = fstatSync(this.fd).size;
    } catch {
      this.fd = undefined;
      this.retryOpenAt = Date.now() + 1_000;
    }
  }

  /** Removes a partly written line; if even that fails, the segment is abandoned for a new one. */
  private cutBack(): void {
    try {
      if (this.fd !== undefined) ftruncateSync(this.fd, this.size);
    } catch {
      this.rotate();
    }
  }
}

export interface JournalRead {
  entries: JournalEntry[];
  /** Where the next read starts once these entries are written. */
  end: JournalPosition;
  /** Lines that were cut by a crash (a segment's unfinished tail with a newer segment after it) or unparseable. */
  lost: number;
  /** Entries read from segments before `firstSegmentOfRun` (the last run's). */
  fromEarlierRuns: number;
}

/**
 * Reads whole lines from `from` on, up to about `maxBytes`, across segments in order. An unfinished line at the end
 * of the newest segment is left for the next read (its writer may be mid-write); one at the end of an older
 * segment was cut by a crash and is counted lost.
 */
export function readJournal(directory: string, from: JournalPosition, maxBytes: number, firstSegmentOfRun: number): JournalRead {
  const segments = listSegments(directory).filter((segment) => segment >= from.segment);
  const result: JournalRead = { entries: [], end: { ...from }, lost: 0, fromEarlierRuns: 0 };
  let budget = maxBytes;
  for (let index = 0; index < segments.length && budget > 0; index++) {
    const segment = segments[index];
    const newer = index < segments.length - 1;
    const offset = segment === result.end.segment ? result.end.offset : 0;
    const data = readTail(segmentPath(directory, segment), offset, budget);
    const lastNewline = data.lastIndexOf(0x0a);
    const complete = lastNewline + 1;
    for (const line of data.subarray(0, complete).toString('utf8').split('\n')) {
      if (line.length === 0) continue;
      try {
        result.entries.push(JSON.parse(line) as JournalEntry);
        if (segment < firstSegmentOfRun) result.fromEarlierRuns++;
      } catch {
        result.lost++;
      }
    }
    budget -= complete;
    const atEnd = offset + data.length >= fileSize(segmentPath(directory, segment));
    if (newer && atEnd && budget > 0) {
      if (complete < data.length) result.lost++;
      result.end = { segment: segments[index + 1], offset: 0 };
    } else {
      result.end = { segment, offset: offset + complete };
      break;
    }
  }
  return result;
}

/** Deletes the segments wholly before `position` (their lines are in DuckDB). */
export function deleteSegmentsBefore(directory: string, position: JournalPosition): void {
  for (const segment of listSegments(directory)) {
    if (segment >= position.segment) break;
    rmSync(segmentPath(directory, segment), { force: true });
  }
}

/** Bytes not yet read: the rest of the position's segment and every newer one. */
export function journalBacklogBytes(directory: string, position: JournalPosition): number {
  let bytes = 0;
  for (const segment of listSegments(directory)) {
    if (segment < position.segment) continue;
    bytes += fileSize(segmentPath(directory, segment)) - (segment === position.segment ? position.offset : 0);
  }
  return Math.max(0, bytes);
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

function readTail(path: string, offset: number, maxBytes: number): Buffer {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return Buffer.alloc(0);
  }
  try {
    const length = Math.max(0, Math.min(fstatSync(fd).size - offset, maxBytes));
    const buffer = Buffer.allocUnsafe(length);
    let read = 0;
    while (read < length) {
      const count = readSync(fd, buffer, read, length - read, offset + read);
      if (count === 0) break;
      read += count;
    }
    return buffer.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}
