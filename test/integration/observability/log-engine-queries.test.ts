import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyticsSeries, analyticsTotals } from '../../../shared/observability/engine/analytics-queries.js';
import { requestRow, spanRows } from '../../../shared/observability/engine/columns.js';
import { openDuckDbLogEngine, type DuckDbLogEngine } from '../../../shared/observability/engine/duckdb/engine.js';
import { exportRequests, getRequest, listRequests, MODEL_SEPARATOR, spansOf, traceRequests, traceSummaries, type LogQuery } from '../../../shared/observability/engine/log-queries.js';
import { readRow, recordFromRow, spanFromRow } from '../../../shared/observability/engine/rows.js';
import type { SqlStatement } from '../../../shared/observability/engine/types.js';
import type { RequestLogRecord } from '../../../shared/observability/log-record.js';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { logRecord, placeholders } from './log-engine-support.js';

// Every query shape of the one builder (shared/observability/engine/), run for real on an embedded DuckDB with seeded
// rows; the Trino (Athena) rendering of the same shapes is checked in log-engine-trino.test.ts.

let engines: DuckDbLogEngine;
let folder: string;
const scope = { organisationId: 'org-1', workspaceId: 'ws-1' };
const range = { from: '2026-11-01T00:00:00.000Z', to: '2026-11-30T00:00:00.000Z' };
const at = (day: number, hour: number, minute = 0) => new Date(Date.UTC(2026, 10, day, hour, minute)).toISOString();

const seeded: RequestLogRecord[] = [
  logRecord({ id: 'r1', created_at: at(10, 9), model: 'gpt-4o', latency_ms: 100, metadata: { _user: 'alice', team: 'red' } }),
  logRecord({ id: 'r2', created_at: at(10, 10), latency_ms: 200, metadata: { _user: 'bob' }, trace_id: 'shared-trace' }),
  logRecord({ id: 'r3', created_at: at(11, 10), latency_ms: 300, status: 500, outcome: 'error', error: { type: 'upstream_error', code: 'http_500', message: 'boom' }, usage: null, cost: null, metadata: { _user: 'alice' }, trace_id: 'shared-trace' }),
  logRecord({ id: 'r4', created_at: at(12, 0, 0), latency_ms: 400, cache_status: 'HIT', metadata: { _user: 'carol' }, api_key_id: 'key-2' }),
  // A span that started the day before its request ended (crossed midnight).
  logRecord({ id: 'r5', created_at: at(13, 0, 0), latency_ms: 500, spans: [{ span_id: 'r5-attempt', name: 'attempt openai', kind: 'attempt', start_time: new Date(Date.parse(at(13, 0, 0)) - 60_000).toISOString(), status: 'error', attributes: {}, error: { code: 'http_429' } }] }),
  // Another workspace of the organisation, and another organisation: never in ws-1's reads.
  logRecord({ id: 'other-ws', created_at: at(10, 11), workspace_id: 'ws-2', metadata: { _user: 'alice' } }),
  logRecord({ id: 'other-org', created_at: at(10, 12), organisation_id: 'org-2', workspace_id: 'ws-1', metadata: { _user: 'alice' } }),
  // Outside the range.
  logRecord({ id: 'old', created_at: '2026-10-01T00:00:00.000Z', metadata: { _user: 'alice' } }),
];

async function run(statement: SqlStatement) {
  expect(placeholders(statement.sql)).toBe(statement.params.length);
  return (await engines.engine.query(statement)).rows;
}
const ids = (rows: Array<Record<string, unknown>>) => rows.map((row) => row.id);
const query = (filter: LogQuery['filter'] = {}): LogQuery => ({ scope, range, filter });

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'gw-engine-'));
  engines = await openDuckDbLogEngine({ path: ':memory:', spillDirectory: join(folder, 'spill'), memoryLimit: '128MB', retentionMs: 3_650 * 86_400_000, retentionIntervalMs: 0, journalDirectory: join(folder, 'journal'), journalMaxBytes: 1 << 30, memoryRecords: 1_000 });
  engines.sink.append('requests', seeded.map(requestRow));
  engines.sink.append('spans', seeded.flatMap(spanRows));
  await engines.sink.flush();
});
afterAll(async () => {
  await engines?.sink.close();
  rmSync(folder, { recursive: true, force: true });
});

