import { runLoad, type LoadOptions, type LoadResult } from '../measure/load.js';
import type { MockMode } from '../mock/payloads.js';
import type { ThroughputRow } from '../report/results.js';
import { directChat, gwChat, portkeyChat, proxyChat } from '../scenarios/requests.js';
import type { PhaseContext } from './context.js';

/**
 * Closed-loop load at each planned connection count, direct, through gw, through the minimal reference proxy and
 * through Portkey (when they run), one after the other, with the same autocannon settings. On the direct path the
 * mock's CPU is metered, through gw the gw process tree's, through the proxy and Portkey their own process's; a
 * valid run has no non-2xx at all.
 */
export async function measureThroughput(context: PhaseContext): Promise<ThroughputRow[]> {
  const { plan, registry, root, endpoints } = context;
  const rows: ThroughputRow[] = [];
  for (const { upstream, connections } of plan.load.runs) {
    const options = { connections, durationSeconds: plan.load.durationSeconds, warmupSeconds: plan.load.warmupSeconds };
    const label = `throughput, ${upstream} upstream, ${connections} connections`;
    try {
      registry.assertAlive();
      const direct = await runLoad(registry, root, directChat(endpoints, upstream, false), options, context.mock.child.pid);
      registry.assertAlive();
      const failedBefore = { ...context.gw.logs.failedRequests };
      const stderrBefore = context.gw.child.stderrLength;
      const gw = await runLoad(registry, root, gwChat(endpoints, upstream, false), options, context.gw.child.pid);
      registry.assertAlive();
      const proxy = context.endpoints.proxyUrl && context.proxy ? await runLoad(registry, root, proxyChat(endpoints, upstream, false), options, context.proxy.pid) : undefined;
      registry.assertAlive();
      const portkey = await loadPortkey(context, upstream, options, label);
      reportFailures(context, `${label}, direct`, direct);
      if (proxy) reportFailures(context, `${label}, reference proxy`, proxy);
      if (portkey) reportFailures(context, `${label}, portkey`, portkey);
      // gw logs each request after answering it: give the last lines a moment to arrive.
      await new Promise((resolve) => setTimeout(resolve, 300));
      reportFailures(context, `${label}, gw`, gw, newFailures(failedBefore, context.gw.logs.failedRequests), context.gw.child.stderrSince(stderrBefore));
      rows.push({ upstream, connections, direct, gw, proxy, portkey, ratio: direct.requestsPerSecond > 0 ? gw.requestsPerSecond / direct.requestsPerSecond : Number.NaN });
    } catch (error) {
      const stderr = context.gw.child.stderr.trim().slice(-800);
      context.errors.push(`${label}: ${(error as Error).message}${stderr ? `; gw stderr (tail): ${stderr}` : ''}`);
    }
  }
  return rows;
}

/** Portkey's run on its own: a failure there loses its column of this row, not gw's. */
async function loadPortkey(context: PhaseContext, upstream: MockMode, options: LoadOptions, label: string): Promise<LoadResult | undefined> {
  if (!context.endpoints.portkeyUrl || !context.portkey) return undefined;
  try {
    return await runLoad(context.registry, context.root, portkeyChat(context.endpoints, upstream, false), options, context.portkey.pid);
  } catch (error) {
    context.errors.push(`${label}, portkey: ${(error as Error).message}`);
    return undefined;
  }
}

/** What gw's log says it answered with, other than 200, since `before`. */
function newFailures(before: Record<string, number>, after: Record<string, number>): string {
  return Object.entries(after)
    .map(([key, count]) => [key, count - (before[key] ?? 0)] as const)
    .filter(([, count]) => count > 0)
    .map(([key, count]) => `${key}: ${count}`)
    .join(', ');
}

function reportFailures(context: PhaseContext, label: string, result: LoadResult, fromLog?: string, stderr?: string): void {
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    const statuses = Object.entries(result.statusCounts).map(([status, count]) => `${status}: ${count}`).join(', ');
    const logged = fromLog ? `; gw logged ${fromLog}` : '';
    const printed = stderr ? `; gw stderr: ${stderr.trim().slice(0, 800)}` : '';
    context.errors.push(`${label}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts of ${result.completed2xx + result.non2xx} answers (statuses ${statuses}${logged}${printed})`);
  }
  if (result.completed2xx === 0) context.errors.push(`${label}: no request completed`);
}
