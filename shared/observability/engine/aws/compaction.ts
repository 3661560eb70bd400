import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { compactionRows } from '../log-queries.js';
import { WORKSPACE_BUCKET_COLUMN } from '../sql.js';
import type { EngineTable } from '../types.js';
import type { AthenaQueryEngine } from './athena-engine.js';

/**
 * The daily compaction of request logs on AWS (issue #32; functions/compact-request-logs, docs/deploy.md). Firehose
 * writes a Parquet file per 45 s buffer (~1,920 a day per table, rows of every workspace mixed), so a workspace's
 * 30-day query opens and reads every one of them. Once a day is finished, its rows are rewritten by one Athena
 * UNLOAD into `compacted/<table>/day=D/ws_bucket=K/` (the `<table>_compacted` Glue table: a few files per day,
 * sorted by workspace and time, one folder per workspace hash bucket), a marker records it, and the raw files
 * that were compacted are deleted: a read takes both tables (sql.ts rowsOf), and no row is ever in both.
 *
 * One run works at a time (a lock object written only if absent). Each step can be repeated: a day with a marker is
 * done (raw files it lists that are still there are deleted again); a day without one has its partial output
 * removed and is unloaded again. A raw file that arrives for a day after it was listed stays raw and is still read.
 * Days are taken oldest first; a failure stops the run (the function's error alarm), and the next run starts where
 * it stopped.
 */
export interface CompactionOptions {
  engine: Pick<AthenaQueryEngine, 'unload' | 'exportStatus' | 'stop'>;
  s3: S3Client;
  /** The bucket Firehose delivers to (`<table>/day=D/`); the compacted days go under `compacted/` of it. */
  dataBucket: string;
  /** The time the run stands for (the schedule's event time): it compacts the finished days before it. */
  now: Date;
  /** No UNLOAD is started, and a running one is stopped, past this time (epoch ms): the Lambda's own end. */
  deadline: number;
  tables?: readonly EngineTable[];
  /** How many finished days back a run looks for a day not compacted yet. */
  lookbackDays?: number;
  /** Waits between polls of a running UNLOAD; the last repeats. */
  pollDelaysMs?: readonly number[];
}

/** `deferred`: left for the next run (the deadline came, or another run holds the lock). */
export type DayOutcome = 'compacted' | 'already-compacted' | 'nothing-to-compact' | 'deferred';

export interface DayCompaction {
  table: EngineTable;
  day: string;
  outcome: DayOutcome;
  /** Rows written (Athena's runtime statistics), for a day compacted by this run. */
  rows?: number;
  /** Raw files deleted by this run. */
  deletedRawFiles: number;
}

/** What a compacted day's marker holds: the raw files it replaced, so a repeated run deletes only those. */
interface Marker {
  table: EngineTable;
  day: string;
  rows: number | null;
  files: string[];
  raw_files: string[];
  compacted_at: string;
}

export const DEFAULT_LOOKBACK_DAYS = 7;
/**
 * A day is compacted only this long after it ended: Firehose has written its last buffer (45 s) by then, so the
 * raw files listed for the day are all it will get (a later one, after an S3 outage, stays raw and is still read).
 */
export const SETTLE_MS = 15 * 60_000;
const MARKER_NAME = '_gw_compaction.json';
/**
 * One run at a time: a run holds this object (created only if absent, S3's conditional write) while it works, since
 * two at once could remove each other's UNLOAD output. Under `compacted/` but in no table's folder, so never read.
 */
export const LOCK_KEY = 'compacted/_gw_compaction.lock';
/** A lock older than this is a run that died without releasing it (the function's timeout is 15 minutes). */
export const STALE_LOCK_MS = 20 * 60_000;
const DAY_MS = 86_400_000;
const DELETE_CONCURRENCY = 16;

export class CompactionFailedError extends Error {
  constructor(table: EngineTable, day: string, reason: string) {
    super(`compaction of ${table} day=${day} failed: ${reason}`);
    this.name = 'CompactionFailedError';
  }
}

/** The finished days a run at `now` considers, oldest first (UTC `YYYY-MM-DD`). */
export function daysToCompact(now: Date, lookbackDays = DEFAULT_LOOKBACK_DAYS): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const days: string[] = [];
  for (let back = lookbackDays; back >= 1; back--) {
    const start = today - back * DAY_MS;
    if (now.getTime() >= start + DAY_MS + SETTLE_MS) days.push(new Date(start).toISOString().slice(0, 10));
  }
  return days;
}

export async function compactRequestLogs(options: CompactionOptions): Promise<DayCompaction[]> {
  const bucket = new LogBucket(options.s3, options.dataBucket);
  const days = daysToCompact(options.now, options.lookbackDays).flatMap((day) => (options.tables ?? (['requests', 'spans'] as const)).map((table) => ({ table, day })));
  const deferred = (entry: { table: EngineTable; day: string }): DayCompaction => ({ outcome: 'deferred', deletedRawFiles: 0, ...entry });
  if (!(await takeLock(bucket))) return days.map(deferred);
  try {
    const results: DayCompaction[] = [];
    for (const entry of days) results.push(Date.now() >= options.deadline ? deferred(entry) : await compactDay(options, bucket, entry.table, entry.day));
    return results;
  } finally {
    await bucket.delete(LOCK_KEY);
  }
}

