import { ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import type { EngineTable } from '../types.js';

/**
 * Which finished days of a table are read from the compacted table, and from which run's files (issue #41). A day
 * switches from raw to compacted by ONE object, written only after its UNLOAD succeeded and was checked:
 *
 *   compacted/<table>/_state/day=<day>/<run id>.<cutoff epoch ms>
 *
 * Its key says everything a read needs, so a read lists the state prefix once (no GET per day):
 * - the run id names the folder the run's UNLOAD wrote, `compacted/<table>/day=<day>.<run id>/ws_bucket=K/`, a
 *   value of the compacted table's `compacted_slice` partition (injected projection: Athena reads only the slices a
 *   query names, so a failed or superseded run's files are never read);
 * - the cutoff is the newest raw file the run compacted (S3 LastModified): the UNLOAD read exactly the raw files of
 *   the day modified at or before it, and a read takes the day's raw files modified after it (late files) from the
 *   raw table. Athena evaluates both sides on the same `$file_modified_time`, so the two are disjoint and complete.
 * Days compacted before issue #41 (files under `compacted/<table>/day=<day>/`, a `_gw_compaction.json` marker) get a
 * state whose run id is `legacy`: their slice is that folder.
 */
export const STATE_PREFIX = (table: EngineTable) => `compacted/${table}/_state/`;
export const LEGACY_RUN = 'legacy';
/** The partition column of the compacted tables that names a run's folder of a day. */
export const SLICE_COLUMN = 'compacted_slice';
/** A slice no run ever writes: what the compacted branch names when no day of the range is compacted (Athena needs a value). */
export const NO_SLICE = 'none';

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const RUN_ID = /^(?:legacy|\d{8}t\d{6}z-[0-9a-f]{6})$/;
const STATE_KEY = /^compacted\/(requests|spans)\/_state\/day=(\d{4}-\d{2}-\d{2})\/(legacy|\d{8}t\d{6}z-[0-9a-f]{6})\.(\d{1,15})$/;

export interface CompactedDay {
  table: EngineTable;
  day: string;
  runId: string;
  /** The slice (`compacted_slice` value, the folder under `compacted/<table>/`). */
  slice: string;
  /** Epoch ms: raw files of the day modified at or before it are in the slice; later ones are read raw. */
  cutoffMs: number;
  key: string;
}

/** A run id: the run's start (UTC, to the second) and 6 random hex digits, so two runs never share a folder. */
export function newRunId(startedAt: Date, random: string): string {
  const stamp = startedAt.toISOString().replace(/[-:]/g, '').slice(0, 15).toLowerCase();
  const id = `${stamp}z-${random.slice(0, 6).toLowerCase()}`;
  if (!RUN_ID.test(id)) throw new Error(`bad run id ${id}`);
  return id;
}

/** When a run started (from its id); undefined for legacy days. */
export function runStartedAt(runId: string): number | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})t(\d{2})(\d{2})(\d{2})z-/.exec(runId);
  return match ? Date.UTC(+match[1], +match[2] - 1, +match[3], +match[4], +match[5], +match[6]) : undefined;
}

export function sliceOf(day: string, runId: string): string {
  if (!DAY.test(day) || !RUN_ID.test(runId)) throw new Error(`bad slice ${day} ${runId}`);
  return runId === LEGACY_RUN ? `day=${day}` : `day=${day}.${runId}`;
}

export function stateKey(table: EngineTable, day: string, runId: string, cutoffMs: number): string {
  if (!Number.isSafeInteger(cutoffMs) || cutoffMs < 0) throw new Error(`bad cutoff ${cutoffMs}`);
  sliceOf(day, runId);
  return `${STATE_PREFIX(table)}day=${day}/${runId}.${cutoffMs}`;
}

export function parseStateKey(key: string): CompactedDay | undefined {
  const match = STATE_KEY.exec(key);
  if (!match) return undefined;
  const [, table, day, runId, cutoff] = match;
  return { table: table as EngineTable, day, runId, slice: sliceOf(day, runId), cutoffMs: Number(cutoff), key };
}

/** One state per day; should a day ever hold two, the latest run's wins (run ids sort by start). */
export function latestPerDay(states: readonly CompactedDay[]): Map<string, CompactedDay> {
  const byDay = new Map<string, CompactedDay>();
  for (const state of states) {
    const held = byDay.get(state.day);
    if (!held || (held.runId === LEGACY_RUN ? state.runId !== LEGACY_RUN : state.runId !== LEGACY_RUN && state.runId > held.runId)) byDay.set(state.day, state);
  }
  return byDay;
}

/** Every state object of `table` (one LIST page per 1,000 compacted days). */
export async function listCompactedDays(s3: S3Client, bucket: string, table: EngineTable, prefix = STATE_PREFIX(table)): Promise<CompactedDay[]> {
  const states: CompactedDay[] = [];
  let token: string | undefined;
  do {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
    for (const object of page.Contents ?? []) {
      const state = object.Key ? parseStateKey(object.Key) : undefined;
      if (state && state.table === table) states.push(state);
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return states;
}

/**
 * The read side's view of the states, listed at most once per `cacheMs` per table. A stale view only ever reads a
 * day raw that was just compacted, which is still exact: the compaction deletes raw files only GC_GRACE_MS after the
 * switch (compaction.ts), far longer than this cache and any query.
 */
export class CompactionStateReader {
  private readonly cached = new Map<EngineTable, { at: number; days: Promise<Map<string, CompactedDay>> }>();

  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
    private readonly cacheMs = 30_000,
  ) {}

  async days(table: EngineTable): Promise<Map<string, CompactedDay>> {
    const held = this.cached.get(table);
    if (held && Date.now() - held.at < this.cacheMs) return held.days;
    const days = listCompactedDays(this.s3, this.bucket, table).then(latestPerDay);
    this.cached.set(table, { at: Date.now(), days });
    // A failed listing is not kept: the next query lists again.
    days.catch(() => this.cached.delete(table));
    return days;
  }
}
