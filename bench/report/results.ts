import type { LoadResult } from '../measure/load.js';
import type { ConnectionReuse } from '../phases/connection-reuse.js';
import type { Percentiles } from '../measure/stats.js';
import type { MockMode } from '../mock/payloads.js';
import type { ProfileSummary } from '../profile/summarize.js';

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
  /** TCP connections the mock saw opened during the series, by all paths together (keep-alive: a handful). */
  upstreamConnections?: number;
}

export interface ThroughputRow {
  upstream: MockMode;
  connections: number;
  direct: LoadResult;
  gw: LoadResult;
  /** gw requests/s divided by direct requests/s. */
  ratio: number;
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
  bytes: number;
  gzipBytes: number;
  /** The size budget `npm run build` holds this bundle to (infra/cdk/bundle-options.ts), when it printed one. */
  budgetKiB?: number;
  runs: number;
  /** `await import()` of the bundle in a fresh node process, timed inside that process. */
  importMs: { median: number; min: number; max: number };
  /** Spawn to exit of that process: node's own start-up plus the import. */
  processMs: { median: number };
}

export interface ProcessStats {
  cpuMicrosPerRequestSequential?: number;
  rssAfterStartBytes?: number;
  rssAfterLatencyBytes?: number;
  rssAtEndBytes?: number;
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

export interface RunMeta {
  date: string;
  plan: 'full' | 'quick';
  phases: string[];
  machine: { cpu: string; logicalCpus: number; memoryBytes: number; os: string; node: string };
  loadAverage: { start: number[]; end: number[] };
  commit?: string;
  gw: { command: string; settings: Record<string, string>; extraSettings: Record<string, string> };
  tenant?: string;
  durationSeconds: number;
}

export interface BenchResults {
  meta: RunMeta;
  latency: LatencyRow[];
  connectionReuse?: ConnectionReuse;
  throughput: ThroughputRow[];
  process: ProcessStats;
  features: FeatureRow[];
  coldStart: { built: boolean; freshness?: string; buildComplaint?: string; rows: ColdStartRow[]; profiles?: Record<string, ProfileSummary> };
  /** The gw process's CPU profile (`--cpu-prof`). */
  profile?: ProfileSummary;
  targets: TargetRow[];
  errors: string[];
  notes: string[];
}
