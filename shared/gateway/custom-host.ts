import { isIP } from 'node:net';
import { badRequest } from '../http/errors.js';

export interface HostRules {
  allowLoopback: boolean;
  allowPrivate: boolean;
}

/**
 * Checks a custom host URL so gw cannot be turned against its own network: http(s) only, no credentials in the
 * URL, and IP literals checked against the address rules. Hostnames are checked again at connect time, on the
 * addresses DNS actually returned (see upstream-client), which also defeats DNS rebinding.
 */
export function validateCustomHost(value: string, rules: HostRules): string {
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
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const refusal = isIP(host) ? addressRefusal(host, rules) : hostnameRefusal(host, rules);
  if (refusal) throw badRequest('custom_host_not_allowed', `x-gw-custom-host is not allowed: ${refusal}`, 'x-gw-custom-host');
  return url.toString().replace(/\/+$/, '');
}

function hostnameRefusal(host: string, rules: HostRules): string | undefined {
  const lower = host.toLowerCase();
  if (lower === 'metadata.google.internal' || lower === 'metadata' || lower.endsWith('.internal')) {
    return 'cloud metadata hosts are always refused';
  }
  if ((lower === 'localhost' || lower.endsWith('.localhost')) && !rules.allowLoopback) {
    return 'loopback addresses are refused here';
  }
  return undefined;
}

/** Why an address may not be reached, or undefined when it may. Shared with the connect-time check. */
export function addressRefusal(address: string, rules: HostRules): string | undefined {
  const kind = classifyAddress(address);
  if (kind === 'link-local' || kind === 'metadata' || kind === 'unspecified') return `${kind} addresses are always refused`;
  if (kind === 'loopback' && !rules.allowLoopback) return 'loopback addresses are refused here';
  if (kind === 'private' && !rules.allowPrivate) return 'private-range addresses are refused here';
  return undefined;
}

type AddressKind = 'public' | 'loopback' | 'private' | 'link-local' | 'metadata' | 'unspecified';

function classifyAddress(address: string): AddressKind {
  const embedded = embeddedIPv4(address);
  if (embedded) return classifyIPv4(embedded);
  if (isIP(address) === 4) return classifyIPv4(address);
  const lower = address.toLowerCase();
  if (lower === '::1') return 'loopback';
  if (lower === '::') return 'unspecified';
  if (lower === 'fd00:ec2::254') return 'metadata';
  if (/^fe[89ab]/.test(lower)) return 'link-local';
  if (/^f[cd]/.test(lower)) return 'private';
  return 'public';
}

function classifyIPv4(address: string): AddressKind {
  const [a, b] = address.split('.').map(Number);
  if (address === '169.254.169.254' || address === '169.254.170.2') return 'metadata';
  if (a === 169 && b === 254) return 'link-local';
  if (a === 127) return 'loopback';
  if (a === 0) return 'unspecified';
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127)) return 'private';
  return 'public';
}

/** The IPv4 address inside an IPv4-mapped (or IPv4-compatible) IPv6 address, dotted or hex (`::ffff:a00:1`). */
function embeddedIPv4(address: string): string | undefined {
  const dotted = /^::(?:ffff:)?(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (dotted) return dotted[1];
  const hex = /^::(?:ffff:)?([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return undefined;
  const high = parseInt(hex[1], 16);
  const low = parseInt(hex[2], 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}
