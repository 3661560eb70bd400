import { badRequest } from '../http/errors.js';
import { findProvider, PROVIDER_SLUGS } from '../providers/registry.js';
import type { Endpoint, ProviderAdapter, TargetSettings } from '../providers/types.js';
import { settings } from '../settings.js';
import { validateCustomHost } from './custom-host.js';
import type { RequestOptions } from './request-options.js';

export interface ResolvedTarget {
  adapter: ProviderAdapter;
  target: TargetSettings;
}

/**
 * Turns the provider headers into one target: `x-gw-provider` with `Authorization: Bearer`, optionally sent to
 * `x-gw-custom-host`. Virtual keys and configs resolve to the same shape in their own modules.
 */
export function resolveHeaderTarget(options: RequestOptions, endpoint: Endpoint): ResolvedTarget {
  if (options.virtualKey !== undefined || options.config !== undefined) {
    const header = options.config !== undefined ? 'x-gw-config' : 'x-gw-virtual-key';
    throw badRequest('unsupported_auth_method', `${header} is not supported by this gw deployment yet; use x-gw-provider with Authorization`, header);
  }
  if (!options.provider) {
    throw badRequest(
      'missing_provider',
      'Say which provider to call: x-gw-provider with Authorization: Bearer <provider token> (optionally x-gw-custom-host), x-gw-virtual-key, or x-gw-config',
      'x-gw-provider',
    );
  }
  const adapter = findProvider(options.provider);
  if (!adapter) {
    throw badRequest('unknown_provider', `Unknown provider '${options.provider}'; valid providers: ${PROVIDER_SLUGS.join(', ')}`, 'x-gw-provider');
  }
  if (!adapter.endpoints.includes(endpoint)) {
    throw badRequest('unsupported_endpoint', `Provider '${adapter.slug}' does not support ${endpoint}; it supports: ${adapter.endpoints.join(', ')}`);
  }
  const { GW_ALLOW_LOOPBACK_HOSTS, GW_ALLOW_PRIVATE_HOSTS } = settings();
  const customHost =
    options.customHost === undefined
      ? undefined
      : validateCustomHost(options.customHost, { allowLoopback: GW_ALLOW_LOOPBACK_HOSTS, allowPrivate: GW_ALLOW_PRIVATE_HOSTS });
  return {
    adapter,
    target: {
      provider: adapter.slug,
      apiKey: options.providerToken,
      customHost,
      azure: options.azure,
      vertex: options.vertex,
      aws: options.aws,
      anthropicBeta: options.anthropicBeta,
    },
  };
}
