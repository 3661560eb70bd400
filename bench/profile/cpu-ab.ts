/**
 * gw's CPU per request, A against B, interleaved: `npx tsx bench/profile/cpu-ab.ts --variant A=<dir> --variant B=<dir>
 * [--rounds 5] [--seconds 4] [--node <path>] [--cpu-prof <dir>] [--gw-env NAME=VALUE] [--request plain|hit]`.
 *
 * Each variant is a checkout of gw (a worktree, or `git archive <commit> | tar -x -C <dir>` with a `node_modules`
 * link beside it). Its infra/local/main.ts is compiled ahead (bench/processes/compile-gw.ts) and started as the bench
 * starts gw (in-memory store as a child process, request logs on, INFO logs), all variants at once; then every round
 * runs the bench's load (bench/measure/load.ts: autocannon, 16 connections, the plain JSON chat of the throughput
 * phase, a warm-up first) against each variant in turn, the order rotating every round, so drift from other load
 * on the machine falls on all of them alike. CPU is read from /proc over the measured run (the bench's measure):
 * gw's own process, and gw with its store process. Prints each round and the medians with their spread. The minimal
 * proxy (bench/mock/reference-proxy.ts) is measured the same way in every round: its CPU per request is the scale
 * of how much the machine's load inflates everyone's (77 µs on a quiet machine on 2026-11-27).
 * `--threads` prints each round's CPU split by thread (thread-cpu.ts: the event loop, the DuckDB log worker and
 * DuckDB's own threads, libuv, V8), the kernel's count rather than a profile's wall-clock samples.
 * `--request hit` measures the features row instead of the plain one: one matching rate-limit policy, a saved config
 * and a simple-cache hit (bench/phases/throughput-features.ts sets them up in each gw and proves the hit).
 * A tool for A/B investigations on a shared machine, not part of `npm run bench`.
 */
import { join, resolve } from 'node:path';
import { ChildRegistry } from '../processes/children.js';
import { compileGwForProfiling } from '../processes/compile-gw.js';
import { BENCH_ADMIN_KEY, startGw, startMock, startReferenceProxy, type GwProcess } from '../processes/launch.js';
import { runLoad, type LoadResult } from '../measure/load.js';
import { createBenchWorkspaceAndKey } from '../scenarios/tenant.js';
import { gwChat, proxyChat } from '../scenarios/requests.js';
import { setUpFeatureLoad } from '../phases/throughput-features.js';
import type { ProbeRequest } from '../measure/http-probe.js';
import { threadCpuMs, threadCpuPerRequest } from './thread-cpu.js';

const ROOT = resolve(import.meta.dirname, '..', '..');

