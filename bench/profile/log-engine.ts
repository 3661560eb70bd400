/**
 * The local log engine at scale (issue #32): appends N request rows (default 1,000,000) through the DuckDB sink as
 * the after-path does, then times grouped analytics over them and exports them all (JSON Lines and Parquet),
 * sampling this process's RSS while each export runs. Writes bench/results/log-engine.md.
 *
 *   npx tsx bench/profile/log-engine.ts [rows]
 */
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyticsSeries, analyticsTotals } from '../../shared/observability/engine/analytics-queries.js';
import { requestRow } from '../../shared/observability/engine/columns.js';
import { openDuckDbLogEngine } from '../../shared/observability/engine/duckdb/engine.js';
import { exportRequests } from '../../shared/observability/engine/log-queries.js';
import type { RequestLogRecord } from '../../shared/observability/log-record.js';

const ROWS = Number(process.argv[2] ?? 1_000_000);
const BATCH = 5_000;
const MODELS = ['gpt-4o-mini', 'gpt-4o', 'claude-sonnet-4', 'gemini-2.5-flash', 'llama-3.3-70b'];
const START = Date.UTC(2026, 10, 1);
const SPAN_MS = 30 * 86_400_000;
const MiB = 1024 * 1024;

function record(i: number): RequestLogRecord {
  const created = new Date(START + Math.floor((i / ROWS) * SPAN_MS)).toISOString();
  const model = MODELS[i % MODELS.length];
  return {
    id: `req-${i}`,
    request_id: `req-${i}`,
    trace_id: `trace-${Math.floor(i / 3)}`,
    span_id: i.toString(16).padStart(16, '0'),
    created_at: created,
    organisation_id: 'org-bench',
    workspace_id: i % 10 === 0 ? 'ws-other' : 'ws-bench',
    api_key_id: `key-${i % 50}`,
    virtual_key_id: null,
    endpoint: 'chat.completions',
    provider: 'openai',
    model,
    status: i % 97 === 0 ? 500 : 200,
    latency_ms: 50 + ((i * 7919) % 2_000),
    ttft_ms: null,
    usage: { prompt_tokens: 9 + (i % 100), completion_tokens: 12 + (i % 300), total_tokens: 21 + (i % 100) + (i % 300), cached_tokens: 0, reasoning_tokens: 0 },
    cost: 0.000_01 * (1 + (i % 10)),
    cache_status: i % 20 === 0 ? 'HIT' : 'DISABLED',
    retry_count: 0,
    last_used_option: null,
    metadata: { _user: `user-${i % 1_000}`, team: `team-${i % 12}` },
    error: i % 97 === 0 ? { type: 'upstream_error', code: 'http_500', message: 'upstream failed' } : null,
    stream: i % 2 === 0,
    outcome: i % 97 === 0 ? 'error' : 'success',
    attempts: [{ target_path: 'config', provider: 'openai', status: 200, latency_ms: 40, retry: 0 }],
    spans: [],
    request_body: { model, messages: [{ role: 'user', content: `question ${i}` }] },
    response_body: { object: 'chat.completion', choices: [{ message: { role: 'assistant', content: `answer ${i}` } }] },
  };
}

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; result: T }> {
  const started = performance.now();
  const result = await work();
  return { ms: performance.now() - started, result };
}

async function main(): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), 'gw-bench-logs-'));
  const lines: string[] = [`# Log engine at ${ROWS.toLocaleString('en')} rows (DuckDB, file under a temporary data dir)`, '', `Node ${process.version}, ${new Date().toISOString()}`, ''];
  const say = (line: string) => {
    lines.push(line);
    process.stderr.write(`${line}\n`);
  };
  try {
    const { sink, engine } = await openDuckDbLogEngine({
      path: join(folder, 'logs.duckdb'),
      spillDirectory: join(folder, 'logs.duckdb.tmp'),
      memoryLimit: process.env.GW_LOG_DUCKDB_MEMORY_LIMIT ?? '256MB',
      retentionMs: 3_650 * 86_400_000,
      retentionIntervalMs: 0,
      journalDirectory: join(folder, 'logs.duckdb.journal'),
      journalMaxBytes: 1 << 30,
      memoryRecords: 20_000,
    });

    const append = await timed(async () => {
      for (let start = 0; start < ROWS; start += BATCH) {
        const rows = [];
        for (let i = start; i < Math.min(ROWS, start + BATCH); i++) rows.push(requestRow(record(i)));
        sink.append('requests', rows);
        await sink.flush();
      }
    });
    say(`- append through the sink: ${(append.ms / 1000).toFixed(1)} s, ${Math.round(ROWS / (append.ms / 1000)).toLocaleString('en')} rows/s (row building included)`);

    const range = { from: new Date(START).toISOString(), to: new Date(START + SPAN_MS).toISOString() };
    const scope = { organisationId: 'org-bench', workspaceId: 'ws-bench' };
    for (const [label, statement] of [
      ['totals by model', analyticsTotals('duckdb', { scope, range, groupBy: 'model', interval: 'day' })],
      ['totals by metadata.team', analyticsTotals('duckdb', { scope, range, groupBy: 'metadata.team', interval: 'day' })],
      ['daily series by model', analyticsSeries('duckdb', { scope, range, groupBy: 'model', interval: 'day' })],
      ['hourly series by api key', analyticsSeries('duckdb', { scope, range, groupBy: 'api_key', interval: 'hour' })],
    ] as const) {
      const runs: number[] = [];
      let groups = 0;
      for (let run = 0; run < 3; run++) {
        const { ms, result } = await timed(() => engine.query(statement));
        runs.push(ms);
        groups = result.rows.length;
      }
      runs.sort((a, b) => a - b);
      say(`- analytics, ${label} over ${ROWS.toLocaleString('en')} rows (90 % in scope), p50 and p95 latency included: median of 3 ${runs[1].toFixed(0)} ms (min ${runs[0].toFixed(0)}), ${groups} rows`);
    }

    for (const format of ['jsonl', 'parquet'] as const) {
      global.gc?.();
      const before = process.memoryUsage().rss;
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
      const destination = join(folder, 'exports', `all.${format}`);
      mkdirSync(join(folder, 'exports'), { recursive: true });
      const exported = await timed(async () => {
        const { jobId } = await engine.startExport(exportRequests('duckdb', { scope: { organisationId: 'org-bench' }, range }), format, destination);
        for (;;) {
          const status = await engine.exportStatus(jobId);
          if (status.state !== 'running') return status;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      });
      clearInterval(sampler);
      say(
        `- export ${format}: ${exported.result.state}, ${exported.result.rows?.toLocaleString('en')} rows in ${(exported.ms / 1000).toFixed(1)} s, file ${(statSync(destination).size / MiB).toFixed(0)} MiB; gw RSS ${(before / MiB).toFixed(0)} → peak ${(peak / MiB).toFixed(0)} MiB (growth ${((peak - before) / MiB).toFixed(0)} MiB)`,
      );
    }
    await sink.close();
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  mkdirSync('bench/results', { recursive: true });
  writeFileSync('bench/results/log-engine.md', `${lines.join('\n')}\n`);
}

void main();
