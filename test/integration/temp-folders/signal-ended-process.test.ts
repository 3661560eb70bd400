import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * Temporary-folder leaks of a process ended by a signal: gw made folders for itself in TMPDIR (an in-memory gw's
 * secrets and charge journal, its log engine's spill and journal, the export folder used when blobs go to S3) and
 * removed them at 'exit' or when it closed, but a process ended by SIGTERM or SIGINT (a test worker, a script
 * embedding gw) does neither: each such process left them behind (shared/throwaway-folders.ts).
 */
const KEY = 'gwk_temp_folders_test_key_0123456789';
const folders: string[] = [];

afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** A TMPDIR of the test's own (tsx's compile cache linked in, as test/support/gw-process.ts does). */
function ownTmpdir(): string {
  const path = mkdtempSync(join(tmpdir(), 'signal-ended-'));
  folders.push(path);
  const cache = `tsx-${process.getuid?.() ?? 0}`;
  mkdirSync(join(tmpdir(), cache), { recursive: true });
  symlinkSync(join(tmpdir(), cache), join(path, cache));
  return path;
}

const gwFolders = (path: string) => readdirSync(path).filter((name) => name.startsWith('gw-'));

async function exportDone(url: string): Promise<void> {
  const headers = { 'x-gw-api-key': KEY, 'content-type': 'application/json' };
  const created = await fetch(`${url}/v1/exports`, { method: 'POST', headers, body: JSON.stringify({ metadata: { run: 'temp-folders' } }) });
  const { id } = (await created.json()) as { id: string };
  expect(created.status).toBe(202);
  // DuckDB's COPY runs on its own threads: the job is read until it has finished.
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const job = (await (await fetch(`${url}/v1/exports/${id}`, { headers })).json()) as { status: string };
    if (job.status === 'completed') return;
    expect(job.status).not.toBe('failed');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`export ${id} did not finish`);
}

describe('temporary-folder leaks of a process ended by a signal', () => {
  // SIGTERM is what vitest stops its workers with; SIGINT and SIGHUP take the same path (one start costs ~10 s).
  it('an in-memory gw ended by SIGTERM leaves no gw-* folder in its TMPDIR', async () => {
    const signal = 'SIGTERM';
    const folder = ownTmpdir();
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/integration/temp-folders/embedded-gw.ts'], {
      env: { ...process.env, TMPDIR: folder, GW_TEST_KEY: KEY, GW_LOCAL_STORE: 'in-process' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const ended = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, by) => resolve(by)));
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const match = /embedded gw at (\S+)/.exec(output);
        if (match) resolve(match[1]);
      });
      void ended.then(() => reject(new Error(`the embedded gw ended before it listened:\n${output}`)));
    });

    await exportDone(url);
    // What it made: the in-memory store's folders, the log engine's, and the export folder (blobs in S3).
    expect(gwFolders(folder).map((name) => name.replace(/-[^-]*$/, '').replace(/-\d+$/, '')).sort()).toEqual(
      ['gw-duckdb-spill', 'gw-exports', 'gw-journal', 'gw-log-journal', 'gw-secrets'].sort(),
    );
    child.kill(signal);
    expect(await ended).toBe(signal);
    expect(gwFolders(folder)).toEqual([]);
  }, 60_000);
});
