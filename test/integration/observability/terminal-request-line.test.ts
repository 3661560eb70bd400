import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatPrettyRequestLine } from '../../../shared/observability/pretty-request-line.js';
import { watchGwStartup } from '../../support/local-process.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import { startMockUpstream, type MockUpstream } from '../../support/mock-upstream.js';

/**
 * The local terminal: one short human line per request under GW_LOG_FORMAT=pretty (what `npm start` picks on a
 * terminal), no JSON request line and no CloudWatch EMF blobs; JSON and EMF only when asked (GW_LOG_FORMAT=json,
 * what a pipe gets). The real entry point of `npm start` runs as a child process, its stdout read as a person sees it.
 */
const KEY = 'gwk_terminal_line_key_0123456789';
let upstream: MockUpstream;
beforeAll(async () => {
  upstream = await startMockUpstream(openAIMockHandler());
});
afterAll(async () => {
  await upstream?.close();
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Starts the local gw with `format`, sends one chat request through the mock, stops it; returns its output. */
async function runOneRequest(format: 'pretty' | 'json'): Promise<string> {
  const port = await freePort();
  const env = { ...process.env, POWERTOOLS_LOG_LEVEL: 'INFO', PORT: String(port), GW_DATA_DIR: ':memory:', GW_BOOTSTRAP_API_KEY: KEY, GW_LOG_FORMAT: format };
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/main.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const started = watchGwStartup(child);
  const url = await started.listening;
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gw-api-key': KEY, 'x-gw-provider': 'openai', 'x-gw-custom-host': upstream.url, authorization: 'Bearer sk-x' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] }),
  });
  expect(response.status).toBe(200);
  await response.text();
  child.kill('SIGTERM');
  expect(await started.exited).toBe(0);
  return started.output();
}

describe('the per-request console line', () => {
  it('log format (pretty): one human line per request, no JSON request line, no EMF metric blobs', async () => {
    const output = await runOneRequest('pretty');
    const lines = output.split('\n').filter((line) => line.includes('/v1/chat/completions') && !line.includes('curl'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d {2}POST \/v1\/chat\/completions +200 {2}openai\/gpt-4o-mini\S* {2}\d+ ms {2}\d+→\d+ tok/);
    expect(output).not.toContain('"message":"request completed"');
    expect(output).not.toContain('"_aws"');
  }, 120_000);

  it('log format (json): the JSON request line and the EMF metrics, as on Lambda', async () => {
    const output = await runOneRequest('json');
    expect(output).toContain('"message":"request completed"');
    expect(output).toContain('"_aws"');
  }, 120_000);

  it('formats failures with gw’s error code, and leaves out what is unknown', () => {
    const at = new Date(2026, 10, 28, 9, 5, 7).getTime();
    expect(formatPrettyRequestLine(at, { method: 'POST', path: '/v1/messages', status: 429, error_code: 'rate_limit_exceeded', latency_ms: 2.6 })).toBe(
      `09:05:07  ${'POST /v1/messages'.padEnd(32)}  429  rate_limit_exceeded  3 ms\n`,
    );
    expect(formatPrettyRequestLine(at, { method: 'POST', path: '/v1/chat/completions', status: 200, provider: 'openai', model: 'gpt-4o', latency_ms: 412, prompt_tokens: 25, completion_tokens: 15, cost_usd: 0.000123 })).toBe(
      `09:05:07  ${'POST /v1/chat/completions'.padEnd(32)}  200  openai/gpt-4o  412 ms  25→15 tok  $0.000123\n`,
    );
  });
});
