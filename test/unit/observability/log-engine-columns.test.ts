import { describe, expect, it } from 'vitest';
import { duckDbType, glueColumns, REQUEST_COLUMNS, REQUEST_VALUES, requestRow, spanRows, SPAN_COLUMNS, SPAN_VALUES } from '../../../shared/observability/engine/columns.js';
import { createTableSql } from '../../../shared/observability/engine/duckdb/schema.js';
import { readRow, recordFromRow } from '../../../shared/observability/engine/rows.js';
import { logRecord } from '../../integration/observability/log-engine-support.js';

// The one column list both engines are built from, and the flat rows a record becomes.

describe('the column list', () => {
  it('gives both tables a `day` string partition and only the logical types Glue and DuckDB both know', () => {
    for (const columns of [REQUEST_COLUMNS, SPAN_COLUMNS]) {
      expect(columns.filter((column) => column.partition)).toEqual([{ name: 'day', type: 'string', partition: true }]);
      expect(new Set(columns.map((column) => column.name)).size).toBe(columns.length);
    }
    expect(glueColumns('requests').partitionKeys).toEqual([{ name: 'day', type: 'string' }]);
    expect(glueColumns('requests').columns.find((column) => column.name === 'metadata')).toEqual({ name: 'metadata', type: 'map<string,string>' });
    expect(glueColumns('requests').columns.map((column) => column.name)).not.toContain('day');
    expect(new Set(glueColumns('spans').columns.map((column) => column.type))).toEqual(new Set(['string', 'timestamp', 'double']));
    expect(duckDbType('map<string,string>')).toBe('MAP(VARCHAR, VARCHAR)');
    expect(createTableSql('requests')).toContain('created_at TIMESTAMP, organisation_id VARCHAR');
  });

  it('reads every column, and nothing else, from a record (the row objects and the DuckDB sink share these readers)', () => {
    expect(Object.keys(REQUEST_VALUES).sort()).toEqual(REQUEST_COLUMNS.map((column) => column.name).sort());
    expect(Object.keys(SPAN_VALUES).sort()).toEqual(SPAN_COLUMNS.map((column) => column.name).sort());
  });
});

describe('a record as rows', () => {
  it('flattens usage, error and bodies into one requests row whose keys are exactly the columns', () => {
    const record = logRecord({ id: 'r1', created_at: '2026-11-27T23:59:59.123Z', metadata: { _user: 'alice' }, error: { type: 't', code: 'c', message: 'm' }, outcome: 'error', status: 502 });
    const row = requestRow(record);
    expect(Object.keys(row).sort()).toEqual(REQUEST_COLUMNS.map((column) => column.name).sort());
    expect(row).toMatchObject({ created_at: '2026-11-27 23:59:59.123', day: '2026-11-27', prompt_tokens: 9, total_tokens: 21, error_code: 'c', metadata: { _user: 'alice' } });
    expect(JSON.parse(row.request_body as string)).toEqual(record.request_body);
    expect(JSON.parse(row.attempts as string)).toEqual(record.attempts);
  });

  it('makes one spans row per span, its day from its start', () => {
    const record = logRecord({ id: 'r1', created_at: '2026-11-28T00:00:00.010Z' });
    const [span] = spanRows(record);
    expect(Object.keys(span).sort()).toEqual(SPAN_COLUMNS.map((column) => column.name).sort());
    expect(span).toMatchObject({ log_id: 'r1', trace_id: 'trace-r1', workspace_id: 'ws-1', day: '2026-11-27', name: 'auth' });
    expect(JSON.parse(span.attributes as string)).toEqual({ 'gw.cached': true, 'gw.count': 2, 'gw.name': 'x' });
  });

  it('reads back the same record from text values, as Athena returns them', () => {
    const record = logRecord({ id: 'r1', created_at: '2026-11-27T10:00:00.000Z', metadata: { a: '1' }, usage: null, cost: null, spans: [] });
    const asText = Object.fromEntries(Object.entries(requestRow(record)).map(([name, value]) => [name, value === null ? null : typeof value === 'object' ? JSON.stringify(value) : String(value)]));
    const { day: _day, ...row } = readRow('requests', asText);
    expect(recordFromRow(row, [])).toEqual(record);
  });
});
