/**
 * Memory per request in flight (issue #44: how many invocations one managed-instances environment may hold):
 * `npx tsx bench/profile/inflight-memory.ts [--in-flight 512] [--wait-ms 10000] [--node <path>]`.
 *
 * Starts gw as the bench does (bench/processes/launch.ts) and a provider stand-in that answers after `--wait-ms`,
 * warms gw with short requests, then holds `--in-flight` chat completions open at once and samples gw's resident
 * memory (/proc VmRSS) while they wait: (peak − baseline) ÷ requests in flight is what each one holds. The local
 * server edge stands in for Lambda's runtime interface client, which keeps its own small per-invocation buffers
 * beside it. A measure for the cost model's sizing, not part of `npm run bench`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ChildRegistry } from '../processes/children.js';
import { BENCH_ADMIN_KEY, startGw } from '../processes/launch.js';
import { createBenchWorkspaceAndKey } from '../scenarios/tenant.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const argument = (name: string, fallback: number) => {
  const index = process.argv.indexOf(name);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
};
const IN_FLIGHT = argument('--in-flight', 512);
const WAIT_MS = argument('--wait-ms', 10_000);

const answer = JSON.stringify({
  id: 'chatcmpl-inflight',
  object: 'chat.completion',
  created: 0,
  model: 'gpt-4o-mini',
  choices: [{ index: 0, message: { role: 'assistant', content: 'x'.repeat(3_000) }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 9, completion_tokens: 12, total_tokens: 21 },
});
let waiting = 0;
const provider = createServer((request: IncomingMessage, response: ServerResponse) => {
  request.resume();
  request.on('end', () => {
    const slow = request.url?.startsWith('/slow') === true;
    if (slow) waiting++;
    setTimeout(
      () => {
        if (slow) waiting--;
        response.writeHead(200, { 'content-type': 'application/json' }).end(answer);
      },
      slow ? WAIT_MS : 0,
    );
  });
});
await new Promise<void>((ready) => provider.listen(0, '127.0.0.1', ready));
const providerUrl = `http://127.0.0.1:${(provider.address() as { port: number }).port}`;

const registry = new ChildRegistry();
const residentMiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
try {
  // As the stack sets it on managed instances: one connection per request in flight (gw-stack.ts).
  const gw = await startGw(registry, ROOT, { extraEnv: { GW_UPSTREAM_MAX_SOCKETS_PER_ORIGIN: String(Math.max(256, IN_FLIGHT)) } });
  const { apiKey } = await createBenchWorkspaceAndKey(gw.url, BENCH_ADMIN_KEY);
  const call = (path: 'fast' | 'slow') =>
    fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gw-api-key': apiKey, 'x-gw-provider': 'openai', 'x-gw-custom-host': `${providerUrl}/${path}`, authorization: 'Bearer sk-inflight' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi '.repeat(300) }] }),
    }).then(async (response) => {
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`gw answered ${response.status}`);
    });
  // Warm: every module, pool and cache a request touches is loaded before the baseline.
  for (let round = 0; round < 10; round++) await Promise.all(Array.from({ length: 64 }, () => call('fast')));
  await new Promise((settle) => setTimeout(settle, 2_000));
  const pid = gw.child.pid!;
  const baseline = residentMiB(pid);
  const held = Array.from({ length: IN_FLIGHT }, () => call('slow'));
  let peak = baseline;
  let inFlightSeen = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, residentMiB(pid));
    inFlightSeen = Math.max(inFlightSeen, waiting);
  }, 50);
  await Promise.all(held);
  clearInterval(sampler);
  const perRequestKiB = ((peak - baseline) * 1024) / IN_FLIGHT;
  console.log(JSON.stringify({ inFlight: IN_FLIGHT, reachedProvider: inFlightSeen, waitMs: WAIT_MS, baselineMiB: Math.round(baseline), peakMiB: Math.round(peak), perRequestKiB: Math.round(perRequestKiB) }));
} finally {
  await registry.stopAll();
  provider.close();
}
