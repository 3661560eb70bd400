import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyticsTotals } from '../../../shared/observability/engine/analytics-queries.js';
import { bindParameters } from '../../../shared/observability/engine/aws/athena-parameters.js';
import { duckDbType, TABLE_COLUMNS } from '../../../shared/observability/engine/columns.js';
import { resolveCompactionMarkers } from '../../../shared/observability/engine/aws/compaction-markers.js';
import { compactionRows } from '../../../shared/observability/engine/aws/compaction-sql.js';
import { parseStateKey, sliceOf, stateKey, type CompactedDay } from '../../../shared/observability/engine/aws/compaction-state.js';
import { getRequest, listRequests, MODEL_SEPARATOR, traceSummaries, type LogQuery } from '../../../shared/observability/engine/log-queries.js';
import { compactedTable, WORKSPACE_BUCKETS, workspaceBucket } from '../../../shared/observability/engine/sql.js';
import type { SqlStatement } from '../../../shared/observability/engine/types.js';
import { spliceParameters, translateTrino } from '../../aws-shaped/support/trino-to-duckdb.js';

/**
 * The daily compaction's SQL (issues #32, #41), run on DuckDB: the statement it UNLOADs for a day, and the reads that
 * then take compacted days from `<table>_compacted` and the others from the raw table. The Trino text is run as the
 * Athena stand-in runs it (compaction markers resolved from the days' states as the Athena engine does, parameters
 * spliced as Athena splices them, the few Trino spellings translated), and every read must answer exactly what the
 * DuckDB rendering answers over one table holding every row: the compacted days' raw files are still there (the
 * window before their garbage collection), and a late file of a compacted day is read raw.
 */
let db: DuckDBConnection;
/** The compacted days' states, as the reads' engine sees them (compaction-state.ts). */
const states = new Map<string, CompactedDay>();
const FILE_TIME = Date.parse('2026-11-27T00:10:00.000Z');
const LATE_FILE_TIME = FILE_TIME + 60_000;

const columnsDdl = (table: 'requests' | 'spans', extra = '') =>
  `(${TABLE_COLUMNS[table].map((column) => `${column.name} ${duckDbType(column.type)}`).join(', ')}${extra})`;

/** As Athena runs it: parameters bound (several for a long value), spliced, Trino spellings translated. */
async function runTrino(statement: SqlStatement): Promise<Array<Record<string, unknown>>> {
  const resolved = await resolveCompactionMarkers(statement.sql, statement.params, async () => states);
  const bound = bindParameters(resolved, statement.params);
  return (await db.runAndReadAll(spliceParameters(translateTrino(bound.sql), bound.parameters ?? []))).getRowObjectsJS();
}

async function runDuckDb(statement: SqlStatement): Promise<Array<Record<string, unknown>>> {
  return (await db.runAndReadAll(statement.sql, statement.params)).getRowObjectsJS();
}

const WORKSPACES = ['ws-1', 'ws-2', 'ws-3', 'ws-4', 'ws-5', 'ws-6'];
const DAYS = ['2026-11-24', '2026-11-25', '2026-11-26'];

beforeAll(async () => {
  db = await (await DuckDBInstance.create(':memory:')).connect();
  // `everything`: what DuckDB holds locally (one table). `requests`: the raw table on Athena; `requests_compacted`:
  // the compacted one, whose `ws_bucket` is a partition column (a folder on S3).
  await db.run(`CREATE TABLE everything ${columnsDdl('requests')}`);
  // The raw table has Athena's `$file_modified_time` (each row's file's S3 LastModified).
  await db.run(`CREATE TABLE requests ${columnsDdl('requests', ', "$file_modified_time" TIMESTAMPTZ')}`);
  await db.run(`CREATE TABLE ${compactedTable('requests')} ${columnsDdl('requests', ', ws_bucket INTEGER, compacted_slice VARCHAR')}`);
  let n = 0;
  for (const day of DAYS) {
    for (const workspace of WORKSPACES) {
      for (let i = 0; i < 4; i++) {
        n++;
        const created = `${day} ${String(1 + i * 5).padStart(2, '0')}:${String(n % 60).padStart(2, '0')}:00.000`;
        const metadata = i % 2 === 0 ? "MAP {'team': 'red'}" : "MAP {'team': ''''}";
        await db.run(
          `INSERT INTO requests (id, trace_id, created_at, organisation_id, workspace_id, model, status, outcome, latency_ms, cost, cache_status, metadata, day, "$file_modified_time")
           VALUES ('r${n}', 't${n % 7}', TIMESTAMP '${created}', 'org-1', '${workspace}', 'model-${i % 2}', ${i === 3 ? 500 : 200}, '${i === 3 ? 'error' : 'success'}', ${10 * n}, ${n / 1024}, 'MISS', ${metadata}, '${day}', '${new Date(FILE_TIME).toISOString()}')`,
        );
      }
    }
  }
  await db.run('INSERT INTO everything BY NAME SELECT * EXCLUDE ("$file_modified_time") FROM requests');
});

