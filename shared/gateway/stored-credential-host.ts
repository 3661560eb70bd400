import { badRequest } from '../http/errors.js';

/**
 * A credential gw stores (a virtual key's, a saved config's or deployment's `api_key`, an integration's key),
 * with the hosts it may be sent to. The rule (docs/security.md, "Stored credentials and hosts"): a stored
 * credential goes only to the host stored with it, to its provider's own API, or to an origin its owner put in
 * the resource's `allowed_custom_hosts`; never to a host the caller picked (x-gw-custom-host, an inline config's
 * custom_host). Credentials the caller sends itself (Authorization, an inline config's api_key) carry no
 * StoredCredential and may go to any host the address rules allow.
 */
export interface StoredCredential {
  /** Names the resource in errors and tells hosts it stored apart: `virtual key "vk-1"`, `saved config "cfg-2"`. */
  resource: string;
  /** Hosts stored with the credential in the same record (a virtual key's or integration's custom_host). */
  hosts: readonly string[];
  /** Further origins the resource's owner allow-listed (`allowed_custom_hosts`), as `scheme://host[:port]`. */
  allowedHosts: readonly string[];
}

/** A stored config (saved config or deployment): the resource a credential or custom_host written in it belongs to. */
export interface ConfigSource {
  resource: string;
  allowedHosts: readonly string[];
}

/**
 * The one check where a target's credential meets its host, run for every leaf of every entry point
 * (resolve-target.ts). `hostSetBy` is the stored resource that chose the host, or undefined when the caller did.
 */
export function assertStoredCredentialHost(credential: StoredCredential | undefined, host: string | undefined, hostSetBy: string | undefined): void {
  // No stored credential, or the provider's own API: nothing to check.
  if (!credential || host === undefined) return;
  if (hostSetBy === credential.resource) return;
  const origin = originOf(host);
  if (credential.hosts.some((own) => originOf(own) === origin) || credential.allowedHosts.includes(origin)) return;
  const chooser = hostSetBy === undefined ? 'the request (x-gw-custom-host or an inline config’s custom_host)' : hostSetBy;
  throw badRequest(
    'stored_credential_custom_host',
    `The credential stored in ${credential.resource} is sent only to its own host, but ${chooser} names the host ${origin}; ` +
      `drop the custom host, send your own credential, or have the owner of ${credential.resource} add ${origin} to its allowed_custom_hosts`,
    'x-gw-custom-host',
  );
}

/** `scheme://host[:port]` of a base URL (lower case, default port dropped); the text itself when it is no URL. */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/** The names a stored resource gives in errors. */
export const storedResourceNames = {
  virtualKey: (id: string) => `virtual key "${id}"`,
  integration: (id: string, slug: string) => `integration "${id}" (provider @${slug})`,
  savedConfig: (id: string) => `saved config "${id}"`,
  deployment: (slug: string) => `deployment "${slug}"`,
};
