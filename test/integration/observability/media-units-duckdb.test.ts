import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyticsTotals } from '../../../shared/observability/engine/analytics-queries.js';
import { duckDbType, REQUEST_COLUMNS, requestRow } from '../../../shared/observability/engine/columns.js';
import { openDuckDbLogEngine, type DuckDbLogEngine } from '../../../shared/observability/engine/duckdb/engine.js';
import { createTableSql } from '../../../shared/observability/engine/duckdb/schema.js';
import { exportRequests, getRequest, listRequests, type LogQuery } from '../../../shared/observability/engine/log-queries.js';
import { readRow, recordFromRow } from '../../../shared/observability/engine/rows.js';
import type { RequestLogRecord } from '../../../shared/observability/log-record.js';
import { USAGE_EXPORT_COLUMNS } from '../../../shared/control-plane/logs/hide-usage.js';
import { chatRecord, mediaRecords, ZERO_TOKENS } from './media-records.js';

/**
 * Media units are lost from request logs (issue #47) unless the log table has columns for them: an image, speech or
 * transcription request is billed by images, characters or audio seconds, and the local engine (DuckDB) must keep
 * them, give them back to the read APIs, sum them in analytics and export them. A database file made before these
 * columns existed must still open, keep its rows (their media columns null), and take the new rows.
 */
const dir = mkdtempSync(join(tmpdir(), 'gw-media-units-'));
const file = join(dir, 'logs.duckdb');
let logs: DuckDbLogEngine;

const DAY = '2026-11-27';
const MEDIA_RECORDS = mediaRecords(DAY);
const zeroTokens = ZERO_TOKENS;
/** A row of a database file from before the media columns: a chat request with tokens only. */
const OLD_ROW = chatRecord(DAY);
/** The columns a log file had before issue #47's media columns: everything up to the partition column. */
const OLD_COLUMNS = REQUEST_COLUMNS.slice(0, REQUEST_COLUMNS.findIndex((column) => column.name === 'day') + 1);

const query: LogQuery = { scope: { organisationId: 'org-1', workspaceId: 'ws-1' }, range: { from: '2026-11-27T00:00:00.000Z', to: '2026-11-27T23:59:59.999Z' } };

async function read(id: string): Promise<RequestLogRecord> {
  const [row] = (await logs.engine.query(getRequest('duckdb', query, id))).rows;
  return recordFromRow(readRow('requests', row), []);
}

beforeAll(async () => {
  // A log file as the previous gw left it: its own (shorter) requests table and one row in it.
  const old = await DuckDBInstance.create(file);
  const connection = await old.connect();
  await connection.run(`CREATE TABLE requests (${OLD_COLUMNS.map((column) => `${column.name} ${duckDbType(column.type)}`).join(', ')})`);
  await connection.run(createTableSql('spans'));
  const row = requestRow(OLD_ROW);
  await connection.run(
    `INSERT INTO requests (id, trace_id, span_id, created_at, organisation_id, workspace_id, api_key_id, endpoint, provider, model, status, outcome, latency_ms, prompt_tokens, completion_tokens, total_tokens, cached_tokens, reasoning_tokens, cost, retry_count, stream, metadata, attempts, day)
     VALUES ('old-chat', 'trace-old-chat', 'old-chat-root', TIMESTAMP '${String(row.created_at)}', 'org-1', 'ws-1', 'key-1', 'chat.completions', 'openai', 'gpt-4o-mini', 200, 'success', 100, 9, 12, 21, 0, 0, 0.0001, 0, false, MAP {}, '[]', '${String(row.day)}')`,
  );
  connection.closeSync();
  old.closeSync();

  logs = await openDuckDbLogEngine({ path: file, spillDirectory: join(dir, 'spill'), memoryLimit: '128MB', retentionMs: 3_650 * 86_400_000, retentionIntervalMs: 0, journalDirectory: join(dir, 'journal'), journalMaxBytes: 1 << 30, memoryRecords: 1_000 });
  for (const record of MEDIA_RECORDS) logs.sink.appendRecord!(record);
  await logs.sink.flush();
}, 60_000);

