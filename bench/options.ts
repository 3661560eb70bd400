import { MAX_SEMANTIC_CANDIDATES } from '../shared/gateway/cache/cache-store.js';
import type { MockMode } from './mock/payloads.js';
import { parseNodeChoice, type NodeChoice } from './node/measured-node.js';

export const PHASES = ['cold-start', 'latency', 'features', 'throughput', 'soak', 'aws-shaped', 'semantic-scale'] as const;
export type Phase = (typeof PHASES)[number];

export interface LatencySeriesPlan {
  warmup: number;
  count: number;
}

/** The AWS-shaped phase (bench/phases/aws-shaped.ts): measured requests per scenario, and the waits between them. */
export interface AwsShapedPlan {
  /** Measured requests per warm scenario. */
  samples: number;
  /** Measured requests of the "first after the TTLs expired" scenario (each waits past the TTL). */
  expiredSamples: number;
  /** gw's auth, policy and virtual-key cache TTLs in this phase. */
  cacheTtlMs: number;
  /** How long the store must have seen no call before a measured request (above gw's 500 ms rollup delay). */
  quietMs: number;
  /**
   * Plain requests each gw serves before its rows are measured, so that its code is compiled as in the latency
   * phase (300 warm-up requests there): a fresh process runs its first requests ~1.4× slower (issue #34).
   */
  warmupRequests: number;
}

/** How much work each phase does: `full` for the README table, `quick` for CI (seconds, not minutes). */
export interface BenchPlan {
  name: 'full' | 'quick';
  latency: { json: LatencySeriesPlan; stream: LatencySeriesPlan; delayed: LatencySeriesPlan; deadlineMs: number; connectionReuseRequests: number };
  load: { durationSeconds: number; warmupSeconds: number; runs: ReadonlyArray<{ upstream: MockMode; connections: number }> };
  features: LatencySeriesPlan & { deadlineMs: number; semanticPartitionEntries: number; setupDeadlineMs: number };
  coldStart: { runs: number };
  /** The reliability soak of issue #21 (bench/phases/soak.ts). */
  soak: { requests: number; connections: number };
  awsShaped: AwsShapedPlan;
  /** Cache sizes of the semantic-cache scale run (bench/phases/semantic-scale.ts). */
  semanticScale: { sizes: number[] };
}

export const FULL_PLAN: BenchPlan = {
  name: 'full',
  latency: { json: { warmup: 300, count: 3000 }, stream: { warmup: 200, count: 2000 }, delayed: { warmup: 20, count: 500 }, deadlineMs: 45_000, connectionReuseRequests: 100 },
  load: {
    durationSeconds: 10,
    warmupSeconds: 2,
    runs: [
      { upstream: 'fast', connections: 1 },
      { upstream: 'fast', connections: 16 },
      { upstream: 'fast', connections: 64 },
      { upstream: 'delayed', connections: 64 },
    ],
  },
  // A full semantic partition holds as many vectors as gw keeps per partition; each lookup compares against all.
  features: { warmup: 50, count: 800, deadlineMs: 30_000, semanticPartitionEntries: MAX_SEMANTIC_CANDIDATES, setupDeadlineMs: 30_000 },
  coldStart: { runs: 7 },
  soak: { requests: 60_000, connections: 16 },
  awsShaped: { samples: 12, expiredSamples: 6, cacheTtlMs: 5_000, quietMs: 600, warmupRequests: 300 },
  semanticScale: { sizes: [1_000, 10_000, 100_000] },
};

export const QUICK_PLAN: BenchPlan = {
  name: 'quick',
  latency: { json: { warmup: 30, count: 200 }, stream: { warmup: 20, count: 100 }, delayed: { warmup: 5, count: 30 }, deadlineMs: 10_000, connectionReuseRequests: 20 },
  load: { durationSeconds: 2, warmupSeconds: 1, runs: [{ upstream: 'fast', connections: 16 }] },
  features: { warmup: 5, count: 50, deadlineMs: 10_000, semanticPartitionEntries: 20, setupDeadlineMs: 10_000 },
  coldStart: { runs: 2 },
  soak: { requests: 1_500, connections: 16 },
  awsShaped: { samples: 3, expiredSamples: 2, cacheTtlMs: 5_000, quietMs: 600, warmupRequests: 30 },
  // No 100,000-entry partition in CI: filling it takes minutes.
  semanticScale: { sizes: [1_000] },
};

export interface BenchOptions {
  plan: BenchPlan;
  phases: ReadonlySet<Phase>;
  /** Run `npm run build` first (default) or measure dist/ as it is. */
  build: boolean;
  /** Write a V8 CPU profile of gw and summarise its hot spots. */
  cpuProfile: boolean;
  /** Extra gw settings, for investigations; the report lists them. */
  gwEnv: Record<string, string>;
  /** Only the hot-path scenarios whose name contains this (for a profile of one feature). */
  scenarioFilter?: string;
  /** What the AWS-shaped phase's store proxy adds to every store call, ms. */
  storeLatencyMs: number;
  /** Which Node runs the measured processes (bench/node/measured-node.ts); the harness stays on its own. */
  node: NodeChoice;
  /** Run Portkey's open-source gateway beside gw in the latency and throughput phases (bench/processes/portkey.ts). */
  portkey: boolean;
  outDir: string;
}

