import { treeMemory, type TreeMemory } from '../measure/proc-tree.js';
import { keepAliveAgent, timedRequest } from '../measure/http-probe.js';
import { gwChat } from '../scenarios/requests.js';
import type { PhaseContext } from './context.js';

/** The soak of issue #21: many requests at a fixed concurrency, then what was lost. */
export interface SoakResult {
  requests: number;
  connections: number;
  seconds: number;
  statusCounts: Record<string, number>;
  /** Answers with status ≥ 500, and requests that got no answer at all. */
  fiveXx: number;
  transportErrors: number;
  /** Requests answered but whose after-path (charge, then log) never completed: gw's "request completed" lines. */
  lostLogs: number;
  /** Charges gw could neither write nor journal (it logs each at error level). */
  lostCharges: number;
  rssStartBytes?: number;
  rssEndBytes?: number;
  /** RSS of gw and its children (the store process), sampled every 1/RSS_SAMPLES of the way. */
  rssSamples: RssSample[];
  /** Least-squares slope of the tree's RSS over the second half of the samples, KiB per 1,000 requests. */
  secondHalfSlopeKiBPer1k?: number;
  /** The same for gw's own process and for its children (which one grows). */
  secondHalfSlopeMainKiBPer1k?: number;
  secondHalfSlopeChildrenKiBPer1k?: number;
  /** The slope is at most FLAT_SLOPE_KIB_PER_1K (with at least 4 samples in the second half). */
  flat?: boolean;
}

export interface RssSample {
  /** Requests started when the sample was taken. */
  requests: number;
  seconds: number;
  totalBytes: number;
  mainBytes: number;
  childrenBytes: number;
}

const RSS_SAMPLES = 40;
/**
 * "Flat": the tree's RSS grows by at most 200 KiB per 1,000 requests over the second half of the soak (≈ 6 MiB over
 * the last 30,000 of 60,000): above the noise of V8's heap sizing, far below the 70–100 KiB *per request* that a
 * leaking request log once cost. The full run soaks 60,000 requests because gw's heap floor settles only after
 * some 20,000: a 30,000-request soak judges warm-up (bench/README.md, "Soak").
 */
export const FLAT_SLOPE_KIB_PER_1K = 200;
/** Below this many requests (the quick run's soak) the slope is reported without a verdict. */
export const MIN_REQUESTS_TO_JUDGE = 10_000;

/**
 * `connections` closed loops share `requests` chat completions through gw against the fast mock. Afterwards it
 * waits for gw's after-path to catch up (up to 30 s), then compares: every answered request must have logged
 * "request completed" (which happens after its charge), and no charge may have been lost.
 */
