import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startTestGateway } from '../support/gateway.js';

/**
 * An in-memory gw (`dataDir: ':memory:'`, what the tests and a throwaway local run use) makes folders of its own in
 * the temporary folder: secrets, the charge journal, blobs, DuckDB's spill and the request-log journal. They went
 * only with the process's 'exit' event, which a process stopped by a signal never has (vitest stops its workers with
 * SIGTERM): every run left one of each in /tmp, thousands over a day. Now closing the server removes them.
 */
describe('the local runtime in memory and its temporary folders', () => {
  it('removes every folder it made for itself when it closes (temporary folders leaked)', { timeout: 60_000 }, async () => {
    const gateway = await startTestGateway();
    const own = (name: string) => name.startsWith(`gw-duckdb-spill-${process.pid}`) || name.startsWith(`gw-log-journal-${process.pid}-`);
    const made = [process.env.GW_LOCAL_SECRET_DIR!, process.env.GW_CHARGE_JOURNAL_DIR!, process.env.GW_BLOB_DIR!, ...readdirSync(tmpdir()).filter(own).map((name) => join(tmpdir(), name))];
    expect(made.length).toBeGreaterThanOrEqual(4);
    for (const folder of made) expect(folder.startsWith(tmpdir()), folder).toBe(true);
    expect(made.filter((folder) => !existsSync(folder))).toEqual([]);

    await gateway.close();

    expect(made.filter((folder) => existsSync(folder))).toEqual([]);
  });
});