describe('request records on DuckDB', () => {
  it('lists newest first, only the caller’s workspace of its organisation, inside the range', async () => {
    expect(ids(await run(listRequests('duckdb', query(), 50)))).toEqual(['r5', 'r4', 'r3', 'r2', 'r1']);
    expect(ids(await run(listRequests('duckdb', { ...query(), scope: { organisationId: 'org-1', workspaceId: 'ws-2' } }, 50)))).toEqual(['other-ws']);
    expect(ids(await run(listRequests('duckdb', { ...query(), range: { from: at(11, 0), to: at(12, 0) } }, 50)))).toEqual(['r4', 'r3']);
  });

  it('filters on named columns, any column and any metadata key', async () => {
    expect(ids(await run(listRequests('duckdb', query({ metadata: { _user: 'alice' } }), 50)))).toEqual(['r3', 'r1']);
    expect(ids(await run(listRequests('duckdb', query({ metadata: { _user: 'alice', team: 'red' } }), 50)))).toEqual(['r1']);
    expect(ids(await run(listRequests('duckdb', query({ status: 'error' }), 50)))).toEqual(['r3']);
    expect(ids(await run(listRequests('duckdb', query({ status: 200, model: 'gpt-4o' }), 50)))).toEqual(['r1']);
    expect(ids(await run(listRequests('duckdb', query({ cache_status: 'HIT', api_key_id: 'key-2' }), 50)))).toEqual(['r4']);
    expect(ids(await run(listRequests('duckdb', query({ columns: { endpoint: 'chat.completions', stream: false, retry_count: 0 } }), 50)))).toHaveLength(5);
    expect(() => listRequests('duckdb', query({ columns: { 'id; DROP TABLE requests': 'x' } }), 50)).toThrow('unknown column');
  });

  it('pages with a keyset cursor: every row once, in order', async () => {
    const seen: unknown[] = [];
    let after: { created_at: string; id: string } | undefined;
    for (let page = 0; page < 5; page++) {
      const rows = (await run(listRequests('duckdb', query(), 2, after))).map((row) => readRow('requests', row));
      seen.push(...ids(rows.slice(0, 2)));
      if (rows.length <= 2) break;
      after = { created_at: rows[1].created_at as string, id: rows[1].id as string };
    }
    expect(seen).toEqual(['r5', 'r4', 'r3', 'r2', 'r1']);
  });

  it('reads a record back field for field, spans included', async () => {
    const [row] = await run(getRequest('duckdb', query(), 'r3'));
    const spans = (await run(spansOf('duckdb', { scope, range }, { logIds: ['r3'] }))).map((span) => spanFromRow(readRow('spans', span)));
    const { log_id: _log, trace_id: _trace, ...span } = spans[0];
    const record = recordFromRow(readRow('requests', row), [span]);
    const { error_code: _code, ...expected } = seeded[2];
    expect({ ...record, error_code: undefined }).toEqual({ ...expected, error_code: undefined });
    expect(await run(getRequest('duckdb', { ...query(), scope: { organisationId: 'org-1', workspaceId: 'ws-2' } }, 'r3'))).toEqual([]);
  });

  it('answers a trace and its spans, a span that started the day before included', async () => {
    expect(ids(await run(traceRequests('duckdb', query(), 'shared-trace')))).toEqual(['r2', 'r3']);
    const spans = await run(spansOf('duckdb', { scope, range: { from: at(13, 0), to: at(13, 1) } }, { traceId: 'trace-r5' }));
    expect(spans.map((span) => span.span_id)).toEqual(['r5-attempt']);
    expect(spanFromRow(readRow('spans', spans[0]))).toMatchObject({ kind: 'attempt', status: 'error', error: { code: 'http_429' }, log_id: 'r5' });
  });

  it('summarises traces over all their requests, newest first, with a cursor', async () => {
    const rows = await run(traceSummaries('duckdb', query({ metadata: { _user: 'bob' } }), 10));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ trace_id: 'shared-trace', requests: 2, errors: 1, total_tokens: 21 });
    expect(String(rows[0].models).split(MODEL_SEPARATOR)).toEqual(['gpt-4o-mini']);
    const first = await run(traceSummaries('duckdb', query(), 2));
    expect(first.map((row) => row.trace_id)).toEqual(['trace-r5', 'trace-r4', 'shared-trace']);
    const ended = readRow('requests', { created_at: first[1].ended_at }).created_at as string;
    const next = await run(traceSummaries('duckdb', query(), 2, { ended_at: ended, trace_id: 'trace-r4' }));
    expect(next.map((row) => row.trace_id)).toEqual(['shared-trace', 'trace-r1']);
  });
});