afterAll(() => db?.closeSync());

describe('the statement the compaction unloads for a day', () => {
  const cutoff = new Date(FILE_TIME);
  const statement = compactionRows('requests', '2026-11-25', cutoff);

  it('selects every column (day too), then ws_bucket last (the UNLOAD makes it the folder), of that day\'s files up to the cutoff only, sorted by workspace and time', () => {
    const columns = TABLE_COLUMNS.requests.map((column) => column.name);
    expect(statement.sql).toBe(
      `SELECT ${columns.join(', ')}, bitwise_and(from_big_endian_64(substr(md5(to_utf8(workspace_id)), 1, 8)), ${WORKSPACE_BUCKETS - 1}) AS ws_bucket FROM requests WHERE day = ? AND "$file_modified_time" <= from_iso8601_timestamp(?) ORDER BY workspace_id, created_at`,
    );
    expect(statement.params).toEqual(['2026-11-25', cutoff.toISOString()]);
    expect(compactionRows('spans', '2026-11-25', cutoff).sql).toMatch(/ AS ws_bucket FROM spans WHERE day = \? AND "\$file_modified_time" <= from_iso8601_timestamp\(\?\) ORDER BY workspace_id, start_time$/);
  });

  it("runs: the day's rows, in workspace and time order, each in the bucket gw computes for its workspace", async () => {
    const rows = await runTrino(statement);
    expect(rows).toHaveLength(WORKSPACES.length * 4);
    const order = rows.map((row) => `${String(row.workspace_id)} ${String(row.created_at)}`);
    expect(order).toEqual([...order].sort());
    for (const row of rows) expect(row.ws_bucket).toBe(workspaceBucket(String(row.workspace_id)));
    expect(new Set(rows.map((row) => row.day))).toEqual(new Set(['2026-11-25']));
  });

  it('spreads workspace ids over every bucket, as the Trino expression does', async () => {
    const ids = Array.from({ length: 2_000 }, (_, i) => `ws_${i.toString(36)}`);
    const buckets = new Set(ids.map(workspaceBucket));
    expect(buckets.size).toBe(WORKSPACE_BUCKETS);
    const values = ids.map((id) => `('${id}')`).join(', ');
    const fromSql = await runTrino({ sql: `SELECT workspace_id, ${compactionRows('requests', 'x', cutoff).sql.match(/bitwise_and\(.*?\), \d+\)/)![0]} AS bucket FROM (VALUES ${values}) AS t(workspace_id)`, params: [] });
    for (const row of fromSql) expect(row.bucket).toBe(workspaceBucket(String(row.workspace_id)));
  });
});