function options(argv: string[]) {
  const values = (name: string) => argv.flatMap((arg, index) => (arg === name ? [argv[index + 1]!] : []));
  const variants = values('--variant').map((spec) => {
    const [name, rest] = [spec.slice(0, spec.indexOf('=')), spec.slice(spec.indexOf('=') + 1)];
    const [dir, ...settings] = rest.split(',');
    if (!name || !dir) throw new Error(`--variant NAME=DIR[,SETTING=VALUE…], not ${spec}`);
    return { name, dir: resolve(dir), env: Object.fromEntries(settings.map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)])) };
  });
  if (variants.length === 0) throw new Error('name at least one --variant NAME=DIR');
  const request = values('--request')[0] ?? 'plain';
  if (request !== 'plain' && request !== 'hit') throw new Error(`--request plain|hit, not ${request}`);
  const extraEnv = Object.fromEntries(values('--gw-env').map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
  return {
    variants,
    rounds: Number(values('--rounds')[0] ?? 5),
    seconds: Number(values('--seconds')[0] ?? 4),
    node: values('--node')[0] ?? process.execPath,
    cpuProfileDir: values('--cpu-prof')[0],
    extraEnv,
    threads: argv.includes('--threads'),
    request,
  };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const threadShares = (threads: Array<[string, number]>) => {
  const total = threads.reduce((sum, [, micros]) => sum + micros, 0);
  return threads.map(([name, micros]) => `${name} ${((100 * micros) / total).toFixed(1)} %`).join(', ');
};
const round = (value: number | undefined) => (value === undefined ? 'n/a' : Math.round(value).toLocaleString('en'));

async function main(): Promise<void> {
  const opts = options(process.argv.slice(2));
  const registry = new ChildRegistry(opts.node);
  const stop = () => void registry.stopAll(3_000).finally(() => process.exit(130));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  process.once('exit', () => registry.killAllNow());
  try {
    const mock = await startMock(registry, ROOT);
    const proxy = await startReferenceProxy(registry, ROOT, mock.url);
    const gws: Array<{ name: string; gw: GwProcess; key: string; probe: ProbeRequest }> = [];
      const compiled = new Map<string, string>();
    for (const variant of opts.variants) {
      if (!compiled.has(variant.dir)) compiled.set(variant.dir, await compileGwForProfiling(registry, variant.dir, join(variant.dir, '.cpu-ab')));
      const compiledEntry = compiled.get(variant.dir)!;
      const cpuProfileDir = opts.cpuProfileDir ? join(resolve(opts.cpuProfileDir), variant.name) : undefined;
      const gw = await startGw(registry, variant.dir, { compiledEntry, name: `gw ${variant.name}`, extraEnv: { ...opts.extraEnv, ...variant.env }, cpuProfileDir });
      const tenant = await createBenchWorkspaceAndKey(gw.url, BENCH_ADMIN_KEY);
      const endpoints = { gwUrl: gw.url, mockUrl: mock.url, gwKey: tenant.apiKey };
      const probe = opts.request === 'hit'
        ? (await setUpFeatureLoad({ endpoints, mock }, tenant, BENCH_ADMIN_KEY))[0]!.request
        : gwChat(endpoints, 'fast', false);
      gws.push({ name: variant.name, gw, key: tenant.apiKey, probe });
    }
    const results = new Map<string, LoadResult[]>([...gws.map(({ name }): [string, LoadResult[]] => [name, []]), ['proxy', []]]);
    const targets = [...gws.map(({ name, gw, probe }) => ({ name, pid: gw.child.pid, probe }))];
    targets.push({ name: 'proxy', pid: proxy.child.pid, probe: proxyChat({ gwUrl: '', mockUrl: mock.url, gwKey: '', proxyUrl: proxy.url }, 'fast', false) });
    for (let roundIndex = 0; roundIndex < opts.rounds; roundIndex++) {
      const order = targets.map((_, index) => targets[(index + roundIndex) % targets.length]!);
      for (const { name, pid, probe } of order) {
        const threadsBefore = threadCpuMs(pid);
        const result = await runLoad(registry, ROOT, probe, { connections: 16, durationSeconds: opts.seconds, warmupSeconds: 1 }, pid);
        // Over the warm-up and the measured run together, so per request only roughly: read it as shares.
        const threads = threadCpuPerRequest(threadsBefore, threadCpuMs(pid), result.completed2xx);
        registry.assertAlive();
        if (result.non2xx > 0 || result.errors > 0) throw new Error(`${name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
        results.get(name)!.push(result);
        console.log(`round ${roundIndex + 1} ${name.padEnd(8)} ${round(result.requestsPerSecond).padStart(6)} req/s  gw ${round(result.cpuMicrosPerRequestMain).padStart(6)} µs/req  with store ${round(result.cpuMicrosPerRequest).padStart(6)} µs/req`);
        if (opts.threads) console.log(`  threads (shares of the process's CPU, warm-up included): ${threadShares(threads)}`);
      }
    }
    console.log(`\nmedians over ${opts.rounds} rounds (min–max), Node ${opts.node}`);
    for (const [name, runs] of results) {
      const main = runs.map((run) => run.cpuMicrosPerRequestMain ?? NaN);
      const tree = runs.map((run) => run.cpuMicrosPerRequest ?? NaN);
      const rate = runs.map((run) => run.requestsPerSecond);
      console.log(
        `${name.padEnd(8)} gw ${round(median(main))} µs/req (${round(Math.min(...main))}–${round(Math.max(...main))}); with store ${round(median(tree))} (${round(Math.min(...tree))}–${round(Math.max(...tree))}); ${round(median(rate))} req/s`,
      );
    }
  } finally {
    await registry.stopAll(10_000);
  }
}

await main();
