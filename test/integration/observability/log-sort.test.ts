import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestRow, spanRows } from '../../../shared/observability/engine/columns.js';
import { openDuckDbLogEngine, type DuckDbLogEngine } from '../../../shared/observability/engine/duckdb/engine.js';
import { LOG_SORT_FIELDS, listRequests, sortKeyOf, type LogCursor, type LogQuery, type LogSort } from '../../../shared/observability/engine/log-queries.js';
import { readRow } from '../../../shared/observability/engine/rows.js';
import type { RequestLogRecord } from '../../../shared/observability/log-record.js';
import { logRecord, placeholders } from './log-engine-support.js';

// Sorted keyset paging of the request list (GET /v1/logs `sort`/`order`), run for real on an embedded DuckDB: for
// every sort field and direction, paging three rows at a time returns every row exactly once, in the order computed
// here independently — with ties on the value and on the millisecond, and rows without a value, which come last.

let engines: DuckDbLogEngine;
let folder: string;
const scope = { organisationId: 'org-sort', workspaceId: 'ws-sort' };
const range = { from: '2026-11-01T00:00:00.000Z', to: '2026-11-30T00:00:00.000Z' };
const query: LogQuery = { scope, range };
const at = (minute: number) => new Date(Date.UTC(2026, 10, 10, 9, minute)).toISOString();
const owner = { organisation_id: 'org-sort', workspace_id: 'ws-sort' };
const usage = (total: number) => ({ prompt_tokens: total - 1, completion_tokens: 1, total_tokens: total, cached_tokens: 0, reasoning_tokens: 0 });

const seeded: RequestLogRecord[] = [
  logRecord({ id: 'a', created_at: at(1), cost: 0.5, latency_ms: 900, usage: usage(50), ...owner }),
  logRecord({ id: 'b', created_at: at(2), cost: 0.0001, latency_ms: 100, usage: usage(10), ...owner }),
  // Ties: c and d share a cost and a time (the id decides), e shares their cost at another time.
  logRecord({ id: 'c', created_at: at(3), cost: 0.25, latency_ms: 300, usage: usage(30), ...owner }),
  logRecord({ id: 'd', created_at: at(3), cost: 0.25, latency_ms: 300, usage: usage(30), ...owner }),
  logRecord({ id: 'e', created_at: at(4), cost: 0.25, latency_ms: 250, usage: usage(30), ...owner }),
  // No cost and no usage (a failure): last whichever the direction.
  logRecord({ id: 'f', created_at: at(5), cost: null, usage: null, latency_ms: 40, status: 500, outcome: 'error', ...owner }),
  logRecord({ id: 'g', created_at: at(6), cost: null, usage: null, latency_ms: 40, status: 502, outcome: 'error', ...owner }),
  logRecord({ id: 'h', created_at: at(7), cost: 12.75, latency_ms: 5_000, usage: usage(9_000), ...owner }),
  logRecord({ id: 'i', created_at: at(8), cost: 0, latency_ms: 1, usage: usage(0), ...owner }),
  // Another workspace: never in the list, however it sorts.
  logRecord({ id: 'other', created_at: at(9), cost: 99, latency_ms: 9_999, usage: usage(99_999), organisation_id: 'org-sort', workspace_id: 'ws-other' }),
];

const valueOf = (record: RequestLogRecord, field: LogSort['field']): number | null =>
  field === 'cost' ? (record.cost ?? null) : field === 'total_tokens' ? (record.usage?.total_tokens ?? null) : field === 'latency_ms' ? record.latency_ms : Date.parse(record.created_at);

/** The expected order, computed without SQL: by value (missing ones last), then time, then id, all in the direction. */
function expectedOrder(sort: LogSort): string[] {
  const sign = sort.order === 'asc' ? 1 : -1;
  const compare = (left: string | number, right: string | number) => (left < right ? -1 : left > right ? 1 : 0);
  return seeded
    .filter((record) => record.workspace_id === scope.workspaceId)
    .sort((left, right) => {
      const [a, b] = [valueOf(left, sort.field), valueOf(right, sort.field)];
      if (a === null || b === null) {
        if (a !== b) return a === null ? 1 : -1;
      } else if (a !== b) return sign * compare(a, b);
      return sign * compare(left.created_at, right.created_at) || sign * compare(left.id, right.id);
    })
    .map((record) => record.id);
}

async function pageThrough(sort: LogSort, size: number): Promise<string[]> {
  const seen: string[] = [];
  let after: LogCursor | undefined;
  for (let page = 0; page < 20; page++) {
    const statement = listRequests('duckdb', query, size, after, sort);
    expect(placeholders(statement.sql)).toBe(statement.params.length);
    const rows = (await engines.engine.query(statement)).rows.map((row) => readRow('requests', row));
    const shown = rows.slice(0, size);
    seen.push(...shown.map((row) => row.id as string));
    if (rows.length <= size) return seen;
    const last = shown.at(-1)!;
    // The cursor is made from the read row alone, as the API does: a JSON round trip of strings and numbers.
    after = JSON.parse(JSON.stringify({ created_at: last.created_at, id: last.id, value: sortKeyOf(last, sort) })) as LogCursor;
  }
  throw new Error('paging did not end');
}

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'gw-sort-'));
  engines = await openDuckDbLogEngine({ path: ':memory:', spillDirectory: join(folder, 'spill'), memoryLimit: '128MB', retentionMs: 3_650 * 86_400_000, retentionIntervalMs: 0, journalDirectory: join(folder, 'journal'), journalMaxBytes: 1 << 30, memoryRecords: 1_000 });
  engines.sink.append('requests', seeded.map(requestRow));
  engines.sink.append('spans', seeded.flatMap(spanRows));
  await engines.sink.flush();
});
afterAll(async () => {
  await engines?.sink.close();
  rmSync(folder, { recursive: true, force: true });
});

describe('sorted keyset paging of request logs', () => {
  const sorts = LOG_SORT_FIELDS.flatMap((field) => (['desc', 'asc'] as const).map((order): LogSort => ({ field, order })));

  it.each(sorts)('pages by $field $order: every row once, in order, ties by time then id, missing values last', async (sort) => {
    const expected = expectedOrder(sort);
    expect(expected).toHaveLength(9);
    expect(await pageThrough(sort, 3)).toEqual(expected);
    expect(await pageThrough(sort, 1)).toEqual(expected);
    expect(await pageThrough(sort, 100)).toEqual(expected);
  });

  it('finds the most expensive request first, and the unpriced ones at the end either way', async () => {
    expect((await pageThrough({ field: 'cost', order: 'desc' }, 1))[0]).toBe('h');
    expect((await pageThrough({ field: 'cost', order: 'asc' }, 100)).slice(-2)).toEqual(['f', 'g']);
    expect((await pageThrough({ field: 'cost', order: 'desc' }, 100)).slice(-2)).toEqual(['g', 'f']);
  });

  it('filters by a status class (5xx) as a range of codes', async () => {
    const rows = (await engines.engine.query(listRequests('duckdb', { ...query, filter: { status: '5xx' } }, 50))).rows;
    expect(rows.map((row) => row.id)).toEqual(['g', 'f']);
    expect((await engines.engine.query(listRequests('duckdb', { ...query, filter: { status: '2xx' } }, 50))).rows).toHaveLength(7);
  });

  it('refuses a numeric sort cursor without its value (a programming error, not a silent restart)', () => {
    expect(() => listRequests('duckdb', query, 3, { created_at: at(1), id: 'a' }, { field: 'cost', order: 'desc' })).toThrow('needs its value');
  });
});
