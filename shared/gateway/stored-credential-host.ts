import { badRequest } from '../http/errors.js';
import { azureResourceHost } from '../providers/azure-openai/resource-host.js';

/**
 * A credential gw stores (a virtual key's, a saved config's or deployment's `api_key`, an integration's key),
 * with the hosts it may be sent to. The rule (docs/security.md, "Stored credentials and hosts"): a stored
 * credential goes only to the endpoint stored with it (origin and path prefix), to its provider's own API, or to a
 * base URL its owner put in the resource's `allowed_custom_hosts`; never to a host the caller picked (x-gw-custom-host, an inline config's
 * custom_host). Credentials the caller sends itself (Authorization, an inline config's api_key) carry no
 * StoredCredential and may go to any host the address rules allow.
 */
export interface StoredCredential {
  /** Names the resource in errors and tells hosts it stored apart: `virtual key "vk-1"`, `saved config "cfg-2"`. */
  resource: string;
  /** Hosts stored with the credential in the same record (a virtual key's or integration's custom_host). */
  hosts: readonly string[];
  /** Further base URLs the resource's owner allow-listed (`allowed_custom_hosts`), as `scheme://host[:port][/path]`. */
  allowedHosts: readonly string[];
}

/** A stored config (saved config or deployment): the resource a credential or custom_host written in it belongs to. */
export interface ConfigSource {
  resource: string;
  allowedHosts: readonly string[];
}

/** What chose a host: a custom host (the default), or a cloud coordinate that names a per-customer host. */
export interface HostChoice {
  /** The header (or config field) to name in the error. */
  param: string;
  /** How the caller chose it, for the message. */
  callerChoice: string;
  /** What the caller can drop instead. */
  dropWhat: string;
}

const CUSTOM_HOST_CHOICE: HostChoice = { param: 'x-gw-custom-host', callerChoice: 'the request (x-gw-custom-host or an inline config’s custom_host)', dropWhat: 'custom host' };
const AZURE_RESOURCE_CHOICE: HostChoice = {
  param: 'x-gw-azure-resource-name',
  callerChoice: 'the request (x-gw-azure-resource-name or an inline config’s azure_resource_name)',
  dropWhat: 'resource name',
};

/**
 * The one check where a target's credential meets its host, run for every leaf of every entry point
 * (resolve-target.ts). `hostSetBy` is the stored resource that chose the host, or undefined when the caller did.
 */
export function assertStoredCredentialHost(
  credential: StoredCredential | undefined,
  host: string | undefined,
  hostSetBy: string | undefined,
  choice: HostChoice = CUSTOM_HOST_CHOICE,
): void {
  // No stored credential, or the provider's own API: nothing to check.
  if (!credential || host === undefined) return;
  if (hostSetBy === credential.resource) return;
  if ([...credential.hosts, ...credential.allowedHosts].some((bound) => isWithinBaseUrl(host, bound))) return;
  const chooser = hostSetBy === undefined ? choice.callerChoice : hostSetBy;
  const named = baseUrlOf(host);
  throw badRequest(
    'stored_credential_custom_host',
    `The credential stored in ${credential.resource} is sent only to its own endpoint, but ${chooser} names the host ${named}; ` +
      `drop the ${choice.dropWhat}, send your own credential, or have the owner of ${credential.resource} add ${named} to its allowed_custom_hosts`,
    choice.param,
  );
}

/**
 * True when `url` is the base URL `bound` or lies below it: same origin, and a path equal to bound's path or
 * continuing it after a `/` (`https://h/tenant-a` covers `https://h/tenant-a/v1`, never `https://h/tenant-b` nor
 * `https://h/tenant-ab`), and never with userinfo. Hosts that serve many tenants by path keep one tenant's key on its own routes. The URL
 * parser has already resolved `.`/`..` segments (`%2e` included); an encoded `/` or `\` below the bound path could
 * still be decoded into a traversal by the upstream server, so such a path never matches.
 */
export function isWithinBaseUrl(url: string, bound: string): boolean {
  const target = parsed(url);
  const base = parsed(bound);
  if (!target || !base || target.origin !== base.origin) return false;
  // Userinfo is no part of the origin, yet it is sent (as Basic credentials, or to a proxy that reads it): never ours.
  if (target.username !== '' || target.password !== '') return false;
  const basePath = trimmedPath(base.pathname);
  const targetPath = trimmedPath(target.pathname);
  if (targetPath === basePath) return true;
  if (!targetPath.startsWith(`${basePath}/`)) return false;
  return !/%(?:2f|5c)/i.test(targetPath.slice(basePath.length));
}

/** A base URL in the one form gw compares and names: origin plus path, no trailing `/`; the text itself when it is no URL. */
export function baseUrlOf(url: string): string {
  const value = parsed(url);
  return value ? value.origin + trimmedPath(value.pathname) : url;
}

function parsed(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

function trimmedPath(pathname: string): string {
  return pathname.replace(/\/+$/, '');
}

/**
 * The same rule for the cloud coordinates that pick the host when no custom host does. Only Azure's resource
 * name leaves the provider's own API: `{resource}.openai.azure.com` is a customer's own host, so another resource
 * name re-points a stored key at someone else's resource. Vertex's region (`{region}-aiplatform.googleapis.com`)
 * and Bedrock's (`bedrock-runtime.{region}.amazonaws.com`) stay on Google's and AWS's own APIs (their adapters
 * accept region names only), so a caller's region is no host choice. docs/security.md, "Stored credentials and hosts".
 */
export function assertStoredCredentialCoordinates(
  credential: StoredCredential | undefined,
  provider: string,
  azure: { resourceName?: string } | undefined,
  resourceSetBy: string | undefined,
): void {
  if (!credential || provider !== 'azure-openai' || azure?.resourceName === undefined) return;
  assertStoredCredentialHost(credential, azureResourceHost(azure.resourceName), resourceSetBy, AZURE_RESOURCE_CHOICE);
}

/** The names a stored resource gives in errors. */
export const storedResourceNames = {
  virtualKey: (id: string) => `virtual key "${id}"`,
  integration: (id: string, slug: string) => `integration "${id}" (provider @${slug})`,
  savedConfig: (id: string) => `saved config "${id}"`,
  deployment: (slug: string) => `deployment "${slug}"`,
};
