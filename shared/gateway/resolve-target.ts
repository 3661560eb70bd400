import { badRequest } from '../http/errors.js';
import { findProvider, PROVIDER_SLUGS } from '../providers/registry.js';
import type { Endpoint, ProviderAdapter, TargetSettings } from '../providers/types.js';
import { settings } from '../settings.js';
import type { LeafSettings } from './config/target-tree.js';
import { validateCustomHost } from './custom-host.js';
import { parseForwardHeaders } from './forward-headers.js';
import type { RequestOptions } from './request-options.js';
import { resolveVirtualKey } from './virtual-key-target.js';
import { functionRoleFor } from './function-role.js';

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
  return {
    provider: options.provider,
    apiKey: options.providerToken,
    virtualKey: options.virtualKey,
    customHost: options.customHost === undefined ? undefined : checkedHeaderCustomHost(options.customHost),
    azure: options.azure,
    vertex: options.vertex,
    aws: options.aws,
    anthropicBeta: options.anthropicBeta,
    overrideParams: {},
  };
}

/**
 * The adapter and settings one leaf calls. Request headers win over the config where the spec says so: a
 * custom host given as a header replaces the config's; extra forwarded headers add to the config's list.
 */
export async function resolveLeafTarget(
  leaf: LeafSettings,
  options: RequestOptions,
  endpoint: Endpoint,
  requestHeaders: Record<string, string>,
  workspaceId: string,
): Promise<ResolvedTarget> {
  if (leaf.virtualKey !== undefined) leaf = await withVirtualKey(leaf, workspaceId);
  const provider = findProvider(leaf.provider ?? '');
  if (!provider) {
    throw badRequest('unknown_provider', `Unknown provider '${leaf.provider}'; valid providers: ${PROVIDER_SLUGS.join(', ')}`, 'x-gw-provider');
  }
  if (!provider.endpoints.includes(endpoint)) {
    throw badRequest('unsupported_endpoint', `Provider '${provider.slug}' does not support ${endpoint}; it supports: ${provider.endpoints.join(', ')}`);
  }
  const adapter = await provider.load();
  const configForwarded = leaf.forwardHeaderNames ? parseForwardHeaders(JSON.stringify(leaf.forwardHeaderNames), requestHeaders) : {};
  return {
    adapter,
    forwardHeaders: { ...configForwarded, ...options.forwardHeaders },
    target: {
      provider: adapter.slug,
      apiKey: leaf.apiKey,
      customHost: options.customHost !== undefined ? checkedHeaderCustomHost(options.customHost) : leaf.customHost,
      azure: leaf.azure,
      vertex: leaf.vertex,
      aws: leaf.aws,
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
 * override the key's stored ones field by field; an explicit custom host overrides the key's.
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
  return {
    ...leaf,
    provider: key.provider,
    apiKey: stored.apiKey,
    customHost: leaf.customHost ?? (stored.customHost === undefined ? undefined : checkedStoredCustomHost(stored.customHost)),
    azure: { ...stored.azure, ...leaf.azure },
    vertex: { ...stored.vertex, ...leaf.vertex },
    aws: { ...stored.aws, ...leaf.aws },
  };
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
  const { GW_ALLOW_LOOPBACK_HOSTS, GW_ALLOW_PRIVATE_HOSTS } = settings();
  return validateCustomHost(value, { allowLoopback: GW_ALLOW_LOOPBACK_HOSTS, allowPrivate: GW_ALLOW_PRIVATE_HOSTS });
}
