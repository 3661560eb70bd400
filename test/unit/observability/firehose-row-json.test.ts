import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeRow, hiveTimestamp } from '../../../shared/observability/engine/aws/row-json.js';
import type { LogicalColumnType } from '../../../shared/observability/engine/aws/table-columns.js';
import type { EngineRow } from '../../../shared/observability/engine/types.js';
import { PROVISIONAL_ENGINE_COLUMNS } from '../../infra/fixtures/request-log-columns.js';

/**
 * The JSON lines the Firehose sink sends must convert into the Glue table's column types. Firehose's Hive JSON
 * SerDe is not available here, so the same contract is checked with DuckDB reading the lines with the table's
 * types and an explicit timestamp format (the SerDe's default form), then writing and reading them as Parquet.
 */
const DUCKDB_TYPES: Record<LogicalColumnType, string> = {
  string: 'VARCHAR',
  bigint: 'BIGINT',
  double: 'DOUBLE',
  boolean: 'BOOLEAN',
  timestamp: 'TIMESTAMP',
  'map<string,string>': 'MAP(VARCHAR, VARCHAR)',
};

const dir = mkdtempSync(join(tmpdir(), 'gw-row-json-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('encodeRow', () => {
  it('writes timestamps as yyyy-MM-dd HH:mm:ss.SSS in UTC, from epoch milliseconds or ISO strings', () => {
    expect(hiveTimestamp(Date.UTC(2026, 10, 27, 23, 59, 59, 7))).toBe('2026-11-27 23:59:59.007');
    expect(hiveTimestamp('2026-11-27T10:15:03+02:00')).toBe('2026-11-27 08:15:03.000');
    expect(() => hiveTimestamp('yesterday')).toThrow(/not a timestamp/);
  });

  it("produces lines that read back, as Parquet, with the table's types and the row's values", async () => {
    const columns = PROVISIONAL_ENGINE_COLUMNS.requests;
    const rows: EngineRow[] = [
      { id: 'req_1', created_at: Date.UTC(2026, 10, 27, 10, 15, 3, 123), status: 200, cost: 0.00042, stream: true, metadata: { team: 'a "quoted", value', 'k=v': 'x\ny' }, latency_ms: 1234.9 },
      { id: "req_'2", created_at: '2026-11-27T00:00:00.000Z', status: null, cost: 1e-9, stream: false, metadata: {}, target_path: '\u2028☃' },
    ];
    const file = join(dir, 'rows.jsonl');
    writeFileSync(file, Buffer.concat(rows.map((row) => Buffer.from(encodeRow(row, columns)))));
    const dataColumns = columns.filter((column) => column.name !== 'day');
    const typed = `{${dataColumns.map((column) => `'${column.name}': '${DUCKDB_TYPES[column.type]}'`).join(', ')}}`;
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    await connection.run(
      `COPY (SELECT * FROM read_json('${file}', format = 'newline_delimited', columns = ${typed}, timestampformat = '%Y-%m-%d %H:%M:%S.%g')) TO '${join(dir, 'rows.parquet')}' (FORMAT parquet)`,
    );
    const read = await connection.runAndReadAll(
      `SELECT id, strftime(created_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS created_at, status, cost, stream, map_entries(metadata) AS metadata, latency_ms, target_path FROM read_parquet('${join(dir, 'rows.parquet')}')`,
    );
    const back = read.getRowObjectsJson();
    connection.closeSync();
    expect(back).toEqual([
      {
        id: 'req_1',
        created_at: '2026-11-27T10:15:03.123Z',
        status: '200',
        cost: 0.00042,
        stream: true,
        metadata: [
          { key: 'team', value: 'a "quoted", value' },
          { key: 'k=v', value: 'x\ny' },
        ],
        latency_ms: '1234',
        target_path: null,
      },
      { id: "req_'2", created_at: '2026-11-27T00:00:00.000Z', status: null, cost: 1e-9, stream: false, metadata: [], latency_ms: null, target_path: '\u2028☃' },
    ]);
  });
});
