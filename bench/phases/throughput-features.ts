import { jsonCall, sendOnce, type ProbeRequest } from '../measure/http-probe.js';
import { runLoad, type LoadResult } from '../measure/load.js';
import { chatRequest } from '../mock/payloads.js';
import type { FeatureLoadRow } from '../report/results.js';
import { createRateLimitPolicy, rateLimitsEnforced, type ScenarioContext } from '../scenarios/hot-path.js';
import { PROVIDER_TOKEN, mockBaseUrl } from '../scenarios/requests.js';
import { stringField, type BenchTenant } from '../scenarios/tenant.js';
import type { PhaseContext } from './context.js';

/**
 * Issue #34's second CPU goal: gw's CPU per request at 16 connections when each request carries one matching
 * rate-limit policy, a saved config (`x-gw-config: <id>`, created through the API) and a simple-cache lookup. Two
 * variants under the same closed-loop load as the plain throughput runs: a cache **hit** (the same body every
 * request) and a cache **miss** (autocannon's `idReplacement` puts a unique id into every body, so each request
 * is looked up, forwarded and written to the cache). The policy's limit is far above anything sent, so every
 * request is admitted and pays for the check. Before measuring, the setup proves each part does what the row says
 * (the policy is enforced, a repeated request is a HIT, a unique one a MISS); after, the mock's call count proves
 * the hits never went upstream and the misses all did.
 */

export const FEATURE_LOAD_CONNECTIONS = 16;
const CACHE_STATUS = 'x-gw-cache-status';
const POLICY_USER = 'bench-load-policy';
/** Replaced by autocannon with a unique id per request (`--idReplacement`). */
const UNIQUE_ID = '[<id>]';

interface Variant {
  name: string;
  cache: FeatureLoadRow['cache'];
  request: ProbeRequest;
  idReplacement: boolean;
}

/** Creates the policy and the saved config; the two requests that use them. Throws when a part does not work. */
export async function setUpFeatureLoad(context: Pick<PhaseContext, 'endpoints' | 'mock'>, tenant: BenchTenant, adminKey: string): Promise<Variant[]> {
  const { endpoints } = context;
  const scenario: ScenarioContext = { endpoints, adminKey, tenant, mockStats: () => context.mock.stats(), semanticPartitionEntries: 0, setupDeadlineMs: 10_000 };
  const notEnforced = await rateLimitsEnforced(scenario);
  if (notEnforced) throw new Error(notEnforced);
  // Far above anything the bench sends: every request is admitted, and every one pays for the check.
  const policy = await createRateLimitPolicy(scenario, POLICY_USER, 'api_key', 1_000_000_000);
  if (policy.status >= 300) throw new Error(`POST /v1/policies/rate-limits answered ${policy.status}: ${JSON.stringify(policy.json).slice(0, 300)}`);
  const workspace = tenant.workspaceId ? `?workspace_id=${encodeURIComponent(tenant.workspaceId)}` : '';
  const config = await jsonCall(`${endpoints.gwUrl}/v1/configs${workspace}`, 'POST', { 'x-gw-api-key': adminKey }, {
    name: 'bench load: saved config with a simple cache',
    config: { provider: 'openai', api_key: PROVIDER_TOKEN, custom_host: mockBaseUrl(endpoints, 'fast'), cache: { mode: 'simple', max_age: 3600 } },
  });
  const configId = stringField(config.json, 'id');
  if (config.status >= 300 || !configId) throw new Error(`POST /v1/configs answered ${config.status}: ${JSON.stringify(config.json).slice(0, 300)}`);
  const requestWith = (prompt: string): ProbeRequest => ({
    url: new URL(`${endpoints.gwUrl}/v1/chat/completions`),
    headers: { 'content-type': 'application/json', 'x-gw-api-key': endpoints.gwKey, 'x-gw-config': configId, 'x-gw-metadata': JSON.stringify({ _user: POLICY_USER }) },
    body: Buffer.from(JSON.stringify(chatRequest(prompt))),
  });
  const hit = requestWith('Say hello in five words (bench load, cached).');
  await expectCacheStatus(hit, 'HIT', true);
  // What autocannon will send, with the placeholder filled in as it would be: a body never seen is a MISS.
  const missPrompt = `Say hello in five words (bench load ${UNIQUE_ID}).`;
  await expectCacheStatus(requestWith(missPrompt.replace(UNIQUE_ID, `setup-${Date.now()}`)), 'MISS', false);
  return [
    { name: 'one policy, a saved config, a cache hit', cache: 'hit', request: hit, idReplacement: false },
    { name: 'one policy, a saved config, a cache miss (every body unique)', cache: 'miss', request: requestWith(missPrompt), idReplacement: true },
  ];
}

