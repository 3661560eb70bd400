import { GatewayError } from '../../http/errors.js';
import { findProvider, PROVIDER_SLUGS } from '../../providers/registry.js';
import type { TargetSettings } from '../../providers/types.js';
import { settings } from '../../settings.js';
import { validateCustomHost } from '../custom-host.js';
import type { ConfigSource, StoredCredential } from '../stored-credential-host.js';
import { queryProblem } from '../routing/conditions.js';
import { configError } from './errors.js';
import { MAX_TARGET_DEPTH } from './limits.js';
import type { AllowedModels } from '../request-options.js';
import type { CacheConfig, GatewayConfig, RetryConfig, StrategyConfig, TargetConfig } from './schema.js';
import { merged } from '../../merged.js';

/** Everything one leaf needs to make its call, after inheritance from its ancestors and the request headers. */
export interface LeafSettings {
  provider?: string;
  apiKey?: string;
  virtualKey?: string;
  customHost?: string;
  azure: NonNullable<TargetSettings['azure']>;
  vertex: NonNullable<TargetSettings['vertex']>;
  aws: NonNullable<TargetSettings['aws']>;
  accounts?: TargetSettings['accounts'];
  anthropicBeta?: string;
  anthropicVersion?: string;
  overrideParams: Record<string, unknown>;
  retry?: RetryConfig;
  requestTimeoutMs?: number;
  cache?: CacheConfig;
  forwardHeaderNames?: string[];
  /** The models the inherited stored credential may be used for (a workspace provider's allow list). */
  allowedModels?: AllowedModels;
  /** Guardrail ids of this node and its ancestors, ancestors first (a child adds to, never removes, its parent's). */
  inputGuardrails?: string[];
  /** The stored credential this leaf sends (undefined: the caller's own, or none yet: a virtual key resolves later). */
  storedCredential?: StoredCredential;
  /** The stored resource that chose `customHost`; undefined when the caller did (header, inline config). */
  customHostSetBy?: string;
  /** The same for `azure.resourceName`, which chooses the host of an Azure target (stored-credential-host.ts). */
  azureResourceSetBy?: string;
  /** The stored config this tree comes from (saved config, deployment); undefined for inline configs and headers. */
  configSource?: ConfigSource;
}

export type RouteNode =
  | { kind: 'leaf'; path: string; name?: string; weight: number; settings: LeafSettings }
  | { kind: 'strategy'; path: string; name?: string; weight: number; strategy: StrategyConfig; children: RouteNode[]; settings: LeafSettings };

/**
 * Turns a validated config into the tree routing walks. Requests without a config become a one-leaf tree of
 * the header settings, so there is one code path. Inheritance:
 * - provider identity (provider, credentials, custom host, cloud fields) is inherited as a whole, unless the
 *   child names a different provider or a virtual key: a credential never crosses to another provider;
 * - `override_params` merge shallowly, the child winning;
 * - `retry`, `cache`, `request_timeout` and `forward_headers` on a child replace the parent's.
 */
export function buildRouteTree(config: GatewayConfig | undefined, headerSettings: LeafSettings, source?: ConfigSource): RouteNode {
  if (!config) return checkedLeaf({ kind: 'leaf', path: 'headers', weight: 1, settings: headerSettings });
  return buildNode(config, merged(headerSettings, { configSource: source }), 'config', 0);
}

function buildNode(target: TargetConfig, parent: LeafSettings, path: string, depth: number): RouteNode {
  if (depth > MAX_TARGET_DEPTH) throw configError('AB0114', path, `targets may be nested at most ${MAX_TARGET_DEPTH} levels deep`);
  const nodeSettings = inherit(parent, target, path);
  const weight = target.weight ?? 1;
  if (!target.targets) {
    if (target.strategy) throw configError('AB0109', `${path}.targets`, 'a strategy needs targets');
    return checkedLeaf({ kind: 'leaf', path, name: target.name, weight, settings: nodeSettings });
  }
  if (!target.strategy) throw configError('AB0109', `${path}.strategy`, 'targets need a strategy: {"mode": "single" | "fallback" | "loadbalance" | "conditional"}');
  const children = target.targets.map((child, index) => buildNode(child, nodeSettings, `${path}.targets[${index}]`, depth + 1));
  checkStrategy(target.strategy, children, path);
  return { kind: 'strategy', path, name: target.name, weight, strategy: target.strategy, children, settings: nodeSettings };
}

function checkStrategy(strategy: StrategyConfig, children: RouteNode[], path: string): void {
  if (strategy.mode === 'loadbalance' && !children.some((child) => child.weight > 0)) {
    throw configError('AB0110', `${path}.targets`, 'load balancing needs at least one target with weight > 0');
  }
  if (strategy.mode !== 'conditional') return;
  if (!strategy.conditions || strategy.conditions.length === 0) {
    throw configError('AB0104', `${path}.strategy.conditions`, 'conditional routing needs conditions: [{"query": {...}, "then": "<target name>"}]');
  }
  const names = new Set(children.map((child) => child.name).filter((name): name is string => name !== undefined));
  const known = names.size > 0 ? [...names].join(', ') : 'none: give targets a "name"';
  strategy.conditions.forEach((condition, index) => {
    const problem = queryProblem(condition.query);
    if (problem) throw configError('AB0108', `${path}.strategy.conditions[${index}].query`, problem);
    if (!names.has(condition.then)) throw configError('AB0108', `${path}.strategy.conditions[${index}].then`, `no target named "${condition.then}" (target names: ${known})`);
  });
  if (strategy.default !== undefined && !names.has(strategy.default)) {
    throw configError('AB0108', `${path}.strategy.default`, `no target named "${strategy.default}" (target names: ${known})`);
  }
}

