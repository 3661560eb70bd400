import { createHash } from 'node:crypto';
import { badRequest } from '../../http/errors.js';
import type { RequestLogRecord } from '../../observability/log-record.js';
import { getRequest, listRequests, NEWEST_FIRST, sortKeyOf, spansOf, traceRequests, type LogCursor, type LogFilter, type LogSort } from '../../observability/engine/log-queries.js';
import { readRow, recordFromRow, spanFromRow } from '../../observability/engine/rows.js';
import { logEngines } from '../../observability/engine/select.js';
import type { LogScope, TimeRange } from '../../observability/engine/sql.js';
import { settings } from '../../settings.js';

const DAY_MS = 86_400_000;

/** Header of every log, trace, analytics and export read: rows appended more than this many ms ago are visible. */
export const FRESHNESS_HEADER = 'x-gw-data-freshness-ms';

export async function freshnessHeaders(): Promise<Record<string, string>> {
  return { [FRESHNESS_HEADER]: String((await logEngines()).engine.freshnessMs) };
}

/** The oldest time reads may return: LOG_RETENTION_DISPLAY days ago (rows may outlive it until retention runs). */
export function retentionCutoff(now = Date.now()): string {
  return new Date(now - settings().LOG_RETENTION_DISPLAY * DAY_MS).toISOString();
}

/** The range a read covers: the filter's, raised to the retention bound, up to now at most. */
export function readRange(filter: Pick<LogFilter, 'from' | 'to'> = {}, now = Date.now()): TimeRange {
  const cutoff = retentionCutoff(now);
  const from = filter.from && filter.from > cutoff ? filter.from : cutoff;
  const to = filter.to && Date.parse(filter.to) < now ? filter.to : new Date(now).toISOString();
  return { from, to };
}

/** A cursor belongs to one list: the scope and filters it was made for, fingerprinted. */
export function listFingerprint(scope: LogScope, filter: LogFilter, kind: string): string {
  const { from: _from, to: _to, ...rest } = filter;
  return createHash('sha256').update(JSON.stringify([kind, scope, rest, _from ?? null, _to ?? null])).digest('base64url').slice(0, 16);
}

/** The position a cursor holds, once checked to belong to this list. */
export function cursorPosition(startKey: Record<string, unknown> | undefined, fingerprint: string, fields: readonly [string, string]): [string, string] | undefined {
  if (!startKey) return undefined;
  const [timeField, idField] = fields;
  const time = startKey[timeField];
  const id = startKey[idField];
  if (startKey.list !== fingerprint || typeof time !== 'string' || typeof id !== 'string' || Number.isNaN(Date.parse(time))) {
    throw badRequest('invalid_cursor', 'cursor does not belong to this list; pass next_cursor from the previous page unchanged', 'cursor');
  }
  return [time, id];
}

/** The keyset position of a request list's cursor: time and id, plus the sort value when the list is sorted by one. */
function sortedCursor(startKey: Record<string, unknown> | undefined, fingerprint: string, sort: LogSort): LogCursor | undefined {
  const position = cursorPosition(startKey, fingerprint, ['created_at', 'id']);
  if (!position) return undefined;
  if (sort.field === 'created_at') return { created_at: position[0], id: position[1] };
  const value = startKey?.value;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw badRequest('invalid_cursor', 'cursor does not belong to this list; pass next_cursor from the previous page unchanged', 'cursor');
  return { created_at: position[0], id: position[1], value };
}

export interface RecordPage {
  items: RequestLogRecord[];
  nextKey?: Record<string, unknown>;
}

/** Request records through the query engine, with their spans. */
export class LogReader {
  async list(scope: LogScope, filter: LogFilter, rows: number, startKey?: Record<string, unknown>, sort: LogSort = NEWEST_FIRST): Promise<RecordPage> {
    const { engine } = await logEngines();
    // The sort is part of the list: a cursor of the newest-first list means nothing in the costliest-first one.
    const kind = sort.field === NEWEST_FIRST.field && sort.order === NEWEST_FIRST.order ? 'logs' : `logs:${sort.field}:${sort.order}`;
    const fingerprint = listFingerprint(scope, filter, kind);
    const after = sortedCursor(startKey, fingerprint, sort);
    const range = readRange(filter);
    const result = await engine.query(listRequests(engine.dialect, { scope, range, filter }, rows, after, sort));
    const page = result.rows.slice(0, rows).map((row) => readRow('requests', row));
    const items = await this.withSpans(scope, range, page);
    const last = page.at(-1);
    const value = last ? sortKeyOf(last, sort) : undefined;
    const nextKey =
      result.rows.length > rows && last ? { list: fingerprint, created_at: last.created_at as string, id: last.id as string, ...(value === undefined ? {} : { value }) } : undefined;
    return { items, nextKey };
  }

  async get(scope: LogScope, id: string): Promise<RequestLogRecord | undefined> {
    const { engine } = await logEngines();
    const range = readRange();
    const result = await engine.query(getRequest(engine.dialect, { scope, range }, id));
    const [record] = await this.withSpans(scope, range, result.rows.map((row) => readRow('requests', row)));
    return record;
  }

  /** Every request of a trace in scope, oldest first, with their spans. */
  async trace(scope: LogScope, traceId: string): Promise<RequestLogRecord[]> {
    const { engine } = await logEngines();
    const range = readRange();
    const [requests, spans] = await Promise.all([engine.query(traceRequests(engine.dialect, { scope, range }, traceId)), engine.query(spansOf(engine.dialect, { scope, range }, { traceId }))]);
    return this.attach(
      requests.rows.map((row) => readRow('requests', row)),
      spans.rows.map((row) => spanFromRow(readRow('spans', row))),
    );
  }

  private async withSpans(scope: LogScope, range: TimeRange, rows: Array<Record<string, unknown>>): Promise<RequestLogRecord[]> {
    if (rows.length === 0) return [];
    const { engine } = await logEngines();
    const spans = await engine.query(spansOf(engine.dialect, { scope, range }, { logIds: rows.map((row) => row.id as string) }));
    return this.attach(rows, spans.rows.map((row) => spanFromRow(readRow('spans', row))));
  }

  private attach(rows: Array<Record<string, unknown>>, spans: Array<ReturnType<typeof spanFromRow>>): RequestLogRecord[] {
    const byLog = new Map<string, RequestLogRecord['spans']>();
    for (const { log_id: logId, trace_id: _trace, ...span } of spans) {
      const list = byLog.get(logId) ?? [];
      list.push(span);
      byLog.set(logId, list);
    }
    return rows.map((row) => recordFromRow(row, byLog.get(row.id as string) ?? []));
  }
}
