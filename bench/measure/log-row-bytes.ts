/**
 * Bytes per request-log row with realistic bodies (issue #41): the JSON line Firehose is billed for (encodeRow, 5 KB
 * rounding per record) and the Parquet (Snappy) it becomes, for three body profiles: none (logging of bodies off),
 * a typical chat (a ~1.5 KB prompt, a ~0.8 KB answer) and the inline maximum (16 KiB each, GW_LOG_BODY_INLINE_BYTES).
 * Parquet is written by DuckDB (the stand-in of Firehose's conversion) over 2,000 rows with varied text.
 * Run: npx tsx bench/measure/log-row-bytes.ts
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { encodeRow } from '../../shared/observability/engine/aws/row-json.js';
import { duckDbType, requestRow, TABLE_COLUMNS } from '../../shared/observability/engine/columns.js';
import type { RequestLogRecord } from '../../shared/observability/log-record.js';

const ROWS = 2_000;
const words = 'the of and to in is that for it as with was on be by this are from or have an they which one you were all'.split(' ');
const prose = (bytes: number, seed: number) => {
  let text = '';
  for (let i = seed; text.length < bytes; i = (i * 1103515245 + 12345) % 2147483648) text += `${words[i % words.length]} `;
  return text.slice(0, bytes);
};

function record(i: number, promptBytes: number, answerBytes: number): RequestLogRecord {
  const body = (content: string) => ({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] });
  return {
    id: `log_${i.toString(36).padStart(12, '0')}`, request_id: `req_${i}`, trace_id: `trace-${i % 97}`, span_id: `span-${i}`,
    created_at: new Date(Date.UTC(2026, 10, 27, 10) + i * 43_000).toISOString(), organisation_id: 'org_8f2c1d', workspace_id: `ws_${i % 12}`,
    api_key_id: `key_${i % 40}`, endpoint: 'chat.completions', provider: 'openai', model: 'gpt-4o-mini', status: 200, outcome: 'success',
    latency_ms: 800 + (i % 900), usage: { prompt_tokens: 40 + (i % 300), completion_tokens: 20 + (i % 200), total_tokens: 60 + (i % 500), cached_tokens: 0, reasoning_tokens: 0 },
    cost: 0.00001 * (i % 50), cache_status: 'MISS', retry_count: 0, stream: i % 3 === 0, metadata: { _user: `user-${i % 300}`, team: `team-${i % 7}` },
    attempts: [{ target: 'config', provider: 'openai', status: 200, latency_ms: 790 }],
    request_body: promptBytes ? body(prose(promptBytes, i)) : undefined,
    response_body: answerBytes ? { id: `chatcmpl-${i}`, choices: [{ message: { role: 'assistant', content: prose(answerBytes, i * 7 + 3) } }] } : undefined,
  } as unknown as RequestLogRecord;
}

const folder = mkdtempSync(join(tmpdir(), 'gw-row-bytes-'));
const db = await (await DuckDBInstance.create(':memory:')).connect();
const columns = TABLE_COLUMNS.requests.filter((column) => !column.partition);
for (const [name, prompt, answer] of [['no bodies', 0, 0], ['typical chat (1.5 KB + 0.8 KB)', 1_500, 800], ['inline maximum (16 KiB + 16 KiB)', 16_000, 16_000]] as const) {
  const lines = Array.from({ length: ROWS }, (_, i) => encodeRow(requestRow(record(i, prompt, answer)), TABLE_COLUMNS.requests));
  const jsonBytes = lines.reduce((sum, line) => sum + line.byteLength, 0) / ROWS;
  const billed = lines.reduce((sum, line) => sum + Math.ceil(line.byteLength / 5_120) * 5_120, 0) / ROWS;
  const file = join(folder, 'rows.jsonl');
  writeFileSync(file, Buffer.concat(lines));
  const types = columns.map((column) => `${column.name}: '${duckDbType(column.type)}'`).join(', ');
  await db.run(`COPY (SELECT * FROM read_json('${file}', format = 'newline_delimited', columns = {${types}})) TO '${join(folder, 'rows.parquet')}' (FORMAT PARQUET, COMPRESSION SNAPPY)`);
  const parquet = statSync(join(folder, 'rows.parquet')).size / ROWS;
  console.log(`${name}: JSON ${jsonBytes.toFixed(0)} B, Firehose-billed ${(billed / 1024).toFixed(1)} KB, Parquet ${parquet.toFixed(0)} B per row`);
}
db.closeSync();
rmSync(folder, { recursive: true, force: true });