describe('analytics on DuckDB', () => {
  it('groups by model, metadata key and api key with exact sums and engine percentiles', async () => {
    const byModel = await run(analyticsTotals('duckdb', { scope, range, groupBy: 'model', interval: 'day' }));
    expect(byModel.map((row) => [row.group_key, row.requests, row.errors, row.prompt_tokens, row.cache_hits])).toEqual([
      ['gpt-4o-mini', 4, 1, 27, 1],
      ['gpt-4o', 1, 0, 9, 0],
    ]);
    // quantile_cont over 200, 300, 400, 500: the median is 350, the 95th percentile 485.
    expect(byModel[0]).toMatchObject({ latency_p50_ms: 350, latency_p95_ms: 485 });
    expect(byModel[0].cost).toBeCloseTo(0.0003, 12);
    const byUser = await run(analyticsTotals('duckdb', { scope, range, groupBy: 'metadata._user', interval: 'day' }));
    expect(byUser.map((row) => [row.group_key, row.requests])).toEqual([
      ['alice', 2],
      ['bob', 1],
      ['carol', 1],
      // r5 has no _user: the null group, so the groups add up to the five requests (issue #41).
      [null, 1],
    ]);
    const byKey = await run(analyticsTotals('duckdb', { scope, range, groupBy: 'api_key', interval: 'day' }));
    expect(byKey.map((row) => [row.group_key, row.requests])).toEqual([
      ['key-1', 4],
      ['key-2', 1],
    ]);
  });

  it('groups by workspace over the organisation when the scope is the organisation', async () => {
    const rows = await run(analyticsTotals('duckdb', { scope: { organisationId: 'org-1' }, range, groupBy: 'workspace', interval: 'day' }));
    expect(rows.map((row) => [row.group_key, row.requests])).toEqual([
      ['ws-1', 5],
      ['ws-2', 1],
    ]);
  });

  it('buckets a series by hour or day', async () => {
    const daily = await run(analyticsSeries('duckdb', { scope, range, groupBy: 'model', interval: 'day' }));
    expect(daily.map((row) => [readRow('requests', { created_at: row.bucket }).created_at, row.group_key, row.requests])).toEqual([
      ['2026-11-10T00:00:00.000Z', 'gpt-4o', 1],
      ['2026-11-10T00:00:00.000Z', 'gpt-4o-mini', 1],
      ['2026-11-11T00:00:00.000Z', 'gpt-4o-mini', 1],
      ['2026-11-12T00:00:00.000Z', 'gpt-4o-mini', 1],
      ['2026-11-13T00:00:00.000Z', 'gpt-4o-mini', 1],
    ]);
    const hourly = await run(analyticsSeries('duckdb', { scope, range: { from: at(10, 0), to: at(10, 23) }, groupBy: 'model', interval: 'hour' }));
    expect(hourly.map((row) => [readRow('requests', { created_at: row.bucket }).created_at, row.group_key])).toEqual([
      ['2026-11-10T09:00:00.000Z', 'gpt-4o'],
      ['2026-11-10T10:00:00.000Z', 'gpt-4o-mini'],
    ]);
  });
});

describe('values of any size', () => {
  it('keeps a record with a 3 KB model name and metadata value, and its neighbours; analytics stay exact', async () => {
    const longModel = `m-${'x'.repeat(3_000)}`;
    const longValue = `v-${'y'.repeat(3_000)}`;
    const big = [
      logRecord({ id: 'big-before', created_at: at(20, 10, 0), workspace_id: 'ws-big', metadata: { team: 'small' } }),
      logRecord({ id: 'big', created_at: at(20, 10, 1), workspace_id: 'ws-big', model: longModel, metadata: { team: longValue, [`k${'z'.repeat(2_100)}`]: 'long key' } }),
      logRecord({ id: 'big-after', created_at: at(20, 10, 2), workspace_id: 'ws-big', model: longModel, metadata: { team: longValue } }),
    ];
    engines.sink.append('requests', big.map(requestRow));
    await engines.sink.flush();
    const bigScope = { organisationId: 'org-1', workspaceId: 'ws-big' };
    expect(ids(await run(listRequests('duckdb', { scope: bigScope, range }, 10)))).toEqual(['big-after', 'big', 'big-before']);
    expect(ids(await run(listRequests('duckdb', { scope: bigScope, range, filter: { metadata: { team: longValue }, model: longModel } }, 10)))).toEqual(['big-after', 'big']);
    const byModel = await run(analyticsTotals('duckdb', { scope: bigScope, range, groupBy: 'model', interval: 'day' }));
    expect(byModel.map((row) => [row.group_key, row.requests])).toEqual([
      [longModel, 2],
      ['gpt-4o-mini', 1],
    ]);
    const byTeam = await run(analyticsTotals('duckdb', { scope: bigScope, range, groupBy: 'metadata.team', interval: 'day' }));
    expect(byTeam.map((row) => [row.group_key, row.requests])).toEqual([
      [longValue, 2],
      ['small', 1],
    ]);
  });
});

