import { runSequential } from '../measure/sequential.js';
import { added, percentiles } from '../measure/stats.js';
import type { FeatureRow } from '../report/results.js';
import { HOT_PATH_SCENARIOS, type ScenarioContext, type ScenarioSetup } from '../scenarios/hot-path.js';
import { checkChatJson, directChat, gwChat } from '../scenarios/requests.js';
import type { BenchTenant } from '../scenarios/tenant.js';
import { MAX_ERRORS_PER_SERIES, REQUEST_TIMEOUT_MS, type PhaseContext } from './context.js';

/**
 * Each hot-path scenario beside the direct path and plain gw (same upstream, no feature), interleaved: the
 * feature's cost is reported against both. A scenario whose feature gw does not have is reported as such.
 */
export async function measureFeatures(context: PhaseContext, tenant: BenchTenant, adminKey: string, scenarioFilter?: string): Promise<FeatureRow[]> {
  const { plan, endpoints } = context;
  const scenarioContext: ScenarioContext = {
    endpoints,
    adminKey,
    tenant,
    mockStats: () => context.mock.stats(),
    semanticPartitionEntries: plan.features.semanticPartitionEntries,
    setupDeadlineMs: plan.features.setupDeadlineMs,
  };
  const rows: FeatureRow[] = [];
  for (const scenario of HOT_PATH_SCENARIOS.filter((candidate) => scenarioFilter === undefined || candidate.name.includes(scenarioFilter))) {
    const fail = (stage: string, error: unknown) => {
      const reason = `${stage}: ${(error as Error).message}`;
      context.errors.push(`feature "${scenario.name}", ${reason}`);
      rows.push({ name: scenario.name, status: 'error', reason });
    };
    let ready: ScenarioSetup;
    try {
      context.registry.assertAlive();
      ready = await scenario.setup(scenarioContext);
    } catch (error) {
      fail('setup', error);
      continue;
    }
    if ('unavailable' in ready) {
      rows.push({ name: scenario.name, status: 'not yet available', reason: ready.unavailable });
      continue;
    }
    try {
      const result = await runSequential(
        [
          { name: 'direct', request: directChat(endpoints, 'fast', false), check: checkChatJson },
          { name: 'plain gw', request: gwChat(endpoints, 'fast', false), check: checkChatJson },
          { name: scenario.name, request: ready.request, check: ready.check },
        ],
        {
          warmup: plan.features.warmup,
          count: plan.features.count,
          deadlineMs: plan.features.deadlineMs,
          timeoutMs: REQUEST_TIMEOUT_MS,
          maxErrors: MAX_ERRORS_PER_SERIES,
          guard: () => context.registry.assertAlive(),
        },
      );
      for (const path of result.paths) {
        if (path.errors > 0) context.errors.push(`feature "${scenario.name}", ${path.name}: ${path.errors} failed requests, e.g. ${path.errorSamples.join(' | ')}`);
      }
      const [direct, plain, feature] = result.paths.map((path) => percentiles(path.lastByteMs));
      const problem = await ready.verify?.(feature.count);
      if (problem) throw new Error(`verification: ${problem}`);
      rows.push({
        name: scenario.name,
        status: 'measured',
        note: [ready.note, result.truncated ? 'stopped at the time limit' : undefined].filter(Boolean).join('; ') || undefined,
        samples: feature.count,
        direct,
        plainGw: plain,
        feature,
        addedVsDirect: added(feature, direct),
        addedVsPlainGw: added(feature, plain),
      });
    } catch (error) {
      fail('measurement', error);
    }
  }
  return rows;
}
