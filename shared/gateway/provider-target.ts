import type { Principal } from '../auth/principal.js';
import { maxStaleFor, RefreshingCache } from '../cache/refreshing-cache.js';
import { badRequest, GatewayError } from '../http/errors.js';
import type { NeutralRequest } from '../http/types.js';
import { logger } from '../observability/logger.js';
import { tokenCounts } from '../observability/pricing/index.js';
import { settings } from '../settings.js';
import { CounterRepository, counterKey, type CounterKey } from '../store/counter-repository.js';
import {
  integrationRepository,
  integrationSharedWith,
  providerRepository,
  readIntegrationSecret,
  type IntegrationRecord,
  type ProviderRecord,
} from '../store/integration-repository.js';
import { secretStore } from '../store/secrets/secret-store-factory.js';
import { SecretStoreError } from '../store/secrets/secret-store.js';
import { rateWindow, resetPeriod, secondsUntil, UNIT_LABELS } from './enforcement/windows.js';
import type { RequestOptions } from './request-options.js';
import { storedResourceNames } from './stored-credential-host.js';

/** A workspace provider as the gateway uses it: the record, its integration and the stored credential. */
interface ResolvedProvider {
  provider: ProviderRecord;
  integration: IntegrationRecord;
  apiKey?: string;
}

/** A lookup as cached: the provider, or the error its absence answers (never kept, so a fix works at once). */
type ProviderLookup = { resolved: ResolvedProvider } | { error: GatewayError };

/** What a request admitted through a provider must charge after its response. */
interface ProviderCharge {
  tokenCounters: CounterKey[];
  budgetCounter?: CounterKey;
}

const SLUG = /^[a-z0-9][a-z0-9_-]{0,254}$/;
const MAX_CACHED = 5_000;
// Shares the virtual keys' TTL (it holds a credential too), then stale-while-revalidate (refreshing-cache.ts).
const providerTtl = () => settings().GW_VIRTUAL_KEY_CACHE_TTL_MS;
const cache = new RefreshingCache<string, ProviderLookup>({
  name: 'workspace-providers',
  max: MAX_CACHED,
  ttlMs: providerTtl,
  maxStaleMs: () => maxStaleFor(providerTtl()),
  lifetimeOf: (lookup) => ('error' in lookup ? { ttlMs: 0 } : {}),
});
const charges = new WeakMap<NeutralRequest, ProviderCharge>();
const pendingAdmissions = new WeakMap<NeutralRequest, ProviderRecord>();
let counters: CounterRepository | undefined;

/**
 * `x-gw-provider: @<slug>`: the request goes through a workspace provider. Its integration supplies the provider
 * kind, the credential (injected as if sent in `Authorization`, which it replaces, but marked as stored: it goes only
 * to the integration's own host or allow-listed ones), the custom host and its model allowlist (checked per target
 * after override_params: allowed-models.ts); its rate limits and budget are checked by admitWorkspaceProvider,
 * after the allow list and before anything is forwarded. The options are rewritten in
 * place, so routing sees an ordinary provider request.
 */
export async function applyWorkspaceProvider(request: NeutralRequest, options: RequestOptions, principal: Principal): Promise<void> {
  if (!options.provider?.startsWith('@')) return;
  const slug = options.provider.slice(1);
  if (!SLUG.test(slug)) throw badRequest('invalid_header', 'x-gw-provider: @<slug> must name a provider slug of this workspace', 'x-gw-provider');
  const resolved = await resolveProvider(principal.workspaceId, slug);
  const { provider, integration } = resolved;
  // The allow list is checked per target once the config is known: a target's override_params may set the model.
  if (provider.models.length > 0) options.allowedModels = { source: `provider @${slug}`, models: provider.models };
  pendingAdmissions.set(request, provider);
  options.provider = integration.provider;
  const resource = storedResourceNames.integration(integration.id, slug);
  options.workspaceProvider = { customHost: integration.custom_host };
  if (resolved.apiKey !== undefined) {
    options.providerToken = resolved.apiKey;
    const hosts = integration.custom_host === undefined ? [] : [integration.custom_host];
    options.workspaceProvider.credential = { resource, hosts, allowedHosts: integration.allowed_custom_hosts ?? [] };
  }
}

/**
 * Takes the request's slots in the limits of the workspace provider it goes through (and checks its budget). Called
 * once the request's targets passed the provider's model allow list, so a refused model consumes nothing.
 */
export async function admitWorkspaceProvider(request: NeutralRequest): Promise<void> {
  const provider = pendingAdmissions.get(request);
  if (!provider) return;
  pendingAdmissions.delete(request);
  await admit(request, provider, Date.now());
}

/** After the response: tokens to the provider's token limits, cost to its budget. Never fails the request. */
export async function settleWorkspaceProvider(request: NeutralRequest, usage: Record<string, unknown> | undefined, cost: number | null | undefined): Promise<void> {
  const charge = charges.get(request);
  if (!charge) return;
  charges.delete(request);
  try {
    const tokens = tokenCounts(usage)?.total ?? 0;
    counters ??= new CounterRepository();
    for (const key of charge.tokenCounters) if (tokens > 0) await counters.add(key, tokens);
    if (charge.budgetCounter && cost) await counters.add(charge.budgetCounter, cost);
  } catch (error) {
    logger.error('could not charge a workspace provider', { error: error as Error });
  }
}

