import { azureResourceHost } from '../providers/azure-openai/resource-host.js';
import { isWithinBaseUrl } from '../gateway/stored-credential-host.js';
import { badRequest } from '../http/errors.js';

/** Where a stored credential may be sent: its custom host (none: the provider's own API), an Azure resource's host, its allow-list. */
export interface StoredEndpoints {
  customHost?: string;
  /** How the body names the custom host (`custom_host`; an MCP server's `url`). */
  hostParam?: string;
  azureResourceName?: string;
  allowedCustomHosts?: readonly string[];
}

/**
 * A stored credential is bound to its endpoint (docs/security.md, "Stored credentials and hosts"), and that holds
 * for the resource's own writes too: an update that sends the stored credential somewhere it could not go before
 * (a new custom host or allow-list entry, another Azure resource) must carry the credential again. Otherwise any
 * key allowed to edit the resource — a member's with `virtual_keys:write` — could re-point a secret someone else
 * stored at a host it runs and read it there. Narrowing (a path below the old one, dropping the custom host to use
 * the provider's own API, fewer entries) needs nothing.
 */
export function refuseEndpointMoveWithoutCredential(before: StoredEndpoints, after: StoredEndpoints, credentialSent: boolean): void {
  if (credentialSent) return;
  refuseNewEndpoints(endpointsOf(before), endpointsOf(after));
}

/** Where a stored credential may go, each with the field that names it: `['custom_host', 'https://…']`. */
export type BoundEndpoint = [param: string, url: string];

/**
 * The rule itself, for any shape of resource: every endpoint `after` sends the kept credential to must lie within
 * one it could reach `before` (a saved config's tree collects both sides in control-plane/configs/tree-endpoints.ts).
 */
export function refuseNewEndpoints(before: readonly BoundEndpoint[], after: readonly BoundEndpoint[]): void {
  const moved = after.find(([, url]) => !before.some(([, bound]) => isWithinBaseUrl(url, bound)));
  if (!moved) return;
  const [param, url] = moved;
  throw badRequest(
    'stored_credential_endpoint_change',
    `${param}: the stored credential would be sent to ${url}, where it could not go before; send the credential again with this change`,
    param,
  );
}

function endpointsOf(endpoints: StoredEndpoints): BoundEndpoint[] {
  const found: BoundEndpoint[] = [];
  // No custom host means the provider's own API: going back to it needs nothing, leaving it is a new host.
  if (endpoints.customHost) found.push([endpoints.hostParam ?? 'custom_host', endpoints.customHost]);
  if (endpoints.azureResourceName) found.push(['azure.resource_name', azureResourceHost(endpoints.azureResourceName)]);
  for (const url of endpoints.allowedCustomHosts ?? []) found.push(['allowed_custom_hosts', url]);
  return found;
}
