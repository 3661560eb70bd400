import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTableSql } from '../../../shared/observability/engine/duckdb/schema.js';
import { getJson, spawnGw, type GwProcess } from '../../support/gw-process.js';

// Issue #42: a request-log database that is damaged or held by another process. Start-up says in one line what is
// wrong and what to do; a file damaged under a running gw makes the read APIs answer 503 log_engine_unavailable
// (never 500) and deep health report the log engine failed.

const dir = mkdtempSync(join(tmpdir(), 'gw-log-broken-'));
const healthy = join(dir, 'healthy.duckdb');
const running: GwProcess[] = [];

/** A real log database: the tables gw makes, 200,000 request rows (many blocks), checkpointed and closed. */
beforeAll(async () => {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const database = await DuckDBInstance.create(healthy);
  const connection = await database.connect();
  await connection.run(createTableSql('requests'));
  await connection.run(createTableSql('spans'));
  await connection.run(
    "INSERT INTO requests (id, trace_id, created_at, organisation_id, workspace_id, model, status, request_body) SELECT 'seed-' || range, 'seed-' || range, now()::TIMESTAMP, 'org', 'ws', 'gpt-4o-mini', 200, repeat('x', 200) FROM range(200000)",
  );
  connection.closeSync();
  database.closeSync();
}, 120_000);
afterAll(() => {
  for (const gw of running) gw.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

function copyOf(name: string): string {
  const path = join(dir, name);
  copyFileSync(healthy, path);
  return path;
}

/** Starts gw on `database` and expects it to refuse: exit 1 and exactly one line on stderr. */
async function refusedStart(database: string): Promise<string> {
  // TMPDIR: the file's folder, removed after it (a gw killed with SIGKILL cannot remove its throwaway folders).
  const gw = await spawnGw({ GW_DATA_DIR: ':memory:', GW_LOG_DUCKDB_PATH: database, TMPDIR: dir });
  running.push(gw);
  expect(await gw.exited).toBe(1);
  const lines = gw.output().trim().split('\n');
  expect(lines).toHaveLength(1);
  return lines[0];
}

describe('a damaged or held request-log database at start-up', () => {
  it('a truncated copy: one line that says it is damaged and how to move it aside, exit 1 (a damaged log database served with 500s)', async () => {
    const truncated = copyOf('truncated.duckdb');
    truncateSync(truncated, 5_000);
    const line = await refusedStart(truncated);
    expect(line).toMatch(new RegExp(`^gw: the request-log database ${truncated} is damaged \\(.+\\): move it aside \\(mv '${truncated}' '${truncated}\\.broken-[0-9-]+'\\) and start again`));
  }, 120_000);

  it('an overwritten header: the same line (a damaged log database served with 500s)', async () => {
    const overwritten = copyOf('overwritten.duckdb');
    const bytes = readFileSync(overwritten);
    bytes.fill(0x41, 0, 4_096);
    writeFileSync(overwritten, bytes);
    expect(await refusedStart(overwritten)).toMatch(/^gw: the request-log database .+ is damaged \(.*not a valid DuckDB database.*\): move it aside/);
  }, 120_000);

  it('a file another process holds: one line naming the holder (a held log database served with 500s)', async () => {
    const held = copyOf('held.duckdb');
    const holder = spawn(process.execPath, ['--input-type=module', '-e', `const { DuckDBInstance } = await import('@duckdb/node-api'); await DuckDBInstance.create(${JSON.stringify(held)}); process.send('held'); setInterval(() => {}, 1000);`], {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    try {
      await new Promise((resolve) => holder.once('message', resolve));
      expect(await refusedStart(held)).toMatch(new RegExp(`^gw: the request-log database ${held} is held by another process \\(.+, PID ${holder.pid}\\): is another gw using it\\? Stop that process first`));
    } finally {
      holder.kill('SIGKILL');
    }
  }, 120_000);
});

describe('a request-log database damaged under a running gw', () => {
  it('the log list answers 503 log_engine_unavailable, and deep health reports it (a failing engine answered 500)', async () => {
    const database = copyOf('running.duckdb');
    const gw = await spawnGw({ GW_DATA_DIR: ':memory:', GW_LOG_DUCKDB_PATH: database, TMPDIR: dir });
    running.push(gw);
    const url = await gw.listening;
    const before = (await getJson(`${url}/health?deep=true`)).body;
    expect(before).toMatchObject({ status: 'ok', checks: { log_engine: { status: 'ok' } } });
    // The file loses everything past its header while gw has it open: the blocks a read needs are gone.
    truncateSync(database, 12_288);
    // (Which reads meet a missing block is DuckDB's business: a list of logs reads every column, so it does.)
    const reply = await getJson<{ error: { code: string; type: string; message: string; param: null } }>(`${url}/v1/logs`);
    expect(reply.status).toBe(503);
    expect(reply.body.error).toMatchObject({ code: 'log_engine_unavailable', type: 'api_error', param: null });
    const health = await getJson<{ status: string; checks: { store: { status: string }; log_engine: { status: string; error: string } } }>(`${url}/health?deep=true`);
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: 'degraded', checks: { store: { status: 'ok' }, log_engine: { status: 'failed', error: expect.stringMatching(/unavailable|Could not read/) } } });
    gw.kill('SIGKILL');
  }, 120_000);
});
