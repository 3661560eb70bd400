import { memoryOf } from '../measure/proc-stats.js';
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
  /** RSS sampled every 10 % of the way, to see whether it stays flat. */
  rssSamplesBytes: number[];
}

export const SOAK_PLAN = { full: { requests: 30_000, connections: 16 }, quick: { requests: 1_500, connections: 16 } } as const;

/**
 * `connections` closed loops share `requests` chat completions through gw against the fast mock. Afterwards it
 * waits for gw's after-path to catch up (up to 30 s), then compares: every answered request must have logged
 * "request completed" (which happens after its charge), and no charge may have been lost.
 */
export async function measureSoak(context: PhaseContext, plan: { requests: number; connections: number }): Promise<SoakResult> {
  const probe = gwChat(context.endpoints, 'fast', false);
  const completedBefore = context.gw.logs.requestCompleted;
  const errorSamplesBefore = context.gw.logs.errorSamples.length;
  const statusCounts: Record<string, number> = {};
  const rssSamplesBytes: number[] = [];
  let next = 0;
  let answered = 0;
  let transportErrors = 0;
  const rssStartBytes = memoryOf(context.gw.child.pid)?.rssBytes;
  const sampleEvery = Math.max(1, Math.floor(plan.requests / 10));
  const started = performance.now();
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
          if (index % sampleEvery === 0) {
            const rss = memoryOf(context.gw.child.pid)?.rssBytes;
            if (rss !== undefined) rssSamplesBytes.push(rss);
          }
        }
      } finally {
        agent.destroy();
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const giveUpAt = Date.now() + 30_000;
  while (context.gw.logs.requestCompleted - completedBefore < answered && Date.now() < giveUpAt) await new Promise((resolve) => setTimeout(resolve, 100));
  const newErrors = context.gw.logs.errorSamples.slice(errorSamplesBefore);
  const fiveXx = Object.entries(statusCounts).reduce((sum, [status, count]) => sum + (Number(status) >= 500 ? count : 0), 0);
  return {
    requests: plan.requests,
    connections: plan.connections,
    seconds,
    statusCounts,
    fiveXx,
    transportErrors,
    lostLogs: Math.max(0, answered - (context.gw.logs.requestCompleted - completedBefore)),
    lostCharges: newErrors.filter((line) => line.includes('could not be journaled')).length,
    rssStartBytes,
    rssEndBytes: memoryOf(context.gw.child.pid)?.rssBytes,
    rssSamplesBytes,
  };
}

export function formatSoak(result: SoakResult): string {
  const mib = (bytes?: number) => (bytes === undefined ? '?' : `${Math.round(bytes / 1024 / 1024)} MiB`);
  return (
    `soak: ${result.requests} requests at ${result.connections} connections in ${result.seconds.toFixed(1)} s: ` +
    `${result.fiveXx} 5xx, ${result.transportErrors} without answer, ${result.lostCharges} lost charges, ${result.lostLogs} lost logs; ` +
    `RSS ${mib(result.rssStartBytes)} → ${mib(result.rssEndBytes)} (samples ${result.rssSamplesBytes.map((bytes) => Math.round(bytes / 1024 / 1024)).join(', ')} MiB)`
  );
}