export async function measureSoak(context: PhaseContext, plan: { requests: number; connections: number }): Promise<SoakResult> {
  const probe = gwChat(context.endpoints, 'fast', false);
  const completedBefore = context.gw.logs.requestCompleted;
  const unjournaledBefore = context.gw.logs.unjournaledCharges;
  const statusCounts: Record<string, number> = {};
  const rssSamples: RssSample[] = [];
  let next = 0;
  let answered = 0;
  let transportErrors = 0;
  const rssStartBytes = treeMemory(context.gw.child.pid)?.totalRssBytes;
  const sampleEvery = Math.max(1, Math.floor(plan.requests / RSS_SAMPLES));
  const started = performance.now();
  const sample = (requests: number, memory: TreeMemory | undefined) => {
    if (memory) rssSamples.push({ requests, seconds: (performance.now() - started) / 1000, totalBytes: memory.totalRssBytes, mainBytes: memory.mainRssBytes, childrenBytes: memory.childrenRssBytes });
  };
  await Promise.all(
    Array.from({ length: plan.connections }, async () => {
      const agent = keepAliveAgent();
      try {
        while (next < plan.requests) {
          const index = next++;
          try {
            const response = await timedRequest(agent, probe, 30_000);
            statusCounts[response.status] = (statusCounts[response.status] ?? 0) + 1;
            answered++;
          } catch {
            transportErrors++;
          }
          if (index % sampleEvery === 0) sample(index, treeMemory(context.gw.child.pid));
        }
      } finally {
        agent.destroy();
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  sample(plan.requests, treeMemory(context.gw.child.pid));
  const giveUpAt = Date.now() + 30_000;
  while (context.gw.logs.requestCompleted - completedBefore < answered && Date.now() < giveUpAt) await new Promise((resolve) => setTimeout(resolve, 100));
  const fiveXx = Object.entries(statusCounts).reduce((sum, [status, count]) => sum + (Number(status) >= 500 ? count : 0), 0);
  return {
    requests: plan.requests,
    connections: plan.connections,
    seconds,
    statusCounts,
    fiveXx,
    transportErrors,
    lostLogs: Math.max(0, answered - (context.gw.logs.requestCompleted - completedBefore)),
    lostCharges: context.gw.logs.unjournaledCharges - unjournaledBefore,
    rssStartBytes,
    rssEndBytes: treeMemory(context.gw.child.pid)?.totalRssBytes,
    rssSamples,
    ...flatness(rssSamples, plan.requests),
  };
}

/** The slope of RSS against requests over the second half of the samples (the first half includes warm-up). */
export function flatness(
  samples: readonly RssSample[],
  requests: number,
): Pick<SoakResult, 'secondHalfSlopeKiBPer1k' | 'secondHalfSlopeMainKiBPer1k' | 'secondHalfSlopeChildrenKiBPer1k' | 'flat'> {
  const half = samples.slice(Math.floor(samples.length / 2));
  const slope = slopeKiBPer1k(half, (point) => point.totalBytes);
  if (slope === undefined) return {};
  return {
    secondHalfSlopeKiBPer1k: slope,
    secondHalfSlopeMainKiBPer1k: slopeKiBPer1k(half, (point) => point.mainBytes),
    secondHalfSlopeChildrenKiBPer1k: slopeKiBPer1k(half, (point) => point.childrenBytes),
    // A short soak's second half is still warm-up (V8 sizing its heap, caches filling): its slope is shown, not judged.
    flat: requests >= MIN_REQUESTS_TO_JUDGE ? slope <= FLAT_SLOPE_KIB_PER_1K : undefined,
  };
}

/** Least-squares slope of `bytes` against requests, KiB per 1,000 requests (undefined under 4 points). */
function slopeKiBPer1k(points: readonly RssSample[], bytes: (point: RssSample) => number): number | undefined {
  if (points.length < 4) return undefined;
  const meanX = points.reduce((sum, point) => sum + point.requests, 0) / points.length;
  const meanY = points.reduce((sum, point) => sum + bytes(point), 0) / points.length;
  let covariance = 0;
  let variance = 0;
  for (const point of points) {
    covariance += (point.requests - meanX) * (bytes(point) - meanY);
    variance += (point.requests - meanX) ** 2;
  }
  return variance === 0 ? undefined : ((covariance / variance) * 1000) / 1024;
}

export function formatSoak(result: SoakResult): string {
  const mib = (bytes?: number) => (bytes === undefined ? '?' : `${Math.round(bytes / 1024 / 1024)} MiB`);
  return (
    `soak: ${result.requests} requests at ${result.connections} connections in ${result.seconds.toFixed(1)} s: ` +
    `${result.fiveXx} 5xx, ${result.transportErrors} without answer, ${result.lostCharges} lost charges, ${result.lostLogs} lost logs; ` +
    `RSS of gw and its children ${mib(result.rssStartBytes)} → ${mib(result.rssEndBytes)}, second-half slope ` +
    `${result.secondHalfSlopeKiBPer1k === undefined ? '?' : `${result.secondHalfSlopeKiBPer1k.toFixed(0)} KiB per 1,000 requests`} ` +
    `(${result.flat === undefined ? 'not judged: too short' : result.flat ? 'flat' : 'NOT flat'}; limit ${FLAT_SLOPE_KIB_PER_1K})`
  );
}