/**
 * Sends the request until it answers `wanted` (a hit needs the first answer's cache write, which gw makes after
 * answering); a 200 with another status after the retries, or any other answer, is an error.
 */
async function expectCacheStatus(request: ProbeRequest, wanted: string, retry: boolean): Promise<void> {
  let response = await sendOnce(request);
  for (let tries = 0; retry && response.status === 200 && response.headers.get(CACHE_STATUS) !== wanted && tries < 20; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    response = await sendOnce(request);
  }
  if (response.status !== 200) throw new Error(`a request with the saved config answered ${response.status}: ${response.text.slice(0, 300)}`);
  if (response.headers.get(CACHE_STATUS) !== wanted) throw new Error(`expected ${CACHE_STATUS}: ${wanted}, got ${response.headers.get(CACHE_STATUS)}`);
}

/** Why the upstream calls during a run contradict the variant, or undefined. */
export function upstreamCallsProblem(cache: FeatureLoadRow['cache'], upstreamCalls: number, result: LoadResult): string | undefined {
  if (cache === 'hit' && upstreamCalls > 0) return `${upstreamCalls} requests reached the provider during a run of cache hits`;
  if (cache === 'miss' && upstreamCalls < result.completed2xx) return `only ${upstreamCalls} of ${result.completed2xx} measured cache misses reached the provider`;
  return undefined;
}

export async function measureFeatureThroughput(context: PhaseContext, tenant: BenchTenant, adminKey: string): Promise<FeatureLoadRow[]> {
  const { plan, registry, root } = context;
  const label = `throughput with one policy, a saved config and a cache lookup, ${FEATURE_LOAD_CONNECTIONS} connections`;
  let variants: Variant[];
  try {
    registry.assertAlive();
    variants = await setUpFeatureLoad(context, tenant, adminKey);
  } catch (error) {
    context.errors.push(`${label}, setup: ${(error as Error).message}`);
    return [];
  }
  const rows: FeatureLoadRow[] = [];
  for (const variant of variants) {
    try {
      registry.assertAlive();
      const before = (await context.mock.stats()).fast ?? 0;
      const gw = await runLoad(
        registry,
        root,
        variant.request,
        { connections: FEATURE_LOAD_CONNECTIONS, durationSeconds: plan.load.durationSeconds, warmupSeconds: plan.load.warmupSeconds, idReplacement: variant.idReplacement },
        context.gw.child.pid,
      );
      registry.assertAlive();
      // Over the probe, the warm-up and the measured run alike: a hit never goes upstream, a miss always does.
      const upstreamCalls = ((await context.mock.stats()).fast ?? 0) - before;
      const problem = upstreamCallsProblem(variant.cache, upstreamCalls, gw);
      if (gw.non2xx > 0 || gw.errors > 0 || gw.timeouts > 0) context.errors.push(`${label}, ${variant.cache}: ${gw.non2xx} non-2xx (${JSON.stringify(gw.statusCounts)}), ${gw.errors} errors, ${gw.timeouts} timeouts`);
      if (problem) context.errors.push(`${label}, ${variant.cache}: ${problem}`);
      rows.push({ name: variant.name, cache: variant.cache, connections: FEATURE_LOAD_CONNECTIONS, gw, upstreamCalls });
    } catch (error) {
      context.errors.push(`${label}, ${variant.cache}: ${(error as Error).message}`);
    }
  }
  return rows;
}
