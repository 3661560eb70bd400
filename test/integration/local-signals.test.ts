import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchGwStartup } from '../support/local-process.js';
import { openAIMockHandler } from '../support/mock-openai.js';
import { sleep, startMockUpstream, type MockUpstream } from '../support/mock-upstream.js';

const KEY = 'gwk_signal_test_key_0123456789ab';
let upstream: MockUpstream;
let release: () => void = () => undefined;
const dataDirs: string[] = [];

beforeAll(async () => {
  const answer = openAIMockHandler();
  // Each stream sends two chunks, then waits for the test to let it finish: the signal arrives mid-stream.
  upstream = await startMockUpstream(async (request) => ({ ...(await answer(request)), holdAfter: { count: 2, until: new Promise<void>((resolve) => (release = resolve)) } }));
});
afterAll(async () => {
  release();
  await upstream?.close();
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** `npm start` as a terminal (or systemd) runs it: the leader of its own process group. */
function npmStartInOwnGroup(env: Record<string, string>) {
  const child = spawn('npm', ['start'], { detached: true, env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  return { child, ...watchGwStartup(child) };
}

describe.each(['SIGINT', 'SIGTERM'] as const)('%s to the whole process group of npm start', (signal) => {
  it('is one signal, not two: the stream in flight finishes, its log is kept, everything exits 0', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gw-signal-'));
    dataDirs.push(dataDir);
    const env = { PORT: String(await freePort()), GW_DATA_DIR: dataDir, GW_BOOTSTRAP_API_KEY: KEY };
    const started = npmStartInOwnGroup(env);
    const url = await started.listening;
    const traceId = `group-${signal.toLowerCase()}`;
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'x-gw-api-key': KEY, 'x-gw-provider': 'openai', 'x-gw-custom-host': upstream.url, authorization: 'Bearer sk-x', 'x-gw-trace-id': traceId },
      body: JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'Hi' }] }),
    });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    let text = new TextDecoder().decode((await reader.read()).value);

    // Every process of the group gets the signal (npm, and gw directly), and npm relays it to gw once more.
    process.kill(-started.child.pid!, signal);
    // Long past the relayed copies: were one of them taken as a second signal, gw would be gone by now.
    await sleep(1_500);
    release();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += new TextDecoder().decode(chunk.value);
    expect(text.trim().endsWith('data: [DONE]')).toBe(true);
    expect(await started.exited).toBe(0);
    expect(started.output()).toContain(`${signal}: shutting down`);
    expect(started.output()).not.toContain('exiting now');
    expect(started.output()).toContain('gw stopped cleanly');

    // The stream's log record was flushed before the store closed: the next start finds it.
    const again = spawn(process.execPath, ['--import', 'tsx', 'infra/local/main.ts'], { env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const restarted = watchGwStartup(again);
    try {
      const logs = await fetch(`${await restarted.listening}/v1/logs?trace_id=${traceId}`, { headers: { 'x-gw-api-key': KEY } });
      expect(logs.status).toBe(200);
      expect(((await logs.json()) as { data: Array<{ trace_id: string; status: number }> }).data).toMatchObject([{ trace_id: traceId, status: 200 }]);
    } finally {
      again.kill('SIGTERM');
      await restarted.exited;
    }
  }, 180_000);
});
