import { randomBytes } from 'node:crypto';
import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { WORKSPACE_BUCKET_COLUMN } from '../sql.js';
import type { EngineTable } from '../types.js';
import type { AthenaQueryEngine } from './athena-engine.js';
import { compactionRows } from './compaction-sql.js';
import { latestPerDay, LEGACY_RUN, listCompactedDays, newRunId, runStartedAt, sliceOf, stateKey, STATE_PREFIX, type CompactedDay } from './compaction-state.js';

/**
 * The daily compaction of request logs on AWS (issue #32; functions/compact-request-logs, docs/deploy.md). Firehose
 * writes a Parquet file per 45 s buffer (~1,920 a day per table, rows of every workspace mixed), so a workspace's
 * 30-day query opens and reads every one of them. Once a day is finished, its rows are rewritten by one Athena
 * UNLOAD into a folder of the run's own, `compacted/<table>/day=D.<run id>/ws_bucket=K/` (the `<table>_compacted`
 * Glue table: a few files per day, sorted by workspace and time, one folder per workspace hash bucket).
 *
 * Exactly once (issue #41): a day is read from exactly one side, switched by its state object (compaction-state.ts),
 * written only after the UNLOAD succeeded. The UNLOAD reads only the day's raw files modified at or before a cutoff
 * (the newest file listed); a raw file that shows up during the UNLOAD at or before that cutoff (an upload that
 * started before the listing) leaves the day raw for the next run (`unsettled`). Until the state exists no read
 * names the run's folder, so a failed or stopped run's files are never read; they are removed by a later run. Raw
 * files are deleted only as garbage: by a run at least GC_GRACE_MS after the switch (longer than any read's cached
 * state or running query), and only those at or before the cutoff, after checking each is one the run listed.
 *
 * One run works at a time (a lock object written only if absent). Days are taken oldest first; a failure stops the
 * run (the function's error alarm), and the next run starts where it stopped.
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
  /** How long after its switch a day's compacted raw files may be deleted (GC_GRACE_MS; tests shorten it). */
  gcGraceMs?: number;
}

/**
 * `deferred`: left for the next run (the deadline came, or another run holds the lock). `unsettled`: a raw file at or
 * before the cutoff appeared during the UNLOAD, so the day stays raw and the next run compacts it again. `reopened`: a
 * compacted day's raw files included one its run never listed, so the state was removed and the day is raw again.
 */
export type DayOutcome = 'compacted' | 'already-compacted' | 'nothing-to-compact' | 'deferred' | 'unsettled' | 'reopened';

export interface DayCompaction {
  table: EngineTable;
  day: string;
  outcome: DayOutcome;
  /** Rows written (Athena's runtime statistics), for a day compacted by this run. */
  rows?: number;
  /** Raw files deleted by this run. */
  deletedRawFiles: number;
}

/** What a compacted day's state object holds (its key alone is what reads need: compaction-state.ts). */
interface StateBody {
  table: EngineTable;
  day: string;
  slice: string;
  run_id: string;
  cutoff: string;
  rows: number | null;
  files: string[];
  raw_files: string[];
  compacted_at: string;
}

export const DEFAULT_LOOKBACK_DAYS = 7;
/**
 * A day is compacted only this long after it ended: Firehose has written its last buffer by then, so nearly every
 * raw file of the day is compacted (a later one stays raw and is still read, exactly once).
 */
export const SETTLE_MS = 15 * 60_000;
/** Raw files of a switched day are deleted only this long after the switch (reads cache the state for 30 s). */
export const GC_GRACE_MS = 60 * 60_000;
/** The marker of days compacted before issue #41 (files under `compacted/<table>/day=D/`). */
const LEGACY_MARKER_NAME = '_gw_compaction.json';
/**
 * One run at a time: a run holds this object (created only if absent, S3's conditional write) while it works, since
 * two at once could remove each other's UNLOAD output. Under `compacted/` but in no table's folder, so never read.
 */
export const LOCK_KEY = 'compacted/_gw_compaction.lock';
/** A lock older than this is a run that died without releasing it (the function's timeout is 15 minutes). */
export const STALE_LOCK_MS = 20 * 60_000;
/** Raw files younger than this when a run lists them stay raw (see compactDay): S3 times are whole seconds. */
export const CUTOFF_CLEARANCE_MS = 2_000;
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
    // The run's id names its folders; from the clock, not the schedule's time, so a retried delivery gets its own.
    const runId = newRunId(new Date(), randomBytes(3).toString('hex'));
    const results: DayCompaction[] = [];
    for (const entry of days) results.push(Date.now() >= options.deadline ? deferred(entry) : await compactDay(options, bucket, entry.table, entry.day, runId));
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

