/**
 * Issue #42: how many answered requests have no log record after a `kill -9` under load? Starts the local gw in a
 * process of its own, drives it with 16 connections of chat completions for a few seconds, kills it with SIGKILL
 * mid-load, starts it again on the same data directory (which writes the journal's unwritten records), stops it,
 * and counts the answered trace ids missing from its DuckDB file.
 * Run: npx tsx bench/profile/kill9-log-window.ts [seconds of load before the kill, default 5]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GW_PROCESS_KEY, spawnGw } from '../../test/support/gw-process.js';
import { openAIMockHandler } from '../../test/support/mock-openai.js';
import { startMockUpstream } from '../../test/support/mock-upstream.js';

const loadSeconds = Number(process.argv[2] ?? 5);

async function main(): Promise<void> {
  const upstream = await startMockUpstream(openAIMockHandler());
  const data = mkdtempSync(join(tmpdir(), 'gw-kill9-'));
  try {
    const first = await spawnGw({ GW_DATA_DIR: data, POWERTOOLS_LOG_LEVEL: 'ERROR' });
    const url = await first.listening;
    const answered: string[] = [];
    let next = 0;
    let stopped = false;
    const connection = async () => {
      while (!stopped) {
        const traceId = `k9-${next++}`;
        try {
          const response = await fetch(`${url}/v1/chat/completions`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-gw-api-key': GW_PROCESS_KEY, 'x-gw-provider': 'openai', 'x-gw-custom-host': upstream.url, authorization: 'Bearer sk-x', 'x-gw-trace-id': traceId },
            body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] }),
          });
          await response.arrayBuffer();
          if (response.status === 200 && !stopped) answered.push(traceId);
        } catch {
          return;
        }
      }
    };
    const load = Promise.all(Array.from({ length: 16 }, connection));
    await new Promise((resolve) => setTimeout(resolve, loadSeconds * 1000));
    // Answers that arrive after this instant are not counted: the kill follows at once.
    stopped = true;
    const counted = answered.slice();
    first.kill('SIGKILL');
    await first.exited;
    await load;

    const second = await spawnGw({ GW_DATA_DIR: data, POWERTOOLS_LOG_LEVEL: 'ERROR' });
    const secondUrl = await second.listening;
    const health = await (await fetch(`${secondUrl}/health?deep=true`, { headers: { 'x-gw-api-key': GW_PROCESS_KEY } })).json();
    second.kill('SIGTERM');
    await second.exited;
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const database = await DuckDBInstance.create(join(data, 'logs.duckdb'), { access_mode: 'READ_ONLY' });
    const connectionToFile = await database.connect();
    const rows = (await connectionToFile.runAndReadAll("SELECT trace_id FROM requests WHERE starts_with(trace_id, 'k9-')")).getRowObjectsJS();
    connectionToFile.closeSync();
    database.closeSync();
    const present = new Set(rows.map((row) => String(row.trace_id)));
    const missing = counted.filter((id) => !present.has(id));
    console.log(`answered before the kill: ${counted.length}; records after restart: ${present.size} (rows ${rows.length}); answered without a record: ${missing.length}`);
    console.log(`last run, per deep health after restart: ${JSON.stringify((health as { checks: { log_engine: unknown } }).checks.log_engine)}`);
  } finally {
    await upstream.close();
    rmSync(data, { recursive: true, force: true });
  }
}

void main();