/** Drops this process's resolved providers right after a change (other processes follow within the cache TTL). */
export function forgetResolvedProviders(): void {
  cache.forget();
}

async function resolveProvider(workspaceId: string, slug: string): Promise<ResolvedProvider> {
  const lookup = await cache.get(`${workspaceId}\u0000${slug}`, () => loadProvider(workspaceId, slug));
  if ('error' in lookup) throw lookup.error;
  return lookup.resolved;
}

async function loadProvider(workspaceId: string, slug: string): Promise<ProviderLookup> {
  const provider = await providerRepository().getBySlug(workspaceId, slug);
  if (!provider) return { error: badRequest('provider_not_found', `x-gw-provider: no provider '@${slug}' in this workspace`, 'x-gw-provider') };
  if (!provider.enabled) return { error: badRequest('provider_disabled', `x-gw-provider: provider '@${slug}' is disabled in this workspace`, 'x-gw-provider') };
  const integration = await integrationRepository().get(provider.organisation_id, provider.integration_id);
  if (!integration || !integrationSharedWith(integration, workspaceId)) {
    return { error: badRequest('integration_unavailable', `x-gw-provider: the integration behind '@${slug}' was deleted or is no longer shared with this workspace`, 'x-gw-provider') };
  }
  let apiKey: string | undefined;
  if (integration.credential_masked !== null) {
    try {
      apiKey = (await readIntegrationSecret(secretStore(), integration.organisation_id, integration.id))?.api_key;
    } catch (error) {
      if (!(error instanceof SecretStoreError)) throw error;
      logger.error('cannot read the credential of an integration', { integration_id: integration.id, reason: error.message });
      throw new GatewayError(503, 'secret_store_unavailable', 'The credential of this provider cannot be read right now; try again later');
    }
  }
  return { resolved: { provider, integration, apiKey } };
}

type Check = { kind: 'slot' | 'tokens' | 'budget'; key: CounterKey } | { kind: 'refused'; error: GatewayError };

/**
 * Request limits take a slot atomically; token limits and the budget are a status check, charged after the
 * response. All checks run at once (one store round trip deep however many limits the provider has); if any
 * refuses or fails, the slots the others took are given back before the error is answered.
 */
async function admit(request: NeutralRequest, provider: ProviderRecord, now: number): Promise<void> {
  if (provider.rate_limits.length === 0 && !provider.budget) return;
  const store = (counters ??= new CounterRepository());
  const checks: Array<Promise<Check>> = provider.rate_limits.map(async (limit): Promise<Check> => {
    const window = rateWindow(limit.unit, now);
    const key: CounterKey = { pk: counterKey(`provider-${provider.id}`, 'rate', limit.type, window.id), windowEnd: window.end };
    const refused = (): Check => {
      const seconds = secondsUntil(window.end, now);
      const error = new GatewayError(429, 'rate_limit_exceeded', `Rate limit exceeded: provider @${provider.slug} allows ${limit.value} ${limit.type} per ${UNIT_LABELS[limit.unit]}; retry in ${seconds} s`, {
        headers: { 'retry-after': String(seconds), 'x-ratelimit-limit': String(limit.value), 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(seconds) },
      });
      return { kind: 'refused', error };
    };
    if (limit.type === 'requests') return (await store.incrementBelow(key, 1, limit.value)).admitted ? { kind: 'slot', key } : refused();
    return (await store.read(key, now)) >= limit.value ? refused() : { kind: 'tokens', key };
  });
  const budget = provider.budget;
  if (budget) {
    checks.push(
      (async (): Promise<Check> => {
        const period = resetPeriod(budget.period, now);
        const key: CounterKey = { pk: counterKey(`provider-${provider.id}`, 'credit', 'usd', period.id), windowEnd: period.end };
        const spent = await store.read(key, now);
        if (spent < budget.limit_usd) return { kind: 'budget', key };
        return { kind: 'refused', error: new GatewayError(412, 'budget_exhausted', `The budget of provider @${provider.slug} is exhausted: $${spent.toFixed(4)} spent of $${budget.limit_usd}`) };
      })(),
    );
  }
  const settled = await Promise.allSettled(checks);
  const passed = settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failure = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  const refusal = passed.find((check): check is Extract<Check, { kind: 'refused' }> => check.kind === 'refused');
  if (failure || refusal) {
    // A refused (or failed) request consumes nothing: give back the request slots the other limits took.
    const releases = await Promise.allSettled(passed.flatMap((check) => (check.kind === 'slot' ? [store.release(check.key, 1)] : [])));
    for (const release of releases) if (release.status === 'rejected') logger.error('could not give back a provider rate-limit slot', { error: release.reason as Error });
    throw failure ? failure.reason : refusal!.error;
  }
  charges.set(request, {
    tokenCounters: passed.flatMap((check) => (check.kind === 'tokens' ? [check.key] : [])),
    budgetCounter: passed.flatMap((check) => (check.kind === 'budget' ? [check.key] : []))[0],
  });
}