export const USAGE = `npm run bench [-- options]

  --quick              small counts, one connection level: a smoke run (CI); fails only on errors
  --phases a,b         run only some of: ${PHASES.join(', ')} (results go to <out>/partial.*)
  --no-build           measure dist/ as it is instead of running npm run build first
  --cpu-prof           profile the gw process (node --cpu-prof) and print its hot spots
  --gw-env NAME=VALUE  extra gw setting for an investigation (repeatable; listed in the report)
  --scenario TEXT      only the hot-path scenarios whose name contains TEXT (e.g. semantic)
  --store-latency-ms N latency the aws-shaped phase adds to every store call (default 5)
  --soak-requests N    requests of the soak (default 60000; a longer soak shows whether a slope levels off)
  --load-seconds N     length of each throughput load run (the quick plan's 2 s is short for a CPU comparison)
  --node WHICH         Node of the measured processes: lambda (default: the Lambda runtime's major, fetched from
                       the npm registry once and cached), current (the harness's own) or a path to a node binary
  --no-portkey         leave out Portkey's gateway (installed once from npm, measured beside gw in latency and throughput)
  --out DIR            where results go (default bench/results)
  --help`;

export class UsageError extends Error {}

export function parseOptions(argv: readonly string[]): BenchOptions {
  const options: BenchOptions = { plan: FULL_PLAN, phases: new Set(PHASES), build: true, cpuProfile: false, gwEnv: {}, storeLatencyMs: 5, node: { kind: 'lambda' }, portkey: true, outDir: 'bench/results' };
  let soakRequests: number | undefined;
  let loadSeconds: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const next = argv[++i];
      if (next === undefined) throw new UsageError(`${arg} needs a value`);
      return next;
    };
    switch (arg) {
      case '--quick':
        options.plan = QUICK_PLAN;
        break;
      case '--phases': {
        const wanted = value().split(',').map((name) => name.trim());
        const unknown = wanted.filter((name) => !(PHASES as readonly string[]).includes(name));
        if (unknown.length > 0) throw new UsageError(`unknown phase(s): ${unknown.join(', ')}; known: ${PHASES.join(', ')}`);
        options.phases = new Set(wanted as Phase[]);
        break;
      }
      case '--no-build':
        options.build = false;
        break;
      case '--no-portkey':
        options.portkey = false;
        break;
      case '--cpu-prof':
        options.cpuProfile = true;
        break;
      case '--gw-env': {
        const setting = value();
        const equals = setting.indexOf('=');
        if (equals <= 0) throw new UsageError(`--gw-env takes NAME=VALUE (got ${JSON.stringify(setting)})`);
        options.gwEnv[setting.slice(0, equals)] = setting.slice(equals + 1);
        break;
      }
      case '--scenario':
        options.scenarioFilter = value();
        break;
      case '--store-latency-ms': {
        const raw = value();
        const latency = Number(raw);
        if (!/^\d+(\.\d+)?$/.test(raw) || latency > 1_000) throw new UsageError(`--store-latency-ms takes a number of ms from 0 to 1000 (got ${JSON.stringify(raw)})`);
        options.storeLatencyMs = latency;
        break;
      }
      case '--soak-requests': {
        const raw = value();
        if (!/^\d+$/.test(raw) || Number(raw) < 100) throw new UsageError(`--soak-requests takes a whole number of at least 100 (got ${JSON.stringify(raw)})`);
        soakRequests = Number(raw);
        break;
      }
      case '--load-seconds': {
        const raw = value();
        if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > 600) throw new UsageError(`--load-seconds takes a whole number from 1 to 600 (got ${JSON.stringify(raw)})`);
        loadSeconds = Number(raw);
        break;
      }
      case '--node': {
        const raw = value();
        if (raw.trim() === '' || raw.startsWith('--')) throw new UsageError(`--node takes lambda, current or the path of a node binary (got ${JSON.stringify(raw)})`);
        options.node = parseNodeChoice(raw);
        break;
      }
      case '--out':
        options.outDir = value();
        break;
      case '--help':
      case '-h':
        throw new UsageError(USAGE);
      default:
        throw new UsageError(`unknown option ${JSON.stringify(arg)}\n\n${USAGE}`);
    }
  }
  if (soakRequests !== undefined) options.plan = { ...options.plan, soak: { ...options.plan.soak, requests: soakRequests } };
  if (loadSeconds !== undefined) options.plan = { ...options.plan, load: { ...options.plan.load, durationSeconds: loadSeconds } };
  return options;
}

/** Which file name the results get: the README table comes only from a complete, full run on the Lambda's Node. */
export function resultName(options: BenchOptions): string {
  if (options.plan.name === 'quick') return 'quick';
  if (options.phases.size < PHASES.length || Object.keys(options.gwEnv).length > 0 || options.scenarioFilter !== undefined || options.storeLatencyMs !== 5 || options.plan.soak.requests !== FULL_PLAN.soak.requests || options.plan.load.durationSeconds !== FULL_PLAN.load.durationSeconds || options.node.kind !== 'lambda' || !options.portkey) return 'partial';
  return 'latest';
}
