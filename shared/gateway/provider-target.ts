import type { Principal } from '../auth/principal.js';
import { maxStaleFor, RefreshingCache } from '../cache/refreshing-cache.js';
import { badRequest, GatewayError } from '../http/errors.js';
import { logger } from '../observability/logger.js';
import { settings } from '../settings.js';
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
import type { WorkspaceProviderRef } from './context.js';
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
/**
 * `x-gw-provider: @<slug>`: the request goes through a workspace provider. Its integration supplies the provider
 * kind, the credential (injected as if sent in `Authorization`, which it replaces, but marked as stored: it goes only
 * to the integration's own host or allow-listed ones), the custom host and its model allowlist (checked per target
 * after override_params: allowed-models.ts). The options are rewritten in place, so routing sees an ordinary
 * provider request. The provider is returned for the request's context: admission applies its rate limits and
 * budget (enforcement/provider-limits.ts) with the workspace's policies, and policies can name it.
 */
export async function applyWorkspaceProvider(options: RequestOptions, principal: Principal): Promise<WorkspaceProviderRef | undefined> {
  if (!options.provider?.startsWith('@')) return undefined;
  const slug = options.provider.slice(1);
  if (!SLUG.test(slug)) throw badRequest('invalid_header', 'x-gw-provider: @<slug> must name a provider slug of this workspace', 'x-gw-provider');
  const resolved = await resolveProvider(principal.workspaceId, slug);
  const { provider, integration } = resolved;
  // The allow list is checked per target once the config is known: a target's override_params may set the model.
  if (provider.models.length > 0) options.allowedModels = { source: `provider @${slug}`, models: provider.models };
  options.provider = integration.provider;
  const resource = storedResourceNames.integration(integration.id, slug);
  options.workspaceProvider = { customHost: integration.custom_host };
  if (resolved.apiKey !== undefined) {
    options.providerToken = resolved.apiKey;
    const hosts = integration.custom_host === undefined ? [] : [integration.custom_host];
    options.workspaceProvider.credential = { resource, hosts, allowedHosts: integration.allowed_custom_hosts ?? [] };
  }
  return { provider, integration };
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