describe('batches', () => {
  it('appends a flush larger than one DuckDB data chunk (2,048 rows) completely', async () => {
    const rows = Array.from({ length: 4_100 }, (_, index) => requestRow(logRecord({ id: `bulk-${index}`, created_at: at(22, 10), workspace_id: 'ws-bulk', latency_ms: index })));
    engines.sink.append('requests', rows);
    await engines.sink.flush();
    const [counted] = await run({ sql: 'SELECT count(*) AS n, count(DISTINCT id) AS ids, sum(latency_ms) AS total FROM requests WHERE workspace_id = ?', params: ['ws-bulk'] });
    expect(counted).toEqual({ n: 4_100, ids: 4_100, total: (4_099 * 4_100) / 2 });
  });
});

describe('whole records (the after-path hands DuckDB the record; its rows are made when they flush)', () => {
  const readBack = async (table: 'requests' | 'spans', workspaceId: string) =>
    (await run({ sql: `SELECT * FROM ${table} WHERE workspace_id = ? ORDER BY ${table === 'requests' ? 'id' : 'span_id'}`, params: [workspaceId] })).map((row) => readRow(table, row));
  const withoutIds = (rows: Array<Record<string, unknown>>) => rows.map(({ id: _id, request_id: _request, log_id: _log, span_id: _span, trace_id: _trace, workspace_id: _workspace, parent_span_id: _parent, ...rest }) => rest);

  it('stores the same requests and spans rows as the rows built one by one', async () => {
    const shape = (id: string, workspace_id: string) =>
      logRecord({
        id,
        workspace_id,
        created_at: at(23, 10, 5),
        metadata: { _user: 'alice', team: 'red' },
        ttft_ms: 12.5,
        body_truncated: true,
        error: { type: 'upstream_error', code: 'http_502', message: 'bad gateway' },
        outcome: 'error',
        status: 502,
        spans: [
          { span_id: `${id}-auth`, parent_span_id: `${id}-root`, name: 'auth', kind: 'stage', start_time: at(23, 10, 4), end_time: at(23, 10, 5), duration_ms: 0.5, status: 'ok', attributes: { 'gw.cached': true } },
          { span_id: `${id}-attempt`, parent_span_id: `${id}-root`, name: 'attempt', kind: 'attempt', start_time: at(23, 10, 4), status: 'error', attributes: { 'gw.retry': 0 }, error: { code: 'http_502', message: 'bad gateway' } },
        ],
      });
    engines.sink.append('requests', [requestRow(shape('as-rows', 'ws-rows'))]);
    engines.sink.append('spans', spanRows(shape('as-rows', 'ws-rows')));
    engines.sink.appendRecord!(shape('as-record', 'ws-record'));
    await engines.sink.flush();
    const [rows, records] = [await readBack('requests', 'ws-rows'), await readBack('requests', 'ws-record')];
    expect(records).toHaveLength(1);
    expect(withoutIds(records)).toEqual(withoutIds(rows));
    expect(records[0]).toMatchObject({ id: 'as-record', metadata: { _user: 'alice', team: 'red' }, created_at: at(23, 10, 5), day: '2026-11-23', ttft_ms: 12.5 });
    const [spanRowsBack, spansOfRecord] = [await readBack('spans', 'ws-rows'), await readBack('spans', 'ws-record')];
    expect(spansOfRecord.map((row) => [row.span_id, row.log_id])).toEqual([
      ['as-record-attempt', 'as-record'],
      ['as-record-auth', 'as-record'],
    ]);
    expect(withoutIds(spansOfRecord)).toEqual(withoutIds(spanRowsBack));
  });

  it('keeps a record whose time cannot be read, and its neighbours, every column in its place', async () => {
    engines.sink.appendRecord!(logRecord({ id: 'rec-before', created_at: at(24, 10, 0), workspace_id: 'ws-rec-odd' }));
    engines.sink.appendRecord!({ ...logRecord({ id: 'rec-odd', created_at: at(24, 10, 1), workspace_id: 'ws-rec-odd' }), created_at: 'not a time', latency_ms: 7 });
    engines.sink.appendRecord!(logRecord({ id: 'rec-after', created_at: at(24, 10, 2), workspace_id: 'ws-rec-odd', latency_ms: 9 }));
    await engines.sink.flush();
    const rows = await readBack('requests', 'ws-rec-odd');
    expect(rows.map((row) => [row.id, row.created_at, row.latency_ms])).toEqual([
      ['rec-after', at(24, 10, 2), 9],
      ['rec-before', at(24, 10, 0), 100],
      ['rec-odd', null, 7],
    ]);
  });
});