describe('reads after a compaction count every request once (compacted days from their slice, late files and the recent day raw)', () => {
  beforeAll(async () => {
    // The compaction of the two older days: their rows into the compacted table under the run's slice, then the
    // switch (the state). The raw files stay until their garbage collection, so both tables hold these rows now.
    for (const day of DAYS.slice(0, 2)) {
      const runId = '20261127t003000z-abc123';
      const { sql, params } = compactionRows('requests', day, new Date(FILE_TIME));
      const bound = bindParameters(`INSERT INTO ${compactedTable('requests')} BY NAME SELECT *, ? AS compacted_slice FROM (${sql})`, [sliceOf(day, runId), ...params]);
      await db.run(spliceParameters(translateTrino(bound.sql), bound.parameters ?? []));
      states.set(day, parseStateKey(stateKey('requests', day, runId, FILE_TIME))!);
    }
    // A file of a compacted day that arrived after its cutoff: never compacted, read raw.
    await db.run(`INSERT INTO requests BY NAME SELECT * REPLACE ('late-1' AS id, TIMESTAMPTZ '${new Date(LATE_FILE_TIME).toISOString()}' AS "$file_modified_time") FROM requests WHERE id = 'r30'`);
    await db.run(`INSERT INTO everything BY NAME SELECT * REPLACE ('late-1' AS id) FROM everything WHERE id = 'r30'`);
    const [{ raw, compacted }] = await runDuckDb({ sql: `SELECT (SELECT count(*) FROM requests)::INTEGER AS raw, (SELECT count(*) FROM ${compactedTable('requests')})::INTEGER AS compacted`, params: [] });
    expect(raw).toBe(WORKSPACES.length * 4 * 3 + 1);
    expect(compacted).toBe(WORKSPACES.length * 4 * 2);
  });

  const range = { from: '2026-11-24T00:00:00.000Z', to: '2026-11-26T23:59:59.999Z' };
  const scopes = { 'one workspace': { organisationId: 'org-1', workspaceId: 'ws-3' }, 'the organisation': { organisationId: 'org-1' } };

  const shapes = (query: LogQuery) => ({
    list: (dialect: 'duckdb' | 'trino') => listRequests(dialect, query, 100),
    get: (dialect: 'duckdb' | 'trino') => getRequest(dialect, query, 'r30'),
    traceSummaries: (dialect: 'duckdb' | 'trino') => traceSummaries(dialect, query, 50),
    totals: (dialect: 'duckdb' | 'trino') => analyticsTotals(dialect, { scope: query.scope, range: query.range, groupBy: 'model', interval: 'day' }),
    byMetadata: (dialect: 'duckdb' | 'trino') => analyticsTotals(dialect, { scope: query.scope, range: query.range, groupBy: 'metadata.team', interval: 'day' }),
  });

  for (const [scopeName, scope] of Object.entries(scopes)) {
    for (const [shape, render] of Object.entries(shapes({ scope, range, filter: { metadata: { team: "'" } } }))) {
      it(`${shape} over ${scopeName} answers what one table answers`, async () => {
        // The distinct models of a trace come in no particular order in either engine.
        const normalise = (rows: Array<Record<string, unknown>>) => rows.map((row) => (typeof row.models === 'string' ? { ...row, models: row.models.split(MODEL_SEPARATOR).sort() } : row));
        const expected = normalise(await runDuckDb({ ...render('duckdb'), sql: render('duckdb').sql.replaceAll('FROM requests ', 'FROM everything ') }));
        const actual = normalise(await runTrino(render('trino')));
        expect(actual).toEqual(expected);
        if (shape !== 'get') expect(actual.length).toBeGreaterThan(0);
      });
    }
  }

  it('reads the compacted table only in the workspace\'s bucket and the compacted days\' slices, the raw table by day', async () => {
    const statement = listRequests('trino', { scope: scopes['one workspace'], range }, 10);
    expect(statement.sql).toContain(`FROM ${compactedTable('requests')} WHERE `);
    expect(statement.sql).toContain(' AND ws_bucket = ? UNION ALL SELECT ');
    expect(statement.sql.match(/day BETWEEN \? AND \?/g)).toHaveLength(1);
    const resolved = await resolveCompactionMarkers(statement.sql, statement.params, async () => states);
    expect(resolved).toContain("compacted_slice IN ('day=2026-11-24.20261127t003000z-abc123', 'day=2026-11-25.20261127t003000z-abc123')");
    expect(resolved).toContain(`NOT ((day = '2026-11-24' AND "$file_modified_time" <= from_iso8601_timestamp('${new Date(FILE_TIME).toISOString()}')) OR (day = '2026-11-25'`);
    expect(statement.params).toContain(workspaceBucket('ws-3'));
    expect(listRequests('trino', { scope: scopes['the organisation'], range }, 10).sql).not.toContain('ws_bucket');
  });

  it('binds a metadata value too long for one Athena parameter, and it still matches', async () => {
    const long = "'".repeat(512);
    await db.run(`UPDATE ${compactedTable('requests')} SET metadata = MAP {'team': '${long.replaceAll("'", "''")}'} WHERE id = 'r60'`);
    await db.run(`UPDATE requests SET metadata = MAP {'team': '${long.replaceAll("'", "''")}'} WHERE id = 'r60'`);
    await db.run(`UPDATE everything SET metadata = MAP {'team': '${long.replaceAll("'", "''")}'} WHERE id = 'r60'`);
    const query = { scope: { organisationId: 'org-1' }, range, filter: { metadata: { team: long } } };
    expect((await runTrino(listRequests('trino', query, 10))).map((row) => row.id)).toEqual(['r60']);
    expect((await runDuckDb(listRequests('duckdb', { ...query }, 10))).map((row) => row.id)).toEqual(['r60']);
  });
});
