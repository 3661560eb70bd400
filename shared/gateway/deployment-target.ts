import type { Principal } from '../auth/principal.js';
import { maxStaleFor, RefreshingCache } from '../cache/refreshing-cache.js';
import { badRequest, GatewayError } from '../http/errors.js';
import { DeploymentRepository, deploymentUsableBy, type DeploymentRecord } from '../store/deployment-repository.js';
import { readConfigSecret, unsealConfig } from '../store/config-secrets.js';
import { secretStore } from '../store/secrets/secret-store-factory.js';
import { settings } from '../settings.js';
import { merged } from '../merged.js';
import { parseInlineConfigLazily, type ConfigResolver } from './config/resolve-config.js';
import type { GatewayConfig } from './config/schema.js';
import { keepGatewayKeysFromConfigForwardHeaders, withoutGatewayKeyCredentials, type IssuedKeyCheck } from './gateway-key-slot.js';
import type { RequestOptions } from './request-options.js';
import { storedResourceNames, type ConfigSource } from './stored-credential-host.js';

// A changed or deleted deployment is in force everywhere within GW_CONFIG_CACHE_TTL_MS plus the maximum staleness
// (served stale while one background read refreshes it: refreshing-cache.ts); unknown slugs are not cached.
const ttlMs = () => settings().GW_CONFIG_CACHE_TTL_MS;
const cache = new RefreshingCache<string, DeploymentRecord | undefined>({
  name: 'deployments',
  max: 2_000,
  ttlMs,
  maxStaleMs: () => maxStaleFor(ttlMs()),
  lifetimeOf: (found) => (found ? {} : { ttlMs: 0 }),
});
let repository: DeploymentRepository | undefined;

/** The config a request runs, and the stored resource it comes from (none for an inline config). */
export interface RequestConfig {
  config: GatewayConfig;
  /** The saved config or deployment whose credentials and hosts the config holds (stored-credential-host.ts). */
  source?: ConfigSource;
}

/**
 * The config a request runs: the deployment's (`x-gw-deployment: <slug>`), else `x-gw-config`. A deployment of
 * another organisation, or one restricted away from the caller's workspace, is the same 404 as none at all.
 * Whatever its source, a gw key in one of its credential fields, or in a request header its forward_headers names,
 * is dropped (gateway-key-slot.ts): gw's key never goes upstream.
 */
export async function resolveRequestConfig(options: RequestOptions, principal: Principal, configs: ConfigResolver, issued: IssuedKeyCheck, headers: Record<string, string>): Promise<RequestConfig | undefined> {
  const resolved = await configOfRequest(options, principal, configs);
  if (!resolved) return undefined;
  await keepGatewayKeysFromConfigForwardHeaders(headers, resolved.config, issued);
  return merged(resolved, { config: await withoutGatewayKeyCredentials(resolved.config, undefined, issued) });
}

async function configOfRequest(options: RequestOptions, principal: Principal, configs: ConfigResolver): Promise<RequestConfig | undefined> {
  if (options.deployment === undefined) {
    const config = await configs.resolve(options.config, principal.workspaceId);
    if (!config) return undefined;
    const savedId = savedConfigId(options.config!);
    return { config, source: savedId === undefined ? undefined : sourceOf(storedResourceNames.savedConfig(savedId), config) };
  }
  if (options.config !== undefined) {
    throw badRequest('conflicting_headers', 'Send either x-gw-deployment or x-gw-config, not both: a deployment brings its own config', 'x-gw-deployment');
  }
  const deployment = await findDeployment(principal.organisationId, options.deployment);
  if (!deployment || !deploymentUsableBy(deployment, principal.workspaceId)) {
    throw new GatewayError(404, 'deployment_not_found', `No deployment '${options.deployment}' is available to this workspace`, { param: 'x-gw-deployment' });
  }
  const { config } = deployment;
  if (config.kind === 'inline') {
    // Credentials live in the secret store (control-plane/deployments/deployment-secrets.ts): put them back here only.
    const inline = config.secret_ref ? unsealConfig(config.inline, config.secret_ref, await readConfigSecret(secretStore(), config.secret_ref)) : config.inline;
    const parsed = await parseInlineConfigLazily(JSON.stringify(inline));
    return { config: parsed, source: sourceOf(storedResourceNames.deployment(deployment.slug), parsed) };
  }
  const saved = (await configs.resolve(config.version === undefined ? config.id : `${config.id}@${config.version}`, deployment.config_workspace_id))!;
  return { config: saved, source: sourceOf(storedResourceNames.savedConfig(config.id), saved) };
}

/** The id of a saved config `x-gw-config` names (`cfg-…[@n]`), or undefined for an inline config. */
function savedConfigId(value: string): string | undefined {
  const trimmed = value.trim();
  return trimmed.startsWith('{') ? undefined : trimmed.split('@')[0];
}

function sourceOf(resource: string, config: GatewayConfig): ConfigSource {
  return { resource, allowedHosts: config.allowed_custom_hosts ?? [] };
}

/**
 * Called by the control plane right after a deployment changed or was deleted, so this process runs the new one
 * from the next request on (under its old slug and its new one). Other processes follow within the TTL.
 */
export function forgetResolvedDeployment(organisationId: string): void {
  const prefix = `${organisationId}\u0000`;
  cache.forget((key) => key.startsWith(prefix));
}

async function findDeployment(organisationId: string, slug: string): Promise<DeploymentRecord | undefined> {
  const deployments = (repository ??= new DeploymentRepository());
  return cache.get(`${organisationId}\u0000${slug}`, () => deployments.getBySlug(organisationId, slug));
}
