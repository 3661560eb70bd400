import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildFunctions } from '../scripts/build.js';
import { openAIDialectsMockHandler } from '../test/support/mock-openai-dialects.js';
import { startMockUpstream } from '../test/support/mock-upstream.js';
import { deployStack } from '../test/aws-shaped/support/deployed-stack.js';
import { median, percentile } from './measure/stats.js';
import { runOnMeasuredNode } from './node/run-on-measured-node.js';

/**
 * Which memory size for the gateway function (issue #33): its BUILT bundle, under the AWS-shaped harness
 * (test/aws-shaped/), confined to the CPU share Lambda gives each size (1 vCPU at 1,769 MB, proportionally below) by
 * a cgroup (v1 `cpu.cfs_quota_us`; needs root), measured for:
 * - cold start: the bundle's import in a fresh process inside the cgroup (median of COLD_RUNS);
 * - CPU per request and gw's own duration (p50, p99) of REQUESTS sequential warm chat completions (one request per
 *   sandbox at a time, as Lambda runs them), against a mock provider that answers at once, so duration is gw's;
 * - cost per million requests at 2 s and 10 s model latency: GB × (latency + gw's mean duration) × the arm64 price,
 *   plus the request price.
 * `npx tsx bench/memory-choice.ts [--node lambda|current|PATH]` prints a Markdown table (docs/deploy.md, "Sizing", has
 * the figures). It measures on the Lambda runtime's Node by default, as `npm run bench` does: the gateway sandboxes
 * are forks of this script, so the whole script runs again on that Node (bench/node/run-on-measured-node.ts).
 */
const SIZES_MB = [256, 512, 1024];
const VCPU_AT_MB = 1769;
const COLD_RUNS = 7;
const REQUESTS = Number(process.env.REQUESTS ?? 300);
const PRICE_GB_SECOND = 0.0000133334; // arm64, us-east-1
const PRICE_REQUEST = 0.2 / 1e6;
const ADMIN_KEY = 'gwk_memory_choice_admin_key_0123456789abcdef';
const CGROUP_ROOT = '/sys/fs/cgroup/cpu';

function cgroupFor(mb: number): string {
  const directory = join(CGROUP_ROOT, `gw-memory-choice-${mb}-${process.pid}`);
  mkdirSync(directory, { recursive: true });
  writeFileSync(join(directory, 'cpu.cfs_period_us'), '100000');
  writeFileSync(join(directory, 'cpu.cfs_quota_us'), String(Math.round((100_000 * mb) / VCPU_AT_MB)));
  return directory;
}

/** The bundle's import in a fresh Node process that joins the cgroup first. */
function coldImportMs(cgroup: string, bundle: string): number {
  const script = `
    import { writeFileSync } from 'node:fs';
    writeFileSync(${JSON.stringify(join(cgroup, 'cgroup.procs'))}, String(process.pid));
    globalThis.awslambda = { streamifyResponse: (fn) => fn, HttpResponseStream: { from: (stream) => stream } };
    const started = performance.now();
    await import(${JSON.stringify(pathToFileURL(bundle).href)});
    process.stdout.write(String(performance.now() - started));`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    env: { PATH: process.env.PATH, AWS_REGION: 'us-east-1', POWERTOOLS_LOG_LEVEL: 'SILENT', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(result.stderr);
  return Number(result.stdout);
}

const onNode = await runOnMeasuredNode(fileURLToPath(import.meta.url), process.argv.slice(2), resolve(dirname(fileURLToPath(import.meta.url)), '..'));

// The operator's own credentials for the bootstrap (the stand-in store checks none).
process.env.AWS_ACCESS_KEY_ID ??= 'operator';
process.env.AWS_SECRET_ACCESS_KEY ??= 'operator';
process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const bundles = mkdtempSync(join(tmpdir(), 'gw-memory-choice-'));
const cgroups: string[] = [];
const upstream = await startMockUpstream(openAIDialectsMockHandler());
// Every function: the stand-in stack starts a sandbox for each one the function table lists (a fixed list here missed compact-request-logs).
await buildFunctions(bundles);
const stack = await deployStack(bundles);
try {
  const { bootstrapOrganisation } = await import('../shared/control-plane/bootstrap.js');
  await bootstrapOrganisation(ADMIN_KEY);
  const headers = { 'x-gw-api-key': ADMIN_KEY, 'x-gw-provider': 'openai', 'x-gw-custom-host': upstream.url, authorization: 'Bearer sk-memory-choice' };
  const chat = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] };
  const rows: string[] = [];
  for (const mb of SIZES_MB) {
    const cgroup = cgroupFor(mb);
    cgroups.push(cgroup);
    const cold = median(Array.from({ length: COLD_RUNS }, () => coldImportMs(cgroup, join(bundles, 'gateway', 'index.mjs'))));
    writeFileSync(join(cgroup, 'cgroup.procs'), String(stack.pids.gateway));
    const durations: number[] = [];
    const cpu: number[] = [];
    let rss = 0;
    for (let i = 0; i < REQUESTS + 20; i++) {
      const response = await stack.request('POST', '/prod/v1/chat/completions', { headers, body: chat });
      if (response.status !== 200) throw new Error(`${response.status} ${response.body}`);
      if (i < 20) continue; // warm-up
      durations.push(response.sandbox!.durationMs!);
      cpu.push(response.sandbox!.cpuMs!);
      rss = Math.max(rss, response.sandbox!.maxRssKiB!);
    }
    const mean = durations.reduce((sum, value) => sum + value, 0) / durations.length;
    const cost = (latencyS: number) => ((mb / 1024) * (latencyS + mean / 1000) * PRICE_GB_SECOND + PRICE_REQUEST) * 1e6;
    rows.push(
      `| ${mb} MB | ${((mb / VCPU_AT_MB) * 100).toFixed(0)} % | ${cold.toFixed(0)} ms | ${median(cpu).toFixed(1)} ms | ${median(durations).toFixed(1)} ms | ${percentile(durations, 99).toFixed(1)} ms | ${(rss / 1024).toFixed(0)} MB | $${cost(2).toFixed(2)} | $${cost(10).toFixed(2)} |`,
    );
  }
  writeFileSync(join(CGROUP_ROOT, 'cgroup.procs'), String(stack.pids.gateway));
  console.log(`gateway bundle on Node ${onNode.version}, ${REQUESTS} sequential warm chat completions per size (mock provider answering at once)\n`);
  console.log('| memory | vCPU share | cold import (median) | CPU per request (median) | gw duration p50 | gw duration p99 | peak RSS | cost per million at 2 s | at 10 s |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const row of rows) console.log(row);
} finally {
  await stack.close();
  await upstream.close();
  for (const cgroup of cgroups) rmdirSync(cgroup);
  rmSync(bundles, { recursive: true, force: true });
}