afterAll(async () => {
  await logs?.sink.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('media units are lost from request logs: the local engine keeps them', () => {
  it('an existing log file from before the media columns opens, keeps its rows with the new columns null, and takes new rows', async () => {
    const old = await read('old-chat');
    expect(old.usage).toEqual({ prompt_tokens: 9, completion_tokens: 12, total_tokens: 21, cached_tokens: 0, reasoning_tokens: 0 });
    const { rows } = await logs.engine.query({ sql: "SELECT images, characters, audio_seconds, image_size, image_quality FROM requests WHERE id = 'old-chat'", params: [] });
    expect(rows).toEqual([{ images: null, characters: null, audio_seconds: null, image_size: null, image_quality: null }]);
    const all = (await logs.engine.query(listRequests('duckdb', query, 10))).rows.map((row) => row.id);
    expect(all).toEqual(['transcription', 'speech', 'image', 'old-chat']);
  });

  it('a single record and a list page give back the images with their size and quality, the characters and the audio seconds', async () => {
    expect((await read('image')).usage).toEqual({ ...zeroTokens, images: 2, image_size: '1024x1792', image_quality: 'hd' });
    expect((await read('speech')).usage).toEqual({ ...zeroTokens, characters: 31 });
    expect((await read('transcription')).usage).toEqual({ ...zeroTokens, audio_seconds: 25.933 });
    const page = (await logs.engine.query(listRequests('duckdb', { ...query, filter: { columns: { endpoint: 'images/generations' } } }, 10))).rows;
    expect(recordFromRow(readRow('requests', page[0]), []).usage).toMatchObject({ images: 2, image_size: '1024x1792', image_quality: 'hd' });
  });

  it('analytics sum the media units per group as they sum tokens, the old row counting none', async () => {
    const [totals] = (await logs.engine.query(analyticsTotals('duckdb', { ...query, groupBy: 'workspace', interval: 'day' }))).rows;
    expect({ requests: Number(totals.requests), images: Number(totals.images), characters: Number(totals.characters), audio_seconds: Number(totals.audio_seconds), prompt_tokens: Number(totals.prompt_tokens) }).toEqual({
      requests: 4,
      images: 2,
      characters: 31,
      audio_seconds: 25.933,
      prompt_tokens: 9,
    });
  });

  it('an export writes the media columns (CSV and JSON lines)', async () => {
    for (const format of ['csv', 'jsonl'] as const) {
      const destination = join(dir, `export.${format}`);
      const { jobId } = await logs.engine.startExport(exportRequests('duckdb', query, { neutraliseFormulas: format === 'csv' }), format, destination);
      let status = await logs.engine.exportStatus(jobId);
      while (status.state === 'running') status = await new Promise((resolve) => setImmediate(() => resolve(logs.engine.exportStatus(jobId))));
      expect(status.state).toBe('succeeded');
      // Read back as a reader of the file would: DuckDB's own JSON and CSV readers (quoted cells, JSON text).
      const reader = format === 'csv' ? `read_csv('${destination}', header = true)` : `read_json('${destination}', format = 'newline_delimited')`;
      const { rows } = await logs.engine.query({ sql: `SELECT id, images, characters, audio_seconds, image_size, image_quality FROM ${reader} ORDER BY id`, params: [] });
      expect(rows.map((row) => [row.id, row.images === null ? null : Number(row.images), row.characters === null ? null : Number(row.characters), row.audio_seconds, row.image_size, row.image_quality])).toEqual([
        ['image', 2, null, null, '1024x1792', 'hd'],
        ['old-chat', null, null, null, null, null],
        ['speech', null, 31, null, null, null],
        ['transcription', null, null, 25.933, null, null],
      ]);
    }
  });

  it('an export made for a caller who may not see usage leaves the media units out with the tokens', async () => {
    const destination = join(dir, 'export-hidden.jsonl');
    const { jobId } = await logs.engine.startExport(exportRequests('duckdb', query, { omitColumns: USAGE_EXPORT_COLUMNS }), 'jsonl', destination);
    let status = await logs.engine.exportStatus(jobId);
    while (status.state === 'running') status = await new Promise((resolve) => setImmediate(() => resolve(logs.engine.exportStatus(jobId))));
    const { rows } = await logs.engine.query({ sql: `SELECT * FROM read_json('${destination}', format = 'newline_delimited') WHERE id = 'image'`, params: [] });
    expect(rows).toHaveLength(1);
    for (const name of ['images', 'characters', 'audio_seconds', 'total_tokens', 'cost']) expect(rows[0]).not.toHaveProperty(name);
    expect(rows[0]).toMatchObject({ image_size: '1024x1792', endpoint: 'images/generations' });
  });

  it('a log file whose columns are in another order than gw writes them is refused at open, naming the difference, not written into the wrong columns', async () => {
    const misordered = join(dir, 'misordered.duckdb');
    const database = await DuckDBInstance.create(misordered);
    const connection = await database.connect();
    const shuffled = [...REQUEST_COLUMNS.filter((column) => column.name === 'images'), ...REQUEST_COLUMNS.filter((column) => column.name !== 'images')];
    await connection.run(`CREATE TABLE requests (${shuffled.map((column) => `${column.name} ${duckDbType(column.type)}`).join(', ')})`);
    connection.closeSync();
    database.closeSync();
    const opened = openDuckDbLogEngine({ path: misordered, spillDirectory: join(dir, 'spill-2'), memoryLimit: '64MB', retentionMs: 86_400_000, retentionIntervalMs: 0, journalDirectory: join(dir, 'journal-2'), journalMaxBytes: 1 << 20, memoryRecords: 10 });
    await expect(opened).rejects.toMatchObject({ startupLine: expect.stringContaining('requests table has columns (images, id, ') });
  });
});
