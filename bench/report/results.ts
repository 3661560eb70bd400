import type { LoadResult } from '../measure/load.js';
import type { ConnectionReuse } from '../phases/connection-reuse.js';
import type { Percentiles } from '../measure/stats.js';
import type { MockMode } from '../mock/payloads.js';
import type { MeasuredNode } from '../node/measured-node.js';
import type { ProfileSummary } from '../profile/summarize.js';
import type { SoakResult } from '../phases/soak.js';

/** Everything one run measured: written as bench/results/<name>.json and rendered as the Markdown table. */

export interface AddedMs {
  p50: number;
  p90: number;
  p99: number;
}

export interface LatencyRow {
  name: string;
  metric: 'first byte' | 'last byte';
  samples: number;
  truncated: boolean;
  direct: Percentiles;
  gw: Percentiles;
  added: AddedMs;
  /** The minimal Node proxy on the same requests, and what it adds over direct: the floor for any extra hop. */
  proxy?: Percentiles;
  proxyAdded?: AddedMs;
  /** Portkey's open-source gateway on the same requests, and what it adds over direct (issue #34's comparison). */
  portkey?: Percentiles;
  portkeyAdded?: AddedMs;
  /** TCP connections the mock saw opened during the series, by all paths together (keep-alive: a handful). */
  upstreamConnections?: number;
}

export interface ThroughputRow {
  upstream: MockMode;
  connections: number;
  direct: LoadResult;
  gw: LoadResult;
  /** The minimal reference proxy under the same load (its own CPU metered): the floor of any Node hop. */
  proxy?: LoadResult;
  /** Portkey's open-source gateway under the same load (its process's CPU metered). */
  portkey?: LoadResult;
  /** gw requests/s divided by direct requests/s. */
  ratio: number;
}

/** A throughput run of gw with features on every request (issue #34's "one policy, a saved config and a cache lookup"). */
export interface FeatureLoadRow {
  name: string;
  /** Every request a cache hit (the same body), or a miss (a unique body each). */
  cache: 'hit' | 'miss';
  connections: number;
  gw: LoadResult;
  /** Chat calls the mock received over the variant's probe, warm-up and measured runs (0 for hits). */
  upstreamCalls: number;
}

export interface FeatureRow {
  name: string;
  status: 'measured' | 'not yet available' | 'error';
  reason?: string;
  note?: string;
  samples?: number;
  direct?: Percentiles;
  plainGw?: Percentiles;
  feature?: Percentiles;
  addedVsDirect?: AddedMs;
  addedVsPlainGw?: AddedMs;
}

export interface ColdStartRow {
  bundle: string;
  file: string;
  /** The entry file (index.mjs). */
  bytes: number;
  gzipBytes: number;
  /** Every file the function ships (source maps left out): entry, lazily loaded siblings, data files. */
  totalBytes?: number;
  /** Of those, the bytes a cold import loads (traced with a module load hook); undefined when the trace failed. */
  loadedBytes?: number;
  files?: Array<{ file: string; bytes: number; loadedOnImport?: boolean }>;
  /** The size budget `npm run build` holds this bundle to (infra/cdk/bundle-options.ts), when it printed one. */
  budgetKiB?: number;
  runs: number;
  /** `await import()` of the bundle in a fresh node process, timed inside that process. */
  importMs: { median: number; min: number; max: number };
  /** Spawn to exit of that process: node's own start-up plus the import. */
  processMs: { median: number };
}

/** One scenario of the AWS-shaped phase: gw against a store that answers each call `storeLatencyMs` later. */
export interface AwsShapedRow {
  scenario: string;
  status: 'measured' | 'not yet available' | 'error';
  reason?: string;
  /** Issue #23: store round trips before the first response byte, at most this many. */
  goal: number;
  samples?: number;
  /** Store calls made and answered between sending the request and its first response byte. */
  roundTrips?: { median: number; max: number };
  /** The longest chain of those calls that ran one after another (what the request had to wait for in sequence). */
  depth?: { median: number; max: number };
  /** Calls per request before the first byte, by operation (mean over the samples). */
  operations?: Record<string, number>;
  /** Calls per request that arrived before the first byte but were answered after it (not waited for; mean). */
  unansweredAtFirstByte?: number;
  /** gw (whole answer) minus direct to the mock, each measured after the same idle, per percentile, ms (issue #34). */
  addedVsDirect?: { p50: number; p95: number };
  /** The minimal proxy minus direct, measured as gw is (the floor of any extra Node hop after an idle). */
  proxyAddedVsDirect?: { p50: number; p95: number };
  /** gw minus a direct request sent right after the unmeasured one, everything awake: the measure before issue #34. */
  addedVsHotDirect?: { p50: number; p95: number };
  /** Direct p50 after the idle and right after the unmeasured request: the difference is the cost of waking up. */
  directP50?: { afterIdle: number; hot: number };
  /** The highest round-trip count seen is within the goal. */
  met?: boolean;
  /** Per measured request: its store calls as ms offsets from sending it, and its first byte (JSON only). */
  timelines?: string[];
}

