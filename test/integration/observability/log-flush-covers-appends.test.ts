import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDuckDbLogEngine, type DuckDbLogEngine } from '../../../shared/observability/engine/duckdb/engine.js';
import { logRecord } from './log-engine-support.js';

// A CI run counted 196 of 200 requests right after a drain: the worker's flush joined a write pass that was already
// running, and that pass had read the journal before the last records were appended. A flush must cover every record
// appended before it was asked for (a flush that joins a pass in flight), whatever pass is running when it arrives.
// One round per pass makes every pass end while records keep coming, as the bound of 16 rounds did under load.

let engines: DuckDbLogEngine;
let folder: string;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'gw-flush-covers-'));
  engines = await openDuckDbLogEngine({ path: ':memory:', spillDirectory: join(folder, 'spill'), memoryLimit: '128MB', retentionMs: 3_650 * 86_400_000, retentionIntervalMs: 0, journalDirectory: join(folder, 'journal'), journalMaxBytes: 1 << 30, memoryRecords: 1_000, roundsPerPass: 1 });
});
afterAll(async () => {
  await engines?.sink.close();
  rmSync(folder, { recursive: true, force: true });
});

async function countOf(run: string): Promise<number> {
  const { rows } = await engines.engine.query({ sql: 'SELECT count(*) AS n FROM requests WHERE workspace_id = ?', params: [run] });
  return Number(rows[0].n);
}

describe('a flush of the DuckDB request log', () => {
  it('has written every record appended before it, even when it arrives while a pass is running (a flush that joins a pass in flight)', async () => {
    const created = new Date().toISOString();
    for (let round = 0; round < 10; round++) {
      const run = `ws-round-${round}`;
      const earlier: Array<Promise<void>> = [];
      // Records trickle in while flushes are asked for, as under 200 concurrent requests' after-paths.
      for (let index = 0; index < 300; index++) {
        engines.sink.appendRecord!(logRecord({ id: `${run}-${index}`, created_at: created, workspace_id: run }));
        earlier.push(engines.sink.flush());
        await new Promise((resolve) => setImmediate(resolve));
      }
      await engines.sink.flush();
      expect(await countOf(run), run).toBe(300);
      await Promise.all(earlier);
    }
  });
});
