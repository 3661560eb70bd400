import { chatRequest, type MockMode } from '../mock/payloads.js';
import { jsonCall, sendOnce, type ProbeRequest, type TimedResponse } from '../measure/http-probe.js';
import { PROVIDER_TOKEN, checkChatJson, gwChat, gwChatWithConfig, mockBaseUrl, type BenchEndpoints } from './requests.js';
import { errorCode, errorMessage, isMissingRoute, type BenchTenant } from './tenant.js';

/**
 * The gw features whose cost on the hot path the bench measures. Each scenario is one entry: a name, a setup
 * that creates what it needs through the API and proves the feature really works (so a number is never
 * reported for a feature that silently did nothing), and the request to time. A feature gw does not have yet
 * is reported as "not yet available" with the reason, never as a number.
 */
export interface ScenarioContext {
  endpoints: BenchEndpoints;
  adminKey: string;
  tenant: BenchTenant;
  mockStats(): Promise<Record<string, number>>;
  /** How many entries fill the semantic-cache partition before lookups are timed. */
  semanticPartitionEntries: number;
  /** Bound on setup work (filling the semantic partition). */
  setupDeadlineMs: number;
}

export interface ReadyScenario {
  request: ProbeRequest | ((iteration: number) => ProbeRequest);
  /** Why a timed response is wrong (not what the scenario claims to measure), or undefined. */
  check(response: TimedResponse): string | undefined;
  /** After the series: confirms that the `measured` requests did what the scenario says. */
  verify?(measured: number): Promise<string | undefined>;
  note?: string;
}

export type ScenarioSetup = ReadyScenario | { unavailable: string };

export interface HotPathScenario {
  name: string;
  setup(context: ScenarioContext): Promise<ScenarioSetup>;
}

const CACHE_STATUS = 'x-gw-cache-status';

/** A config leaf that sends to one mode of the bench mock. */
function mockTarget(endpoints: BenchEndpoints, mode: MockMode): Record<string, unknown> {
  return { provider: 'openai', api_key: PROVIDER_TOKEN, custom_host: mockBaseUrl(endpoints, mode) };
}

/** gw answers this while it has no `x-gw-config` support. */
function configUnsupported(response: { status: number; json: unknown }): string | undefined {
  if (response.status === 400 && errorCode(response.json) === 'unsupported_auth_method') return `x-gw-config is not supported by gw yet (${errorMessage(response.json)})`;
  return undefined;
}

function failedSetup(what: string, response: { status: number; text?: string; json: unknown }): Error {
  return new Error(`${what} answered ${response.status}: ${(response.text ?? JSON.stringify(response.json)).slice(0, 500)}`);
}

function headerOf(response: TimedResponse, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

const fallbackScenario: HotPathScenario = {
  name: 'fallback config, first target fails (503)',
  async setup({ endpoints, mockStats }) {
    // No retries on the failing target: this measures falling back, not retry backoff.
    const config = { strategy: { mode: 'fallback' }, targets: [{ ...mockTarget(endpoints, 'failing'), retry: { attempts: 0 } }, mockTarget(endpoints, 'fast')] };
    const request = gwChatWithConfig(endpoints, config);
    const before = await mockStats();
    const first = await sendOnce(request);
    const unsupported = configUnsupported(first);
    if (unsupported) return { unavailable: unsupported };
    if (first.status !== 200) throw failedSetup('a request with the fallback config', first);
    const afterFirst = await mockStats();
    if (afterFirst.failing <= before.failing) throw new Error('the fallback config answered without trying its first (failing) target');
    return {
      request,
      check: (response) => {
        const answeredBy = headerOf(response, 'x-gw-last-used-option-index');
        if (answeredBy !== undefined && answeredBy !== 'config.targets[1]') return `answered by ${answeredBy}, expected config.targets[1]`;
        return checkChatJson(response);
      },
      verify: async (measured) => {
        const after = await mockStats();
        const tried = after.failing - afterFirst.failing;
        return tried >= measured ? undefined : `the failing target was tried ${tried} times for ${measured} measured requests`;
      },
    };
  },
};

const RATE_LIMIT_PROBE_USER = 'bench-rate-limit-probe';
const enforcementChecks = new WeakMap<ScenarioContext, Promise<string | undefined>>();

export async function createRateLimitPolicy(context: ScenarioContext, user: string, groupBy: string, value: number) {
  return jsonCall(`${context.endpoints.gwUrl}/v1/policies/rate-limits`, 'POST', { 'x-gw-api-key': context.adminKey }, {
    name: `bench ${user} by ${groupBy}`,
    conditions: [{ key: 'metadata._user', value: user }],
    group_by: [{ key: groupBy }],
    type: 'requests',
    unit: 'rpm',
    value,
    ...(context.tenant.workspaceId ? { workspace_id: context.tenant.workspaceId } : {}),
  });
}

/**
 * Policies can exist in the control plane before the gateway enforces them: a 2 rpm policy on its own metadata
 * user, hit three times, must answer 429 once, or there is nothing to measure. Returns why not, or undefined.
 */
export function rateLimitsEnforced(context: ScenarioContext): Promise<string | undefined> {
  let check = enforcementChecks.get(context);
  if (!check) {
    check = (async () => {
      const created = await createRateLimitPolicy(context, RATE_LIMIT_PROBE_USER, 'metadata._user', 2);
      if (isMissingRoute(created)) return 'POST /v1/policies/rate-limits is not available yet';
      if (created.status !== 201 && created.status !== 200) throw failedSetup('POST /v1/policies/rate-limits', created);
      const probe = gwChat(context.endpoints, 'fast', false, { 'x-gw-metadata': JSON.stringify({ _user: RATE_LIMIT_PROBE_USER }) });
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) statuses.push((await sendOnce(probe)).status);
      if (statuses.includes(429)) return undefined;
      return `policies are stored but the gateway does not enforce them yet (3 requests against a 2 rpm policy answered ${statuses.join(', ')})`;
    })();
    enforcementChecks.set(context, check);
  }
  return check;
}