function checkedLeaf(leaf: Extract<RouteNode, { kind: 'leaf' }>): RouteNode {
  const { settings: leafSettings, path } = leaf;
  if (!leafSettings.provider && !leafSettings.virtualKey) {
    if (path === 'headers') {
      throw new GatewayError(
        400,
        'missing_provider',
        'Say which provider to call: x-gw-provider with Authorization: Bearer <provider token> (optionally x-gw-custom-host), x-gw-virtual-key, or x-gw-config',
        { param: 'x-gw-provider' },
      );
    }
    throw configError('AB0113', path, 'the target names no provider: set "provider" or "virtual_key" (or send x-gw-provider)');
  }
  return leaf;
}

function inherit(parent: LeafSettings, target: TargetConfig, path: string): LeafSettings {
  const ownProvider = target.provider?.trim().toLowerCase();
  if (ownProvider !== undefined && !findProvider(ownProvider)) {
    throw configError('AB0107', `${path}.provider`, `unknown provider "${target.provider}"; valid providers: ${PROVIDER_SLUGS.join(', ')}`);
  }
  const switchesIdentity = target.virtual_key !== undefined || (ownProvider !== undefined && findProvider(ownProvider) !== findProvider(parent.provider ?? ''));
  const source = parent.configSource;
  const base: LeafSettings = switchesIdentity
    ? { azure: {}, vertex: {}, aws: {}, overrideParams: parent.overrideParams, configSource: source }
    : merged(parent, { azure: { ...parent.azure }, vertex: { ...parent.vertex }, aws: { ...parent.aws } });
  const customHost = target.custom_host === undefined ? base.customHost : checkedCustomHost(target.custom_host, `${path}.custom_host`);
  return merged(base, {
    // Who chose the host and whose credential it is: the check where they meet is stored-credential-host.ts.
    customHostSetBy: target.custom_host === undefined ? base.customHostSetBy : source?.resource,
    azureResourceSetBy: target.azure_resource_name === undefined ? base.azureResourceSetBy : source?.resource,
    storedCredential: setsCredential(target) ? credentialOfConfig(source) : base.storedCredential,
    provider: ownProvider ?? base.provider,
    apiKey: target.api_key ?? base.apiKey,
    virtualKey: target.virtual_key ?? base.virtualKey,
    customHost,
    azure: overlay(base.azure, { resourceName: target.azure_resource_name, deploymentId: target.azure_deployment_id, apiVersion: target.azure_api_version, modelName: target.azure_model_name }),
    vertex: overlay(base.vertex, { projectId: target.vertex_project_id, region: target.vertex_region, serviceAccountJson: target.vertex_service_account_json }),
    aws: overlay(base.aws, { accessKeyId: target.aws_access_key_id, secretAccessKey: target.aws_secret_access_key, sessionToken: target.aws_session_token, region: target.aws_region }),
    anthropicBeta: target.anthropic_beta ?? base.anthropicBeta,
    anthropicVersion: target.anthropic_version ?? base.anthropicVersion,
    overrideParams: merged(parent.overrideParams, target.override_params),
    retry: target.retry ?? parent.retry,
    requestTimeoutMs: target.request_timeout ?? parent.requestTimeoutMs,
    cache: target.cache ?? parent.cache,
    forwardHeaderNames: target.forward_headers ?? parent.forwardHeaderNames,
    inputGuardrails: inheritGuardrails(parent.inputGuardrails, target.input_guardrails),
  });
}

/** Whether a target writes a credential of its own (a virtual key is resolved later, in resolve-target.ts). */
export function setsCredential(target: Pick<TargetConfig, 'api_key' | 'aws_access_key_id' | 'aws_secret_access_key' | 'aws_session_token' | 'vertex_service_account_json'>): boolean {
  return (
    target.api_key !== undefined ||
    target.aws_access_key_id !== undefined ||
    target.aws_secret_access_key !== undefined ||
    target.aws_session_token !== undefined ||
    target.vertex_service_account_json !== undefined
  );
}

/** A credential written in a config: stored when the config is (saved, deployment), the caller's when inline. */
export function credentialOfConfig(source: ConfigSource | undefined): StoredCredential | undefined {
  return source ? { resource: source.resource, hosts: [], allowedHosts: source.allowedHosts } : undefined;
}

/** A guardrail on a node guards every target below it: the child's list is added to the parent's, without repeats. */
function inheritGuardrails(parent: string[] | undefined, own: string[] | undefined): string[] | undefined {
  if (!own || own.length === 0) return parent;
  return [...new Set([...(parent ?? []), ...own])];
}

/** The parent's fields with the child's defined ones on top. */
function overlay<T extends object>(parent: T, child: Partial<T>): T {
  const merged: Record<string, unknown> = { ...(parent as Record<string, unknown>) };
  for (const [key, value] of Object.entries(child)) if (value !== undefined) merged[key] = value;
  return merged as T;
}

function checkedCustomHost(value: string, path: string): string {
  const { GW_ALLOW_LOOPBACK_HOSTS, GW_ALLOW_PRIVATE_HOSTS } = settings();
  try {
    return validateCustomHost(value, { allowLoopback: GW_ALLOW_LOOPBACK_HOSTS, allowPrivate: GW_ALLOW_PRIVATE_HOSTS });
  } catch (error) {
    throw configError('AB0115', path, (error as Error).message.replace(/^x-gw-custom-host /, 'custom_host '));
  }
}
