import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsole } from '../../scripts/build-console.js';
import { watchGwStartup } from '../support/local-process.js';

const scratch = mkdtempSync(join(tmpdir(), 'gw-startup-errors-'));
const consoleDir = join(scratch, 'console');
// The console every gw below serves, built once before the cases, which then run side by side (each waits on gw
// processes of its own).
beforeAll(() => buildConsole(consoleDir), 120_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** `npm start`'s command with `env` over a quiet default environment. */
function startGw(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/main.ts'], {
    env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT', GW_CONSOLE_DIR: consoleDir, PORT: '0', GW_DATA_DIR: ':memory:', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { child, ...watchGwStartup(child) };
}

/** Start-up fails with exit 1 and says so in exactly one line, with no stack trace. */
async function expectOneLineFailure(env: Record<string, string>): Promise<string> {
  const started = startGw(env);
  expect(await started.exited).toBe(1);
  const lines = started.output().trim().split('\n');
  expect(lines, started.output()).toHaveLength(1);
  expect(lines[0]).toMatch(/^gw: /);
  return lines[0];
}

describe.concurrent('start-up errors of the local gw: one clear line, no stack', () => {
  it('a HOST that is no address', async () => {
    expect(await expectOneLineFailure({ HOST: '999.1.1.1' })).toContain('cannot listen on HOST=999.1.1.1');
  }, 120_000);

  it('an invalid POWERTOOLS_LOG_LEVEL (no longer accepted silently)', async () => {
    expect(await expectOneLineFailure({ POWERTOOLS_LOG_LEVEL: 'LOUD' })).toContain('POWERTOOLS_LOG_LEVEL');
  }, 120_000);

  it.each(['child', 'in-process'])('a data directory another gw holds (GW_LOCAL_STORE=%s)', async (mode) => {
    const dataDir = join(scratch, `data-${mode}`);
    const first = startGw({ GW_DATA_DIR: dataDir, GW_LOCAL_STORE: mode });
    try {
      await first.listening;
      // The running one started quietly too: no AWS SDK Node-version notice on the supported path.
      expect(first.output()).not.toContain('NodeVersionSupportWarning');
      expect(await expectOneLineFailure({ GW_DATA_DIR: dataDir, GW_LOCAL_STORE: mode })).toContain(`is another gw using ${dataDir}?`);
    } finally {
      first.child.kill('SIGTERM');
      await first.exited;
    }
  }, 120_000);
});
