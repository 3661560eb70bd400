import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchGwStartup } from '../support/local-process.js';
import { openAIMockHandler } from '../support/mock-openai.js';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.js';

let upstream: MockUpstream;
const dataDir = mkdtempSync(join(tmpdir(), 'gw-local-'));

beforeAll(async () => {
  upstream = await startMockUpstream(openAIMockHandler());
});
afterAll(async () => {
  await upstream?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

interface Started {
  child: ChildProcessWithoutNullStreams;
  url: string;
  output: () => string;
}

/** Runs `npm start`'s entry point as a user would, and waits for it to listen. */
async function startProcess(env: Record<string, string>): Promise<Started> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/main.ts'], {
    env: { ...process.env, PORT: '0', POWERTOOLS_LOG_LEVEL: 'SILENT', ...env },
  });
  const watched = watchGwStartup(child);
  return { child, url: await watched.listening, output: watched.output };
}

async function stop(started: Started): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => started.child.once('exit', (code) => resolve(code)));
  started.child.kill('SIGINT');
  return exited;
}

describe('npm start (infra/local/main.ts)', { timeout: 120_000 }, () => {
  it('prints a generated admin key once, serves it, persists it, and shuts down cleanly on Ctrl-C', async () => {
    const first = await startProcess({ GW_DATA_DIR: dataDir, GW_BOOTSTRAP_API_KEY: '' });
    const key = /admin API key \(shown once, store it now\): (gwk_\S+)/.exec(first.output())?.[1];
    expect(key).toBeDefined();
    expect(first.output()).toContain(`export GW_API_KEY=${key}`);
    expect(first.output()).toContain(`-H "x-gw-api-key: $GW_API_KEY"`);
    const response = await fetch(`${first.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'x-gw-api-key': key!, 'x-gw-provider': 'openai', 'x-gw-custom-host': upstream.url, authorization: 'Bearer sk-x' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] }),
    });
    expect(response.status).toBe(200);
    expect(await stop(first)).toBe(0);

    const second = await startProcess({ GW_DATA_DIR: dataDir, GW_BOOTSTRAP_API_KEY: '' });
    expect(second.output()).not.toContain('shown once');
    expect(second.output()).toContain('npm run cli -- keys create-admin');
    const again = await fetch(`${second.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'x-gw-api-key': key!, 'x-gw-provider': 'openai', 'x-gw-custom-host': upstream.url },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] }),
    });
    expect(again.status).toBe(200);
    expect(await stop(second)).toBe(0);
  });

  it('uses GW_BOOTSTRAP_API_KEY as the admin key with an in-memory store', async () => {
    const started = await startProcess({ GW_DATA_DIR: ':memory:', GW_BOOTSTRAP_API_KEY: 'gwk_scripted_key' });
    expect(started.output()).not.toContain('shown once');
    expect(started.output()).toContain('-H "x-gw-api-key: $GW_API_KEY"');
    const response = await fetch(`${started.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'x-gw-api-key': 'gwk_scripted_key', 'x-gw-provider': 'openai', 'x-gw-custom-host': upstream.url },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] }),
    });
    expect(response.status).toBe(200);
    expect(await stop(started)).toBe(0);
  });

  it('refuses to start with an invalid setting and names it', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/main.ts'], {
      env: { ...process.env, PORT: '0', GW_DATA_DIR: ':memory:', GW_DEFAULT_REQUEST_TIMEOUT_MS: 'forever' },
    });
    let output = '';
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(output).toContain('GW_DEFAULT_REQUEST_TIMEOUT_MS');
  });
});
