import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { watchGwStartup } from '../support/local-process.js';

const scratch = mkdtempSync(join(tmpdir(), 'gw-first-start-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** `npm start`'s command (package.json: node --import tsx infra/local/main.ts), from a fresh clone's point of view. */
function startGw(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/main.ts'], { env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT', GW_BOOTSTRAP_API_KEY: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  return { child, ...watchGwStartup(child) };
}

describe('the first start of the local gw', () => {
  it('a busy port does not lose the admin key: the next start shows it, with the console address, and /console works', async () => {
    const dataDir = join(scratch, 'data');
    // A fresh clone: no console build yet.
    const consoleDir = join(scratch, 'console-build');
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', () => resolve()));
    const busyPort = (blocker.address() as { port: number }).port;
    try {
      const refused = startGw({ PORT: String(busyPort), GW_DATA_DIR: dataDir, GW_CONSOLE_DIR: consoleDir });
      expect(await refused.exited).toBe(1);
      expect(refused.output()).toContain(`port ${busyPort} on 127.0.0.1 is already in use`);
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }

    const started = startGw({ PORT: '0', GW_DATA_DIR: dataDir, GW_CONSOLE_DIR: consoleDir });
    try {
      const url = await started.listening;
      const key = /export GW_API_KEY=(gwk_\S+)/.exec(started.output())?.[1];
      expect(started.output()).toContain('admin API key (shown once, store it now)');
      expect(key).toBeDefined();
      const keys = await fetch(`${url}/v1/api-keys`, { headers: { 'x-gw-api-key': key! } });
      expect(keys.status).toBe(200);

      expect(started.output()).toContain(`console:   ${url}/console`);
      expect(existsSync(join(consoleDir, 'index.html'))).toBe(true);
      const page = await fetch(`${url}/console`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toContain('text/html');
    } finally {
      started.child.kill('SIGTERM');
      await started.exited;
    }
  }, 180_000);
});
