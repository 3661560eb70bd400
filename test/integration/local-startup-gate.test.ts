import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchGwStartup } from '../support/local-process.js';
import { startUnansweredListener, type UnansweredListener } from '../support/unanswered-listener.js';

/**
 * Issue #42, a clean start. gw used to listen before its bootstrap was done (requests in that window got 401) and
 * installed its signal handlers only after start-up (a signal during it killed the process). Now it listens first
 * behind a ready gate and handles SIGINT/SIGTERM from its first line.
 */
const scratch = mkdtempSync(join(tmpdir(), 'gw-startup-gate-'));
const KEY = 'gwk_startup_gate_key_0123456789';
let hangingStore: UnansweredListener;

beforeAll(async () => {
  hangingStore = await startUnansweredListener();
});
afterAll(async () => {
  await hangingStore?.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** `npm start`'s command (package.json: node --import tsx infra/local/main.ts). */
function startGw(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/main.ts'], { env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  return { child, ...watchGwStartup(child) };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Resolves once something accepts connections on the port (gw listens); rejects if gw exits first. */
async function accepting(port: number, exited: Promise<unknown>): Promise<void> {
  let gone = false;
  void exited.then(() => (gone = true));
  for (;;) {
    if (gone) throw new Error('gw exited before it listened');
    const ok = await fetch(`http://127.0.0.1:${port}/health`).then(
      () => true,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('a clean start of the local gw', () => {
  it('a request before gw is ready waits and gets 503 with retry-after (not a 401); SIGTERM during start-up stops it cleanly', async () => {
    const port = await freePort();
    // A store that never answers: start-up stays in its "create the tables" phase.
    const started = startGw({ PORT: String(port), GW_DATA_DIR: join(scratch, 'hanging'), GW_DYNAMODB_ENDPOINT: `http://127.0.0.1:${hangingStore.port}`, GW_BOOTSTRAP_API_KEY: KEY, GW_LOCAL_READY_WAIT_MS: '500' });
    try {
      await accepting(port, started.exited);
      const early = await fetch(`http://127.0.0.1:${port}/v1/api-keys`, { headers: { 'x-gw-api-key': KEY } });
      expect(early.status).toBe(503);
      expect(early.headers.get('retry-after')).toBe('1');
      expect(await early.json()).toMatchObject({ error: { code: 'not_ready', type: 'api_error' } });

      started.child.kill('SIGTERM');
      expect(await started.exited).toBe(0);
      expect(started.output()).toContain('SIGTERM: stopping during start-up');
      expect(started.output()).toContain('gw stopped during start-up');
    } finally {
      started.child.kill('SIGKILL');
    }
  }, 120_000);

  it('requests from the first moment gw listens are never answered 401: they wait for the bootstrap', async () => {
    const port = await freePort();
    const started = startGw({ PORT: String(port), GW_DATA_DIR: join(scratch, 'fresh'), GW_BOOTSTRAP_API_KEY: KEY });
    const statuses: number[] = [];
    try {
      let gone = false;
      void started.exited.then(() => (gone = true));
      // Ask again and again from before gw listens until it answers 200: every answer on the way is recorded.
      for (;;) {
        if (gone) throw new Error(`gw exited:\n${started.output()}`);
        const status = await fetch(`http://127.0.0.1:${port}/v1/api-keys`, { headers: { 'x-gw-api-key': KEY } }).then(
          (response) => response.status,
          () => 0,
        );
        if (status !== 0) statuses.push(status);
        if (status === 200) break;
        if (status === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      }
      expect(statuses.filter((status) => status !== 200 && status !== 503)).toEqual([]);
      await started.listening;
    } finally {
      started.child.kill('SIGTERM');
      expect(await started.exited).toBe(0);
    }
  }, 120_000);
});
