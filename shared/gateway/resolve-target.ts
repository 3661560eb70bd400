import { badRequest } from '../http/errors.js';
import type { NeutralRequest } from '../http/types.js';
import { noteTargetCredentials } from '../observability/request-credentials.js';
import { findProvider, PROVIDER_SLUGS } from '../providers/registry.js';
import type { Endpoint, ProviderAdapter, TargetSettings } from '../providers/types.js';
import { settings } from '../settings.js';
import type { LeafSettings } from './config/target-tree.js';
import { validateCustomHost } from './custom-host.js';
import { parseForwardHeaders } from './forward-headers.js';
import type { RequestOptions } from './request-options.js';
import { assertStoredCredentialCoordinates, assertStoredCredentialHost, storedResourceNames } from './stored-credential-host.js';
import { azureResourceHost } from '../providers/azure-openai/resource-host.js';
import { resolveVirtualKey } from './virtual-key-target.js';
import { functionRoleFor } from './function-role.js';
import { merged } from '../merged.js';

export interface ResolvedTarget {
  adapter: ProviderAdapter;
  target: TargetSettings;
  forwardHeaders: Record<string, string>;
}

/**
 * The provider settings the request headers give: the root every config inherits from, or the only target
 * when there is no config. `x-gw-provider` must name a registered provider.
 */
export function leafFromHeaders(options: RequestOptions): LeafSettings {
  if (options.provider !== undefined && !findProvider(options.provider)) {
    throw badRequest('unknown_provider', `Unknown provider '${options.provider}'; valid providers: ${PROVIDER_SLUGS.join(', ')}`, 'x-gw-provider');
  }
  const headerHost = options.customHost === undefined ? undefined : checkedHeaderCustomHost(options.customHost);
  const integration = options.workspaceProvider;
  return {
    provider: options.provider,
    apiKey: options.providerToken,
    virtualKey: options.virtualKey,
    // An integration's stored host is checked again like a virtual key's: this deployment's host rules may be stricter.
    customHost: headerHost ?? (integration?.customHost === undefined ? undefined : checkedHeaderCustomHost(integration.customHost)),
    customHostSetBy: headerHost === undefined && integration?.customHost !== undefined ? integration.credential?.resource : undefined,
    storedCredential: integration?.credential,
    azure: options.azure,
    vertex: options.vertex,
    aws: options.aws,
    accounts: options.accounts,
    anthropicBeta: options.anthropicBeta,
    overrideParams: {},
    allowedModels: options.allowedModels,
  };
}

/**
 * The adapter and settings one leaf calls, where the leaf's credential and host meet: every entry point and
 * every leaf of a config tree passes here, so here a stored credential is kept from a host the caller chose
 * (stored-credential-host.ts), and the credentials the call carries are noted for redaction (request-credentials.ts).
 * Request headers win over the config where the spec says so: a custom host given as a header replaces the
 * config's; extra forwarded headers add to the config's list.
 */
export async function resolveLeafTarget(
  leaf: LeafSettings,
  options: RequestOptions,
  /** The endpoint the provider must serve; undefined for a pass-through call, whose own support check follows. */
  endpoint: Endpoint | undefined,
  request: Pick<NeutralRequest, 'headers'>,
  workspaceId: string,
): Promise<ResolvedTarget> {
  const requestHeaders = request.headers;
  if (leaf.virtualKey !== undefined) leaf = await withVirtualKey(leaf, workspaceId);
  const provider = findProvider(leaf.provider ?? '');
  if (!provider) {
    throw badRequest('unknown_provider', `Unknown provider '${leaf.provider}'; valid providers: ${PROVIDER_SLUGS.join(', ')}`, 'x-gw-provider');
  }
  if (endpoint !== undefined && !provider.endpoints.includes(endpoint)) {
    throw badRequest('unsupported_endpoint', `Provider '${provider.slug}' does not support ${endpoint}; it supports: ${provider.endpoints.join(', ')}`);
  }
  const adapter = await provider.load();
  const configForwarded = leaf.forwardHeaderNames ? parseForwardHeaders(JSON.stringify(leaf.forwardHeaderNames), requestHeaders) : {};
  const headerHost = options.customHost !== undefined ? checkedHeaderCustomHost(options.customHost) : undefined;
  const customHost = headerHost ?? leaf.customHost;
  assertStoredCredentialHost(leaf.storedCredential, customHost, headerHost === undefined ? leaf.customHostSetBy : undefined);
  // Without a custom host, a cloud coordinate may pick the host instead (an Azure resource name): the same rule.
  if (customHost === undefined) assertStoredCredentialCoordinates(leaf.storedCredential, provider.slug, leaf.azure, leaf.azureResourceSetBy);
  noteTargetCredentials(request, leaf);
  return {
    adapter,
    forwardHeaders: merged(configForwarded, options.forwardHeaders),
    target: {
      provider: adapter.slug,
      apiKey: leaf.apiKey,
      customHost,
      azure: leaf.azure,
      vertex: leaf.vertex,
      aws: leaf.aws,
      accounts: leaf.accounts,
      awsFunctionRole: functionRoleFor(adapter.slug),
      anthropicBeta: leaf.anthropicBeta,
      anthropicVersion: leaf.anthropicVersion,
    },
  };
}

