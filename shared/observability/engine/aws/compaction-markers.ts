import { COMPACTION_MARKER } from '../sql.js';
import type { EngineTable, SqlStatement } from '../types.js';
import { NO_SLICE, SLICE_COLUMN, type CompactedDay } from './compaction-state.js';

/**
 * The query builder (sql.ts rowsOf) cannot know which days are compacted: that is the engine's state, and it must be
 * read when the query runs. So on Athena each branch of a read carries a marker, `/*gw:compacted <table> range*\/TRUE`
 * or `/*gw:raw …*\/TRUE`, which the engine replaces, just before it starts the query, with the days' state
 * (compaction-state.ts): the compacted branch names the slices of the compacted days of the range (injected partition
 * projection: Athena reads only those folders), the raw branch leaves out exactly what those slices hold. The days of
 * the range are the parameters of the next `day BETWEEN ? AND ?`. The replacements are literals built from validated
 * state keys (days, run ids, epoch ms), never from input.
 */
const MARKER = new RegExp(COMPACTION_MARKER.source, 'g');

const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

const DAY_RANGE = /\bday BETWEEN \? AND \?/g;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The days each marker stands for, by its offset in `sql`: the parameters of the next `day BETWEEN ? AND ?`. */
function markerRanges(sql: string, params: SqlStatement['params']): Map<number, { from: string; to: string } | undefined> {
  const ranges = new Map<number, { from: string; to: string } | undefined>();
  for (const match of sql.matchAll(MARKER)) {
    if (match[3] === 'all') {
      ranges.set(match.index, undefined);
      continue;
    }
    DAY_RANGE.lastIndex = match.index;
    const between = DAY_RANGE.exec(sql);
    if (!between) throw new Error('a ranged compaction marker without a day range after it');
    // The builder's text holds no string literal, so every `?` before the range is one parameter.
    const index = (sql.slice(0, between.index).match(/\?/g) ?? []).length;
    const [from, to] = [params[index], params[index + 1]];
    if (typeof from !== 'string' || typeof to !== 'string' || !DAY.test(from) || !DAY.test(to)) throw new Error('a compaction marker\'s day range is not two days');
    ranges.set(match.index, { from, to });
  }
  return ranges;
}

function inRange(day: string, range: { from: string; to: string } | undefined): boolean {
  return range === undefined || (day >= range.from && day <= range.to);
}

/** Compacted branch: the slices of the range's compacted days (or one that never exists, as Athena needs a value). */
export function compactedCondition(days: readonly CompactedDay[]): string {
  if (days.length === 0) return `${SLICE_COLUMN} = ${literal(NO_SLICE)}`;
  return `${SLICE_COLUMN} IN (${days.map((day) => literal(day.slice)).join(', ')})`;
}

/** Raw branch: every raw file except those a compacted day's slice holds (modified at or before its cutoff). */
export function rawCondition(days: readonly CompactedDay[]): string {
  if (days.length === 0) return 'TRUE';
  const compacted = days.map((day) => `(day = ${literal(day.day)} AND "$file_modified_time" <= from_iso8601_timestamp(${literal(new Date(day.cutoffMs).toISOString())}))`);
  return `NOT (${compacted.join(' OR ')})`;
}

/** `sql` with every marker replaced from the state (`daysOf` is asked once per table named); `params` are unchanged. */
export async function resolveCompactionMarkers(sql: string, params: SqlStatement['params'], daysOf: (table: EngineTable) => Promise<ReadonlyMap<string, CompactedDay>>): Promise<string> {
  const tables = new Set([...sql.matchAll(MARKER)].map((match) => match[2] as EngineTable));
  if (tables.size === 0) return sql;
  const ranges = markerRanges(sql, params);
  const states = new Map<EngineTable, CompactedDay[]>();
  for (const table of tables) states.set(table, [...(await daysOf(table)).values()].sort((a, b) => a.day.localeCompare(b.day)));
  return sql.replace(MARKER, (_marker, side: string, table: EngineTable, _range: string, offset: number) => {
    const days = (states.get(table) ?? []).filter((day) => inRange(day.day, ranges.get(offset)));
    return side === 'compacted' ? compactedCondition(days) : rawCondition(days);
  });
}
