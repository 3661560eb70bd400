/**
 * Issue #48: does writing request logs pause requests? Runs the local gw twice in processes of its own, request
 * logs OFF and ON (the DuckDB worker and the journal), against one mock provider, and drives each with autocannon
 * at 16 connections, alternating OFF/ON rounds so both meet the same machine load. Prints p50/p99 per round and
 * the medians. Run: npx tsx bench/profile/logs-on-off-p99.ts [seconds per round, default 10] [rounds, default 3]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openAIMockHandler } from '../../test/support/mock-openai.js';
import { startMockUpstream } from '../../test/support/mock-upstream.js';

// autocannon ships no types: the little of its result this script reads.
type AutocannonResult = { latency: { p50: number; p99: number }; requests: { average: number }; non2xx: number };
const autocannon = createRequire(import.meta.url)('autocannon') as (options: Record<string, unknown>) => Promise<AutocannonResult>;

const KEY = 'gwk_bench_logs_on_off_0123456789';
const seconds = Number(process.argv[2] ?? 10);
const rounds = Number(process.argv[3] ?? 3);

async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function startGw(logs: 'ON' | 'OFF', dataDir: string): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/main.ts'], {
    env: { ...process.env, PORT: String(port), GW_DATA_DIR: dataDir, GW_BOOTSTRAP_API_KEY: KEY, GW_REQUEST_LOGS: logs, POWERTOOLS_LOG_LEVEL: 'ERROR' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('curl ')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`gw exited ${code}: ${output}`)));
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

async function round(url: string, upstream: string): Promise<{ p50: number; p99: number; rps: number; non2xx: number }> {
  const result = await autocannon({
    url: `${url}/v1/chat/completions`,
    method: 'POST',
    connections: 16,
    duration: seconds,
    headers: { 'content-type': 'application/json', 'x-gw-api-key': KEY, 'x-gw-provider': 'openai', 'x-gw-custom-host': upstream, authorization: 'Bearer sk-bench' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello' }] }),
  });
  return { p50: result.latency.p50, p99: result.latency.p99, rps: result.requests.average, non2xx: result.non2xx };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
  const upstream = await startMockUpstream(openAIMockHandler());
  const folder = mkdtempSync(join(tmpdir(), 'gw-logs-on-off-'));
  const gws = { OFF: await startGw('OFF', join(folder, 'off')), ON: await startGw('ON', join(folder, 'on')) };
  const results: Record<'OFF' | 'ON', Array<Awaited<ReturnType<typeof round>>>> = { OFF: [], ON: [] };
  try {
    // A short warm-up of each (JIT, pools, the log engine's first flushes), not counted.
    for (const logs of ['OFF', 'ON'] as const) await autocannon({ url: `${gws[logs].url}/health`, connections: 4, duration: 2 });
    for (let index = 0; index < rounds; index++) {
      for (const logs of ['OFF', 'ON'] as const) {
        const measured = await round(gws[logs].url, upstream.url);
        results[logs].push(measured);
        console.log(`round ${index + 1} logs ${logs}: p50 ${measured.p50} ms, p99 ${measured.p99} ms, ${Math.round(measured.rps)} req/s, non-2xx ${measured.non2xx}`);
      }
    }
    const off = median(results.OFF.map((result) => result.p99));
    const on = median(results.ON.map((result) => result.p99));
    console.log(`median p99: logs OFF ${off} ms, logs ON ${on} ms (${(((on - off) / off) * 100).toFixed(1)} %)`);
  } finally {
    for (const gw of Object.values(gws)) gw.child.kill('SIGTERM');
    await upstream.close();
    rmSync(folder, { recursive: true, force: true });
  }
}

void main();