/**
 * A leaf with a virtual key: the key supplies the provider and its credentials (an `Authorization` header or a
 * config `api_key` beside it is ignored, since SDKs always send one); a provider named beside it must be the
 * key's own; cloud fields given explicitly (x-gw-azure-* / x-gw-vertex-* / x-gw-aws-* headers, config fields)
 * override the key's stored ones field by field. A custom host other than the key's own is refused unless the key
 * allow-lists it (stored-credential-host.ts).
 */
async function withVirtualKey(leaf: LeafSettings, workspaceId: string): Promise<LeafSettings> {
  const key = await resolveVirtualKey(workspaceId, leaf.virtualKey!);
  if (leaf.provider !== undefined && findProvider(leaf.provider)?.slug !== key.provider) {
    throw badRequest(
      'virtual_key_provider_mismatch',
      `The virtual key is for provider '${key.provider}', but the request names provider '${leaf.provider}'; drop x-gw-provider or use a key of that provider`,
      'x-gw-provider',
    );
  }
  const stored = key.settings;
  const resource = storedResourceNames.virtualKey(key.id);
  const storedHost = stored.customHost === undefined ? undefined : checkedStoredCustomHost(stored.customHost);
  // The hosts stored with the key: its custom host, and its Azure resource's own host.
  const hosts = [storedHost, stored.azure?.resourceName === undefined ? undefined : azureResourceHost(stored.azure.resourceName)].filter((host): host is string => host !== undefined);
  return merged(leaf, {
    provider: key.provider,
    apiKey: stored.apiKey,
    customHost: leaf.customHost ?? storedHost,
    customHostSetBy: leaf.customHost === undefined ? resource : leaf.customHostSetBy,
    azureResourceSetBy: leaf.azure?.resourceName === undefined ? resource : leaf.azureResourceSetBy,
    storedCredential: { resource, hosts, allowedHosts: key.allowedHosts },
    azure: merged(stored.azure, leaf.azure),
    vertex: merged(stored.vertex, leaf.vertex),
    aws: merged(stored.aws, leaf.aws),
  });
}

/** A key's stored custom host is checked again here: this deployment's host rules may be stricter. */
function checkedStoredCustomHost(value: string): string {
  try {
    return checkedHeaderCustomHost(value);
  } catch (error) {
    throw badRequest('custom_host_not_allowed', `The virtual key's custom_host is not allowed here: ${(error as Error).message.replace(/^x-gw-custom-host[^:]*:\s*/, '')}`, 'x-gw-virtual-key');
  }
}

function checkedHeaderCustomHost(value: string): string {
  // The rules are the process's settings, so a host once allowed stays allowed: checked once per host, not per
  // request (URL parsing and IDNA normalisation were ~1.5 % of gw's CPU with a custom host, issue #34). Refusals
  // are not remembered: they throw each time. Connect-time address checks still run on every connection.
  const known = allowedCustomHosts.get(value);
  if (known !== undefined) return known;
  const { GW_ALLOW_LOOPBACK_HOSTS, GW_ALLOW_PRIVATE_HOSTS } = settings();
  const checked = validateCustomHost(value, { allowLoopback: GW_ALLOW_LOOPBACK_HOSTS, allowPrivate: GW_ALLOW_PRIVATE_HOSTS });
  if (allowedCustomHosts.size >= MAX_ALLOWED_CUSTOM_HOSTS) allowedCustomHosts.clear();
  allowedCustomHosts.set(value, checked);
  return checked;
}

const MAX_ALLOWED_CUSTOM_HOSTS = 1_024;
const allowedCustomHosts = new Map<string, string>();