async function compactDay(options: CompactionOptions, bucket: LogBucket, table: EngineTable, day: string, runId: string): Promise<DayCompaction> {
  const rawPrefix = `${table}/day=${day}/`;
  const state = latestPerDay(await listCompactedDays(options.s3, options.dataBucket, table, `${STATE_PREFIX(table)}day=${day}/`)).get(day);
  if (state) return collectGarbage(options, bucket, state, rawPrefix);
  if (await adoptLegacyDay(bucket, table, day)) return { table, day, outcome: 'already-compacted', deletedRawFiles: 0 };

  const raw = await bucket.listWithTimes(rawPrefix);
  if (raw.length === 0) return { table, day, outcome: 'nothing-to-compact', deletedRawFiles: 0 };
  // What failed or stopped runs left of this day is read by nothing (no state names it): removed before the new run.
  await bucket.deleteAll((await bucket.list(`compacted/${table}/day=${day}.`)).filter((key) => !key.startsWith(`compacted/${table}/${sliceOf(day, runId)}/`)));
  // S3 keeps LastModified to the second: a file written after this listing, in the same second as the newest listed
  // one, would share its time. The cutoff stays clear of the listing's last seconds (CUTOFF_CLEARANCE_MS, more than
  // any clock skew between S3 and the function), so every later file is after it and read raw.
  const settled = raw.filter((file) => file.modifiedMs <= Date.now() - CUTOFF_CLEARANCE_MS);
  if (settled.length === 0) return { table, day, outcome: 'unsettled', deletedRawFiles: 0 };
  const cutoffMs = Math.max(...settled.map((file) => file.modifiedMs));
  const slice = sliceOf(day, runId);
  const jobId = await options.engine.unload(compactionRows(table, day, new Date(cutoffMs)), 'parquet', `s3://${options.dataBucket}/compacted/${table}/${slice}/`, [WORKSPACE_BUCKET_COLUMN]);
  const status = await waitForUnload(options, jobId, table, day);

  // A file at or before the cutoff that was not listed may have been missed by the UNLOAD: the day stays raw.
  const listed = new Set(settled.map((file) => file.key));
  const appeared = (await bucket.listWithTimes(rawPrefix)).filter((file) => file.modifiedMs <= cutoffMs && !listed.has(file.key));
  if (appeared.length > 0) return { table, day, outcome: 'unsettled', deletedRawFiles: 0 };

  const body: StateBody = {
    table,
    day,
    slice,
    run_id: runId,
    cutoff: new Date(cutoffMs).toISOString(),
    rows: status.rows ?? null,
    files: status.outputs ?? [],
    raw_files: settled.map((file) => file.key),
    compacted_at: new Date().toISOString(),
  };
  // The switch: from this write on, reads take the day's listed files from the slice, and only from it.
  await bucket.write(stateKey(table, day, runId, cutoffMs), JSON.stringify(body));
  return { table, day, outcome: 'compacted', rows: status.rows, deletedRawFiles: 0 };
}

/**
 * A compacted day: once the switch is GC_GRACE_MS old, its raw files at or before the cutoff are deleted, each
 * checked to be one its run listed; one that is not (an upload the UNLOAD may have missed) reopens the day instead.
 */
async function collectGarbage(options: CompactionOptions, bucket: LogBucket, state: CompactedDay, rawPrefix: string): Promise<DayCompaction> {
  const done = (outcome: DayOutcome = 'already-compacted', deletedRawFiles = 0): DayCompaction => ({ table: state.table, day: state.day, outcome, deletedRawFiles });
  const switchedAt = runStartedAt(state.runId);
  if (switchedAt === undefined || Date.now() - switchedAt < (options.gcGraceMs ?? GC_GRACE_MS)) return done();
  const covered = (await bucket.listWithTimes(rawPrefix)).filter((file) => file.modifiedMs <= state.cutoffMs).map((file) => file.key);
  const superseded = (await bucket.list(`compacted/${state.table}/day=${state.day}.`)).filter((key) => !key.startsWith(`compacted/${state.table}/${state.slice}/`));
  await bucket.deleteAll(superseded);
  if (covered.length === 0) return done();
  const body = JSON.parse(await bucket.read(state.key)) as StateBody;
  const listed = new Set(body.raw_files);
  if (covered.some((key) => !listed.has(key))) {
    await bucket.delete(state.key);
    return done('reopened');
  }
  await bucket.deleteAll(covered);
  return done('already-compacted', covered.length);
}

/**
 * A day compacted before issue #41 (a marker beside its files under `compacted/<table>/day=D/`, its raw files
 * deleted) gets a state naming that folder, with the marker's time as cutoff: raw files left are the late ones.
 */
async function adoptLegacyDay(bucket: LogBucket, table: EngineTable, day: string): Promise<boolean> {
  const key = `compacted/${table}/day=${day}/${LEGACY_MARKER_NAME}`;
  // Listed first (one LIST, which every day costs anyway), so days without one cost no GET.
  if (!(await bucket.list(key)).includes(key)) return false;
  const marker = await bucket.read(key);
  const compactedAt = Date.parse((JSON.parse(marker) as { compacted_at?: string }).compacted_at ?? '');
  if (!Number.isFinite(compactedAt)) return false;
  await bucket.write(stateKey(table, day, LEGACY_RUN, compactedAt), marker);
  return true;
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

  /** Keys under `prefix` with their LastModified (epoch ms; S3 keeps whole seconds). */
  async listWithTimes(prefix: string): Promise<Array<{ key: string; modifiedMs: number }>> {
    const files: Array<{ key: string; modifiedMs: number }> = [];
    let token: string | undefined;
    do {
      const page = await this.s3.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }));
      for (const object of page.Contents ?? []) {
        if (!object.Key || object.Key.endsWith('/')) continue;
        if (!object.LastModified) throw new Error(`ListObjectsV2 gave no LastModified for ${object.Key}`);
        files.push({ key: object.Key, modifiedMs: object.LastModified.getTime() });
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return files.sort((a, b) => a.key.localeCompare(b.key));
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