export interface AwsShapedResult {
  storeLatencyMs: number;
  /** The auth, policy and virtual-key cache TTLs of the gw measuring the expiry row (short, so that expiry can be waited for). */
  cacheTtlMs: number;
  /** The auth and policy cache TTLs of the gw measuring the warm rows (the virtual-key cache's at most 60 s): longer than those rows take. */
  warmCacheTtlMs?: number;
  /** Store calls gw made while it started (tables ensured, bootstrap): 0 means it did not use the proxy. */
  bootstrapCalls: number;
  /** The idle before each measured request: nothing in flight and no store call for this long, ms. */
  quietMs?: number;
  /** Plain requests each gw served before its rows were measured (the "fresh process" row comes before them). */
  warmupRequests?: number;
  rows: AwsShapedRow[];
}

/** One size of the semantic-cache scale run (bench/phases/semantic-scale.ts). */
export interface SemanticScaleRow {
  entries: number;
  lookupBytes: number;
  roundTrips: number;
  p50Ms: number;
  p95Ms: number;
  recall: number;
}

export interface ProcessStats {
  cpuMicrosPerRequestSequential?: number;
  rssAfterStartBytes?: number;
  rssAfterLatencyBytes?: number;
  rssAtEndBytes?: number;
  /** gw and its child processes (the embedded store runs in one), summed. */
  treeRssAfterStartBytes?: number;
  treeRssAtEndBytes?: number;
  childrenRssAtEndBytes?: number;
  peakRssBytes?: number;
  logLines: number;
  requestCompletedLines: number;
  /** gw's answers other than 200 over the whole run, from its log (`<status> <error_code>`). */
  failedRequests?: Record<string, number>;
  logErrorLines: number;
}

export interface TargetRow {
  target: string;
  measured: string;
  status: 'met' | 'missed' | 'n/a';
}

/** One goal of issue #23: met, or how far from it. */
export interface GoalRow {
  goal: string;
  measured: string;
  status: 'met' | 'missed' | 'n/a';
  distance?: string;
}

export interface RunMeta {
  date: string;
  plan: 'full' | 'quick';
  phases: string[];
  /** `node`: the harness's Node (see `runtime` for the measured processes'). */
  machine: { cpu: string; logicalCpus: number; memoryBytes: number; os: string; node: string };
  /** The Node of the measured processes (`--node`) and of the harness; absent in results from before `--node`. */
  runtime?: { measured: MeasuredNode; harness: { version: string; path: string } };
  loadAverage: { start: number[]; end: number[] };
  commit?: string;
  gw: { command: string; settings: Record<string, string>; extraSettings: Record<string, string> };
  tenant?: string;
  durationSeconds: number;
}

/** Whether Portkey ran beside gw, how, or why not (absent in results from before it did). */
export interface PortkeyRun {
  version: string;
  /** Its command line and defaults, as measured. */
  settings: string;
  /** Why it was not measured: `--no-portkey`, offline, an install or start failure, a route check that failed. */
  unavailable?: string;
}

export interface BenchResults {
  meta: RunMeta;
  portkey?: PortkeyRun;
  latency: LatencyRow[];
  connectionReuse?: ConnectionReuse;
  throughput: ThroughputRow[];
  /** gw under the same load with one policy, a saved config and a cache lookup on every request (absent in older results). */
  throughputFeatures?: FeatureLoadRow[];
  process: ProcessStats;
  features: FeatureRow[];
  soak?: SoakResult;
  awsShaped?: AwsShapedResult;
  semanticScale?: SemanticScaleRow[] | { unavailable: string };
  coldStart: { built: boolean; freshness?: string; buildComplaint?: string; rows: ColdStartRow[]; profiles?: Record<string, ProfileSummary> };
  /** The gw process's CPU profile (`--cpu-prof`). */
  profile?: ProfileSummary;
  targets: TargetRow[];
  issue23: GoalRow[];
  /** Issue #34's CPU goals (absent in older results). */
  issue34?: GoalRow[];
  /** Issue #48's goals (absent in older results). */
  issue48?: GoalRow[];
  errors: string[];
  notes: string[];
}