/** Creates the lock if no run holds it; takes over one left by a run that died (older than STALE_LOCK_MS). */
async function takeLock(bucket: LogBucket): Promise<boolean> {
  const lock = JSON.stringify({ started_at: new Date().toISOString() });
  if (await bucket.writeIfAbsent(LOCK_KEY, lock)) return true;
  const held = JSON.parse((await bucket.readIfPresent(LOCK_KEY)) ?? '{}') as { started_at?: string };
  if (held.started_at !== undefined && Date.now() - Date.parse(held.started_at) < STALE_LOCK_MS) return false;
  await bucket.delete(LOCK_KEY);
  return bucket.writeIfAbsent(LOCK_KEY, lock);
}

async function compactDay(options: CompactionOptions, bucket: LogBucket, table: EngineTable, day: string): Promise<DayCompaction> {
  const compactedPrefix = `compacted/${table}/day=${day}/`;
  const markerKey = `${compactedPrefix}${MARKER_NAME}`;
  const rawPrefix = `${table}/day=${day}/`;
  const compacted = await bucket.list(compactedPrefix);

  if (compacted.includes(markerKey)) {
    // Done before; a run that stopped between its marker and its deletes left some of the listed raw files.
    const marker = JSON.parse(await bucket.read(markerKey)) as Marker;
    const listed = new Set(marker.raw_files);
    const leftovers = (await bucket.list(rawPrefix)).filter((key) => listed.has(key));
    await bucket.deleteAll(leftovers);
    return { table, day, outcome: 'already-compacted', deletedRawFiles: leftovers.length };
  }

  const raw = await bucket.list(rawPrefix);
  if (raw.length === 0) return { table, day, outcome: 'nothing-to-compact', deletedRawFiles: 0 };
  // An UNLOAD writes only into an empty prefix: what a failed or stopped attempt left is removed first.
  await bucket.deleteAll(compacted);
  const jobId = await options.engine.unload(compactionRows(table, day), 'parquet', `s3://${options.dataBucket}/${compactedPrefix}`, [WORKSPACE_BUCKET_COLUMN]);
  const status = await waitForUnload(options, jobId, table, day);
  const marker: Marker = { table, day, rows: status.rows ?? null, files: status.outputs ?? [], raw_files: raw, compacted_at: new Date().toISOString() };
  await bucket.write(markerKey, JSON.stringify(marker));
  await bucket.deleteAll(raw);
  return { table, day, outcome: 'compacted', rows: status.rows, deletedRawFiles: raw.length };
}

async function waitForUnload(options: CompactionOptions, jobId: string, table: EngineTable, day: string): Promise<{ outputs?: string[]; rows?: number }> {
  const delays = options.pollDelaysMs ?? [500, 1_000, 2_000, 5_000];
  for (let poll = 0; ; poll++) {
    const status = await options.engine.exportStatus(jobId);
    if (status.state === 'succeeded') return status;
    if (status.state === 'failed') throw new CompactionFailedError(table, day, status.error ?? 'UNLOAD failed');
    if (Date.now() >= options.deadline) {
      // Stopped, so it writes nothing more: the next run removes what it wrote and starts the day again.
      await options.engine.stop(jobId);
      throw new CompactionFailedError(table, day, `the UNLOAD (${jobId}) was still running at the function's deadline and was stopped`);
    }
    await new Promise((resolve) => setTimeout(resolve, delays[Math.min(poll, delays.length - 1)]));
  }
}

/** The few S3 calls of the compaction, on the data bucket. */
class LogBucket {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
  ) {}

  async list(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.s3.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }));
      for (const object of page.Contents ?? []) if (object.Key && !object.Key.endsWith('/')) keys.push(object.Key);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return keys.sort();
  }

  async read(key: string): Promise<string> {
    const object = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
    return (await object.Body?.transformToString('utf8')) ?? '';
  }

  async write(key: string, body: string): Promise<void> {
    await this.s3.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentType: 'application/json' }));
  }

  /** False when the key exists (S3's conditional write, `If-None-Match: *`, answers 412). */
  async writeIfAbsent(key: string, body: string): Promise<boolean> {
    try {
      await this.s3.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentType: 'application/json', IfNoneMatch: '*' }));
      return true;
    } catch (error) {
      if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 412) return false;
      throw error;
    }
  }

  async readIfPresent(key: string): Promise<string | undefined> {
    try {
      return await this.read(key);
    } catch (error) {
      if ((error as { name?: string }).name === 'NoSuchKey') return undefined;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await this.s3.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  /** One DeleteObject per key, a few at a time (deletes are free; ~2,000 raw files a day per table). */
  async deleteAll(keys: readonly string[]): Promise<void> {
    let next = 0;
    const worker = async () => {
      while (next < keys.length) await this.delete(keys[next++]);
    };
    await Promise.all(Array.from({ length: Math.min(DELETE_CONCURRENCY, keys.length) }, worker));
  }
}
