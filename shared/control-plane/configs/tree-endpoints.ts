import { pathText, type JsonPath } from '../../gateway/config/credential-fields.js';
import type { CacheConfig, TargetConfig } from '../../gateway/config/schema.js';
import { badRequest } from '../../http/errors.js';
import { azureResourceHost } from '../../providers/azure-openai/resource-host.js';
import { findProvider } from '../../providers/registry.js';
import { refuseNewEndpoints, type BoundEndpoint } from '../stored-endpoint-move.js';

/**
 * The stored-credential endpoint rule (stored-endpoint-move.ts) for a config tree: a saved config's new version or
 * a deployment's new inline config that keeps a stored credential (sends its mask back at the same path) must not
 * send it anywhere the previous config could not. A credential flows down the tree the way routing inherits it
 * (gateway/config/target-tree.ts): to every descendant that does not switch provider or virtual key, and to the
 * semantic cache's embeddings call. So for each kept credential both trees are walked from the node that holds it
 * and every endpoint the new one reaches (custom_host, an Azure resource's host, allowed_custom_hosts, an
 * embeddings custom_host) must lie within one the old one reached. Targets are matched by position, as the masks
 * are. Regions (Bedrock, Vertex) are names checked against a pattern, never URLs, so they cannot move a secret
 * off its provider; a provider change at the holding node can, and also needs the credential again.
 */
export function refuseTreeEndpointMoves(before: unknown, after: unknown, kept: readonly JsonPath[], prefix = 'config'): void {
  for (const path of kept) {
    const old = reach(before, path, prefix);
    const now = reach(after, path, prefix);
    if (!old || !now) continue;
    if (findProvider(now.provider ?? '') !== findProvider(old.provider ?? '')) {
      throw badRequest(
        'stored_credential_endpoint_change',
        `${now.providerParam}: the stored credential at ${prefix}.${pathText(path)} would be sent to provider ${now.provider ?? 'named by the request'}; send the credential again with this change`,
        now.providerParam,
      );
    }
    refuseNewEndpoints(old.endpoints, now.endpoints);
  }
}

interface Settings {
  provider?: string;
  providerParam: string;
  customHost?: BoundEndpoint;
  azure?: BoundEndpoint;
  cache?: { value: CacheConfig; path: string };
}

/** Where the credential at `credentialPath` can go in `config`, and for which provider. */
function reach(config: unknown, credentialPath: JsonPath, prefix: string): { provider?: string; providerParam: string; endpoints: BoundEndpoint[] } | undefined {
  if (!isObject(config)) return undefined;
  const field = String(credentialPath[credentialPath.length - 1]);
  const inEmbeddings = credentialPath.length >= 3 && credentialPath[credentialPath.length - 3] === 'cache' && credentialPath[credentialPath.length - 2] === 'embeddings';
  const holderPath = credentialPath.slice(0, inEmbeddings ? -3 : -1);
  let node = config as TargetConfig;
  let path = prefix;
  let settings = step({ providerParam: `${prefix}.provider` }, node, path);
  for (let index = 0; index < holderPath.length; index += 2) {
    const child = holderPath[index] === 'targets' ? node.targets?.[holderPath[index + 1] as number] : undefined;
    if (!isObject(child)) return undefined;
    node = child;
    path = `${path}.targets[${String(holderPath[index + 1])}]`;
    settings = step(settings, node, path);
  }
  const allowed = ((config as { allowed_custom_hosts?: unknown }).allowed_custom_hosts ?? []) as unknown[];
  const endpoints: BoundEndpoint[] = allowed.filter((url): url is string => typeof url === 'string').map((url) => [`${prefix}.allowed_custom_hosts`, url]);
  if (inEmbeddings) {
    const embeddings = node.cache?.embeddings;
    if (!embeddings) return undefined;
    const provider = embeddings.provider?.trim().toLowerCase() ?? settings.provider;
    const switches = provider !== settings.provider;
    walk(node, settings, path, (_, reached) => {
      if (reached.cache?.value !== node.cache) return false;
      const host: BoundEndpoint | undefined = embeddings.custom_host !== undefined ? [`${reached.cache!.path}.cache.embeddings.custom_host`, embeddings.custom_host] : switches ? undefined : reached.customHost;
      if (host) endpoints.push(host);
      return true;
    });
    return { provider, providerParam: `${path}.cache.embeddings.provider`, endpoints };
  }
  walk(node, settings, path, (target, reached) => {
    if (target !== node && (target as Record<string, unknown>)[field] !== undefined) return false;
    if (reached.customHost) endpoints.push(reached.customHost);
    if (reached.azure) endpoints.push(reached.azure);
    const embeddings = reached.cache?.value.embeddings;
    const embeddingsProvider = embeddings?.provider?.trim().toLowerCase();
    const ownsCredential = embeddings?.virtual_key !== undefined || (embeddings as Record<string, unknown> | undefined)?.[field] !== undefined;
    if (embeddings?.custom_host !== undefined && !ownsCredential && (embeddingsProvider === undefined || embeddingsProvider === reached.provider)) {
      endpoints.push([`${reached.cache!.path}.cache.embeddings.custom_host`, embeddings.custom_host]);
    }
    return true;
  });
  return { provider: settings.provider, providerParam: settings.providerParam, endpoints };
}

/** Visits `node` and every descendant that inherits its identity; `visit` returning false stops at that node. */
function walk(node: TargetConfig, settings: Settings, path: string, visit: (node: TargetConfig, settings: Settings) => boolean): void {
  if (!visit(node, settings)) return;
  (node.targets ?? []).forEach((child, index) => {
    if (!isObject(child) || switchesIdentity(settings, child)) return;
    const childPath = `${path}.targets[${index}]`;
    walk(child, step(settings, child, childPath), childPath, visit);
  });
}

function switchesIdentity(parent: Settings, target: TargetConfig): boolean {
  const own = target.provider?.trim().toLowerCase();
  return target.virtual_key !== undefined || (own !== undefined && findProvider(own) !== findProvider(parent.provider ?? ''));
}

/** One level of the inheritance target-tree.ts applies, reduced to what decides where a credential goes. */
function step(parent: Settings, target: TargetConfig, path: string): Settings {
  const base: Settings = switchesIdentity(parent, target) ? { providerParam: parent.providerParam } : parent;
  const own = target.provider?.trim().toLowerCase();
  return {
    provider: own ?? base.provider,
    providerParam: own !== undefined ? `${path}.provider` : base.providerParam,
    customHost: target.custom_host !== undefined ? [`${path}.custom_host`, target.custom_host] : base.customHost,
    azure: target.azure_resource_name !== undefined ? [`${path}.azure_resource_name`, azureResourceHost(target.azure_resource_name)] : base.azure,
    cache: target.cache !== undefined ? { value: target.cache, path } : parent.cache,
  };
}

function isObject(value: unknown): value is TargetConfig {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