describe('values the columns do not expect', () => {
  it('coerces them instead of breaking the batch: the odd row and its neighbours are all kept', async () => {
    const odd = {
      ...requestRow(logRecord({ id: 'odd', created_at: at(21, 10, 1), workspace_id: 'ws-odd' })),
      latency_ms: Number.NaN,
      status: '200' as unknown as number,
      created_at: 'not a time',
      model: { nested: true } as unknown as string,
      metadata: null,
    };
    engines.sink.append('requests', [requestRow(logRecord({ id: 'odd-before', created_at: at(21, 10, 0), workspace_id: 'ws-odd' })), odd, requestRow(logRecord({ id: 'odd-after', created_at: at(21, 10, 2), workspace_id: 'ws-odd' }))]);
    await engines.sink.flush();
    const rows = await run({ sql: 'SELECT id, status, latency_ms, created_at, model, cardinality(metadata) AS keys FROM requests WHERE workspace_id = ? ORDER BY id', params: ['ws-odd'] });
    expect(rows.map((row) => row.id)).toEqual(['odd', 'odd-after', 'odd-before']);
    expect(rows[0]).toMatchObject({ status: 200, latency_ms: null, created_at: null, model: '{"nested":true}', keys: 0 });
  });
});

describe('exports and retention on DuckDB', () => {
  it('writes JSON Lines, Parquet and CSV as COPY jobs, scoped like every read', async () => {
    for (const format of ['jsonl', 'parquet', 'csv'] as const) {
      const destination = join(folder, 'exports', `all.${format}`);
      const { jobId } = await engines.engine.startExport(exportRequests('duckdb', query({ metadata: { _user: 'alice' } })), format, destination);
      await engines.sink.flush();
      const status = await engines.engine.exportStatus(jobId);
      expect(status, format).toEqual({ state: 'succeeded', outputs: [destination], rows: 2 });
    }
    const lines = readFileSync(join(folder, 'exports', 'all.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    // Unsorted on purpose (a sort would hold the whole result): the rows, in any order.
    lines.sort((a, b) => String(a.id).localeCompare(String(b.id)));
    expect(lines.map((line) => line.id)).toEqual(['r1', 'r3']);
    expect(lines[0]).toMatchObject({ workspace_id: 'ws-1', metadata: { _user: 'alice', team: 'red' }, prompt_tokens: 9 });
    const parquet = await run({ sql: 'SELECT id FROM read_parquet(?) ORDER BY id', params: [join(folder, 'exports', 'all.parquet')] });
    expect(ids(parquet)).toEqual(['r1', 'r3']);
    expect(readFileSync(join(folder, 'exports', 'all.csv'), 'utf8').split('\n')[0]).toContain('id,request_id,trace_id');
    await expect(engines.engine.startExport(exportRequests('duckdb', query()), 'csv', "relative/it's.csv")).rejects.toThrow('not a safe export path');
    expect(await engines.engine.exportStatus('duckdb-unknown')).toMatchObject({ state: 'failed' });
  });

  it('retention deletes requests and spans older than the cutoff', async () => {
    expect(await engines.engine.deleteOlderThan('2026-10-15T00:00:00.000Z')).toBe(1);
    expect(await run({ sql: 'SELECT id FROM requests WHERE id = ?', params: ['old'] })).toEqual([]);
    expect(await run({ sql: 'SELECT span_id FROM spans WHERE log_id = ?', params: ['old'] })).toEqual([]);
    expect(await run({ sql: 'SELECT id FROM requests WHERE id = ?', params: ['r1'] })).toHaveLength(1);
  });
});
