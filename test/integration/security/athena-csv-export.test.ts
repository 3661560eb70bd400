import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trinoLiteral } from '../../../shared/observability/engine/aws/athena-parameters.js';
import { REQUEST_COLUMNS } from '../../../shared/observability/engine/columns.js';
import { trinoCsvLine } from '../../../shared/observability/engine/csv-cells.js';
import { createTableSql } from '../../../shared/observability/engine/duckdb/schema.js';
import { exportRequests } from '../../../shared/observability/engine/log-queries.js';
import { statement, sql } from '../../../shared/observability/engine/sql.js';
import { textfileCopyOptions } from '../../aws-shaped/support/athena-stand-in.js';
import { parseCsv } from '../../aws-shaped/support/csv.js';
import { spliceParameters, translateTrino } from '../../aws-shaped/support/trino-to-duckdb.js';

/**
 * CSV exports on Athena (issue #43): the UNLOAD wrote TEXTFILE, which Athena writes as Hive does — nothing quoted,
 * NULL as `\N`, a map with control-character separators — so a caller's model name `x,=cmd|' /C calc'!A0` became two
 * cells, the second a formula, past the first-character check, and a metadata key began a cell unneutralised. Now
 * each row is one finished CSV line by the DuckDB export's rule (engine/csv-cells.ts). The Trino SQL runs here on
 * DuckDB as the Athena stand-in runs it (translated, parameters spliced, written as Athena writes TEXTFILE); the
 * export code against the stand-ins is test/aws-shaped/deployed-stack.test.ts.
 * Class: CSV injection through an export's unquoted fields.
 */
const exported = REQUEST_COLUMNS.filter((definition) => !definition.partition);
const HOSTILE = {
  model: "x,=cmd|' /C calc'!A0",
  error_message: '@SUM(1+1)\r\nline two, "quoted"',
  provider: '+1',
  endpoint: '-2',
  outcome: '\tTAB',
  error_code: '=1',
};
let directory: string;
let connection: DuckDBConnection;

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'gw-athena-csv-'));
  connection = await (await DuckDBInstance.create(':memory:')).connect();
  await connection.run(createTableSql('requests'));
  const values = exported.map((definition) => {
    if (definition.name in HOSTILE) return trinoLiteral(HOSTILE[definition.name as keyof typeof HOSTILE]);
    if (definition.name === 'metadata') return "MAP(['=key', 'team'], ['+v', 'a,b'])";
    if (definition.name === 'created_at') return "TIMESTAMP '2026-11-28 10:00:00'";
    if (definition.name === 'cost') return '0.25';
    if (definition.name === 'status') return '200';
    if (definition.name === 'stream') return 'true';
    if (definition.name === 'id') return "'req-1'";
    return 'NULL';
  });
  await connection.run(`INSERT INTO requests (${exported.map((definition) => definition.name).join(', ')}) VALUES (${values.join(', ')})`);
});
afterAll(() => {
  connection?.closeSync();
  if (directory) rmSync(directory, { recursive: true, force: true });
});

/** Runs a Trino statement as the Athena stand-in does and writes it as Athena's UNLOAD writes TEXTFILE. */
async function unloadAsAthena(trino: { sql: string; params: ReadonlyArray<string | number | boolean | null> }): Promise<string> {
  const file = join(directory, `${Math.random().toString(36).slice(2)}.csv`);
  const query = translateTrino(spliceParameters(trino.sql, trino.params.map((value) => trinoLiteral(value))));
  await connection.run(`COPY (${query}) TO '${file}' (${textfileCopyOptions(',')})`);
  return readFileSync(file, 'utf8');
}

async function copyAsDuckDb(): Promise<string> {
  const file = join(directory, 'duckdb.csv');
  const duckdb = exportRequests('duckdb', { scope: { organisationId: 'org', workspaceId: 'ws' }, range: { from: '2026-11-01T00:00:00Z', to: '2026-11-30T00:00:00Z' } }, { neutraliseFormulas: true });
  const select = duckdb.sql.replace(/ FROM requests WHERE .*$/s, ' FROM requests');
  await connection.run(`COPY (${select}) TO '${file}' (FORMAT csv, HEADER false)`);
  return readFileSync(file, 'utf8');
}

describe('an Athena CSV export, as Athena writes it', () => {
  it('has one cell per column, quoted, with every caller-set text that could run as a formula neutralised', async () => {
    const text = await unloadAsAthena(statement(sql`SELECT ${trinoCsvLine(exported)} AS csv_line FROM requests`));
    const rows = parseCsv(text);
    expect(rows).toHaveLength(1);
    const [row] = rows;
    expect(row).toHaveLength(exported.length);
    const cell = (name: string) => row[exported.findIndex((definition) => definition.name === name)];
    // One cell each, whole (the model's comma splits nothing); a leading formula character gets a `'`.
    for (const [name, value] of Object.entries(HOSTILE)) expect(cell(name), name).toBe(/^[=+\-@\t\r]/.test(value) ? `'${value}` : value);
    expect(JSON.parse(cell('metadata'))).toEqual({ '=key': '+v', team: 'a,b' });
    expect(cell('status')).toBe('200');
    expect(cell('stream')).toBe('true');
    expect(cell('trace_id')).toBe('');
    // No cell of the file begins with a formula character, whatever a caller sent.
    for (const value of row) expect(/^[=+\-@\t\r]/.test(value), value).toBe(false);
  });

  it('reads back exactly as the DuckDB export of the same row does, text cell by text cell', async () => {
    const athena = parseCsv(await unloadAsAthena(statement(sql`SELECT ${trinoCsvLine(exported)} AS csv_line FROM requests`)))[0];
    const duckdb = parseCsv(await copyAsDuckDb())[0];
    expect(athena).toHaveLength(duckdb.length);
    exported.forEach((definition, index) => {
      if (definition.type === 'string') expect(athena[index], definition.name).toBe(duckdb[index]);
    });
  });

  it('is what exportRequests renders for a Trino CSV: one csv_line column, the workspace filter kept', () => {
    const trino = exportRequests('trino', { scope: { organisationId: 'org', workspaceId: 'ws' }, range: { from: '2026-11-01T00:00:00Z', to: '2026-11-30T00:00:00Z' } }, { neutraliseFormulas: true });
    expect(trino.sql).toMatch(/^SELECT CASE WHEN id IS NULL THEN '' ELSE '"' \|\| replace\(/);
    expect(trino.sql).toContain(' AS csv_line FROM (SELECT ');
    expect(trino.sql).toMatch(/workspace_id = \?/);
    expect(trino.params).toContain('ws');
  });
});
