import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { GwProcess } from '../../support/gw-process.js';
import { rowsOfStoppedLogFile } from '../../support/request-logs.js';

// What the request-log crash and full-disk files (issue #42) share: waiting for a condition, reading the journal
// and a stopped gw's DuckDB file, and stopping gw cleanly.

/** Polls `check` every 50 ms until it holds; fails with `what` after 60 s (a condition, not a timing assertion). */
export async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  const giveUpAt = Date.now() + 60_000;
  while (!(await check())) {
    if (Date.now() > giveUpAt) throw new Error(`gave up waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Trace ids of the records in the journal's files (one JSON line per record). */
export function journaledTraceIds(journal: string): Set<string> {
  const ids = new Set<string>();
  let names: string[];
  try {
    names = readdirSync(journal);
  } catch {
    return ids;
  }
  for (const name of names) {
    for (const line of readFileSync(join(journal, name), 'utf8').split('\n')) {
      const id = /"trace_id":"([^"]+)"/.exec(line)?.[1];
      if (id) ids.add(id);
    }
  }
  return ids;
}

/** Count and distinct trace ids of the requests rows whose trace id starts with `prefix`, read from a stopped gw's file. */
export async function recordsInFile(path: string, prefix: string): Promise<{ rows: number; distinct: number }> {
  const [row] = await rowsOfStoppedLogFile(path, 'SELECT count(*) AS n, count(DISTINCT trace_id) AS d FROM requests WHERE starts_with(trace_id, ?)', [prefix]);
  return { rows: Number(row.n), distinct: Number(row.d) };
}

export type DeepHealth = { status: string; checks: { log_engine?: { status: string; pending_bytes: number; pending_in_memory: number; dropped_records: number; error?: string; last_run?: { replayed: number; lost: number } } } };

/** SIGTERM: gw drains, writes what it holds and exits 0. */
export async function stop(gw: GwProcess): Promise<void> {
  gw.kill('SIGTERM');
  expect(await gw.exited).toBe(0);
}
