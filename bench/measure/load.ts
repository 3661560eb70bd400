import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { ChildRegistry } from '../processes/children.js';
import { childEnvironment } from '../processes/launch.js';
import type { ProbeRequest } from './http-probe.js';
import { TreeCpuMeter } from './proc-tree.js';

export interface LoadOptions {
  connections: number;
  /** Roughly how long the measured run lasts (see runLoad). */
  durationSeconds: number;
  /** A separate, unmeasured run first, so JIT and connection pools are warm when measuring starts. */
  warmupSeconds: number;
  /** autocannon replaces `[<id>]` in the body with a unique id per request (every body differs: cache misses). */
  idReplacement?: boolean;
}

export interface LoadResult {
  connections: number;
  /** How long the measured run took. */
  durationSeconds: number;
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  completed2xx: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Answers per HTTP status. */
  statusCounts: Record<string, number>;
  /** CPU of the metered process and its children (gw and its store process, or the mock) per completed request, µs. */
  cpuMicrosPerRequest?: number;
  /** The metered process alone, without its children. */
  cpuMicrosPerRequestMain?: number;
}

/** The fields of autocannon's `--json` output the harness uses. */
interface AutocannonJson {
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  '2xx': number;
  statusCodeStats?: Record<string, { count: number }>;
  /** Seconds. */
  duration: number;
}

function autocannonCli(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('autocannon/package.json')), 'autocannon.js');
}

const MIN_REQUESTS_PER_CONNECTION = 5;
const MAX_REQUESTS = 2_000_000;

/**
 * Closed-loop load with autocannon, in its own process; the metered process's CPU is read around it.
 * Runs are sized by request count, not by time: the warm-up (also by count) gives the rate, and the measured run
 * asks for rate × duration requests. A time-boxed run would cut its last requests off mid-flight, and what the
 * server does with abandoned requests is not what this measures.
 */
export async function runLoad(registry: ChildRegistry, root: string, probe: ProbeRequest, options: LoadOptions, meteredPid: number | undefined): Promise<LoadResult> {
  const floor = options.connections * MIN_REQUESTS_PER_CONNECTION;
  const sized = (rate: number, seconds: number) => Math.round(Math.min(MAX_REQUESTS, Math.max(floor, rate * seconds)));
  // A small probe gives a first rate; the warm-up, sized from it, warms JIT and pools and gives the real rate.
  const run = (amount: number, seconds: number) => autocannon(registry, root, probe, options.connections, amount, seconds, options.idReplacement === true);
  const probeRun = await run(floor, options.warmupSeconds);
  const warm = await run(sized(rateOf(probeRun), options.warmupSeconds), options.warmupSeconds);
  for (const run of [probeRun, warm]) {
    if (run.non2xx > 0 || run.errors > 0 || run.timeouts > 0) {
      throw new Error(`warm-up of ${probe.url.href} at ${options.connections} connections: ${run.non2xx} non-2xx (${JSON.stringify(run.statusCodeStats ?? {})}), ${run.errors} errors, ${run.timeouts} timeouts`);
    }
  }
  const meter = new TreeCpuMeter(meteredPid);
  const result = await run(sized(rateOf(warm), options.durationSeconds), options.durationSeconds);
  return {
    connections: options.connections,
    durationSeconds: result.duration,
    requestsPerSecond: rateOf(result),
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    completed2xx: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCounts: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([status, { count }]) => [status, count])),
    ...cpuPerRequest(meter.perUnitMicros(result['2xx'])),
  };
}

function cpuPerRequest(cpu: { tree?: number; main?: number }): Pick<LoadResult, 'cpuMicrosPerRequest' | 'cpuMicrosPerRequestMain'> {
  return { cpuMicrosPerRequest: cpu.tree, cpuMicrosPerRequestMain: cpu.main };
}

function rateOf(run: AutocannonJson): number {
  return run['2xx'] / Math.max(run.duration, 0.001);
}

async function autocannon(registry: ChildRegistry, root: string, probe: ProbeRequest, connections: number, amount: number, expectedSeconds: number, idReplacement: boolean): Promise<AutocannonJson> {
  const headerArgs = Object.entries(probe.headers).flatMap(([name, value]) => ['-H', `${name}=${value}`]);
  const { exit, stdout, stderr } = await registry.run(
    {
      name: `autocannon ${connections}c ${probe.url.href}`,
      // The load generator is a tool of the harness, not what is measured.
      runtime: 'harness',
      nodeArgs: [
        autocannonCli(),
        '--connections', String(connections),
        '--amount', String(amount),
        // Samples every 10 ms: a run ends at the first sample after its last answer, so `duration` is exact to 10 ms
        // (with the default 1 s a short run would look up to a second longer than it was).
        '-L', '10',
        '--timeout', '10',
        '--method', probe.method ?? 'POST',
        ...headerArgs,
        ...(probe.body ? ['--body', probe.body.toString('utf8')] : []),
        ...(idReplacement ? ['--idReplacement'] : []),
        '--json',
        probe.url.href,
      ],
      cwd: root,
      env: childEnvironment({}),
    },
    // Generous: a run sized from the warm-up rate lasts about expectedSeconds unless the server slows down.
    (expectedSeconds * 5 + 30) * 1000,
  );
  if (exit.code !== 0) throw new Error(`autocannon failed (code ${exit.code}): ${stderr.slice(-2000)}`);
  const line = stdout.trim().split('\n').filter((candidate) => candidate.startsWith('{')).pop();
  if (!line) throw new Error(`autocannon printed no JSON result: ${stdout.slice(-500)} ${stderr.slice(-500)}`);
  return JSON.parse(line) as AutocannonJson;
}
