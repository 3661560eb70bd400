import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import { classifyAddress } from './address-classes.js';
import { badRequest } from '../http/errors.js';

export interface HostRules {
  allowLoopback: boolean;
  allowPrivate: boolean;
}

/**
 * Checks a custom host URL so gw cannot be turned against its own network: http(s) only, no credentials in the
 * URL, and IP literals checked against the address rules (address-classes.ts). Names are normalised first
 * (case, IDNA, trailing dots) so `localhost.` or `METADATA.google.internal.` cannot slip past the name checks.
 * Hostnames are checked again at connect time, on the addresses DNS actually returned (see upstream-client),
 * which also defeats DNS rebinding.
 */
export function validateCustomHost(value: string, rules: HostRules): string {
  // A saved config's host is checked on every request that uses it (issue #48): the answer depends only on the
  // text and the rules, so accepted hosts are remembered (refusals are not: they throw a fresh error each time).
  const memoKey = `${rules.allowLoopback ? 1 : 0}${rules.allowPrivate ? 1 : 0}${value}`;
  const known = accepted.get(memoKey);
  if (known !== undefined) return known;
  const checked = checkCustomHost(value, rules);
  if (accepted.size >= ACCEPTED_HOSTS) accepted.clear();
  accepted.set(memoKey, checked);
  return checked;
}

/** Accepted hosts remembered, at most this many (then forgotten all at once: a bound, not a cache policy). */
const ACCEPTED_HOSTS = 1_000;
const accepted = new Map<string, string>();

function checkCustomHost(value: string, rules: HostRules): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw badRequest('invalid_custom_host', 'x-gw-custom-host must be an absolute http(s) URL', 'x-gw-custom-host');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw badRequest('invalid_custom_host', 'x-gw-custom-host must use http or https', 'x-gw-custom-host');
  }
  if (url.username || url.password) {
    throw badRequest('invalid_custom_host', 'x-gw-custom-host must not carry credentials; send them in Authorization', 'x-gw-custom-host');
  }
  if (url.search || url.hash) {
    throw badRequest('invalid_custom_host', 'x-gw-custom-host is a base URL: no query string or fragment', 'x-gw-custom-host');
  }
  const host = normaliseHostname(url.hostname);
  const refusal = isIP(host) ? addressRefusal(host, rules) : hostnameRefusal(host, rules);
  if (refusal) throw badRequest('custom_host_not_allowed', `x-gw-custom-host is not allowed: ${refusal}`, 'x-gw-custom-host');
  return url.toString().replace(/\/+$/, '');
}

/**
 * The form name checks compare: brackets of an IPv6 literal dropped, lower case, IDNA (punycode) ASCII, and no
 * trailing dots (`localhost.` is the same host as `localhost`). A name IDNA refuses is returned as given,
 * lower-cased; DNS will not resolve it either.
 */
export function normaliseHostname(hostname: string): string {
  const bare = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (isIP(bare)) return bare;
  const ascii = domainToASCII(bare) || bare;
  return ascii.replace(/\.+$/, '');
}

const METADATA_NAMES = new Set(['metadata', 'metadata.google.internal', 'instance-data', 'metadata.azure.internal']);

export function hostnameRefusal(host: string, rules: HostRules): string | undefined {
  if (host === '') return 'the host name is empty';
  if (METADATA_NAMES.has(host) || host.endsWith('.internal')) return 'cloud metadata hosts are always refused';
  if ((host === 'localhost' || host.endsWith('.localhost') || host === 'localhost.localdomain') && !rules.allowLoopback) {
    return 'loopback addresses are refused here';
  }
  return undefined;
}

/** Why an address may not be reached, or undefined when it may. Shared with the connect-time check. */
export function addressRefusal(address: string, rules: HostRules): string | undefined {
  const { kind, range } = classifyAddress(address);
  switch (kind) {
    case 'public':
      return undefined;
    case 'loopback':
      return rules.allowLoopback ? undefined : `loopback addresses are refused here (${range})`;
    case 'private':
      return rules.allowPrivate ? undefined : `private-range addresses are refused here (${range})`;
    default:
      return `${kind} addresses are always refused (${range})`;
  }
}