function rateLimitScenario(policies: 1 | 3): HotPathScenario {
  // Different group_by keys, so each policy keeps its own counter: three independent admissions per request.
  const groupings = ['api_key', 'workspace_id', 'metadata._user'].slice(0, policies);
  const user = `bench-rate-limit-${policies}`;
  return {
    name: `${policies} matching rate-limit polic${policies === 1 ? 'y' : 'ies'}`,
    async setup(context) {
      const notEnforced = await rateLimitsEnforced(context);
      if (notEnforced) return { unavailable: notEnforced };
      for (const groupBy of groupings) {
        // Far above anything the bench sends: every request is admitted, and every one pays for the check.
        const created = await createRateLimitPolicy(context, user, groupBy, 1_000_000_000);
        if (created.status !== 201 && created.status !== 200) throw failedSetup('POST /v1/policies/rate-limits', created);
      }
      // Only requests of this metadata user match, so the policies never touch the other scenarios' requests.
      return { request: gwChat(context.endpoints, 'fast', false, { 'x-gw-metadata': JSON.stringify({ _user: user }) }), check: checkChatJson };
    },
  };
}

const cacheHitScenario: HotPathScenario = {
  name: 'cache hit (simple)',
  async setup({ endpoints }) {
    const request = gwChatWithConfig(endpoints, { ...mockTarget(endpoints, 'fast'), cache: { mode: 'simple', max_age: 3600 } }, { 'x-gw-cache-namespace': 'bench-simple' });
    const prime = await sendOnce(request);
    const unsupported = configUnsupported(prime);
    if (unsupported) return { unavailable: unsupported };
    if (prime.status !== 200) throw failedSetup('a request with a simple-cache config', prime);
    // gw stores an answer in the cache after sending it (in the background): behind a slow store (the AWS-shaped
    // mode) the repeated request can arrive first and miss, so ask again for a while before calling it unsupported.
    let second = await sendOnce(request);
    for (let tries = 0; second.status === 200 && second.headers.get(CACHE_STATUS) !== 'HIT' && tries < 20; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      second = await sendOnce(request);
    }
    const status = second.headers.get(CACHE_STATUS);
    if (second.status !== 200) throw failedSetup('the repeated simple-cache request', second);
    if (status !== 'HIT') return { unavailable: `gw does not serve cache hits yet (the repeated request answered ${CACHE_STATUS}: ${status})` };
    return {
      request,
      check: (response) => (headerOf(response, CACHE_STATUS) === 'HIT' ? checkChatJson(response) : `${CACHE_STATUS}: ${headerOf(response, CACHE_STATUS)}`),
    };
  },
};

/** Prompts that differ from each other; the variant of one differs only in case and punctuation. */
const semanticPrompt = (index: number) => `Bench question ${index}: what is the square of ${index}?`;
const semanticVariant = (index: number) => `${semanticPrompt(index).toUpperCase()}!!`;

const semanticScenario: HotPathScenario = {
  name: 'semantic-cache lookup, full partition',
  async setup({ endpoints, semanticPartitionEntries, setupDeadlineMs }) {
    const config = { ...mockTarget(endpoints, 'fast'), cache: { mode: 'semantic', max_age: 3600 } };
    // One namespace is one partition; the mock's embeddings make each variant land on its original.
    const headers = { 'x-gw-cache-namespace': 'bench-semantic' };
    const requestFor = (prompt: string) => gwChatWithConfig(endpoints, config, headers, chatRequest(prompt));
    const deadline = Date.now() + setupDeadlineMs;
    let filled = 0;
    for (; filled < semanticPartitionEntries && Date.now() < deadline; filled++) {
      const response = await sendOnce(requestFor(semanticPrompt(filled)));
      if (filled === 0) {
        const unsupported = configUnsupported(response);
        if (unsupported) return { unavailable: unsupported };
        if (response.status === 400 && /semantic/i.test(errorMessage(response.json))) return { unavailable: `semantic cache refused: ${errorMessage(response.json)}` };
      }
      if (response.status !== 200) throw failedSetup(`filling the semantic partition (entry ${filled})`, response);
    }
    const probe = await sendOnce(requestFor(semanticVariant(0)));
    const status = probe.headers.get(CACHE_STATUS);
    if (probe.status !== 200) throw failedSetup('a semantic-cache lookup', probe);
    if (status !== 'SEMANTIC HIT') return { unavailable: `gw does not serve semantic hits yet (a near-duplicate prompt answered ${CACHE_STATUS}: ${status})` };
    return {
      request: (iteration) => requestFor(semanticVariant(iteration % filled)),
      check: (response) => (headerOf(response, CACHE_STATUS) === 'SEMANTIC HIT' ? checkChatJson(response) : `${CACHE_STATUS}: ${headerOf(response, CACHE_STATUS)}`),
      note: filled < semanticPartitionEntries ? `partition holds ${filled} of ${semanticPartitionEntries} entries (setup deadline)` : `partition of ${filled} entries`,
    };
  },
};

export const HOT_PATH_SCENARIOS: readonly HotPathScenario[] = [
  fallbackScenario,
  rateLimitScenario(1),
  rateLimitScenario(3),
  cacheHitScenario,
  semanticScenario,
];
