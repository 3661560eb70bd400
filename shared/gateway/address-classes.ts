import ipaddr from 'ipaddr.js';
import { merged } from '../merged.js';

/**
 * Address classes for the custom-host rules, from the IANA IPv4 and IPv6 special-purpose registries as
 * ipaddr.js maintains them. IPv6 forms that carry an IPv4 address (IPv4-mapped, IPv4-translated, NAT64, 6to4,
 * Teredo, the deprecated IPv4-compatible form) are judged by the IPv4 inside, never waved through as "IPv6".
 *
 *   always refused:  metadata, link-local, unspecified, multicast, broadcast, reserved (documentation,
 *                    benchmarking, 240/4, IETF protocol assignments, discard, AS112, AMT, ORCHID, …)
 *   by setting:      loopback (GW_ALLOW_LOOPBACK_HOSTS), private (GW_ALLOW_PRIVATE_HOSTS: RFC 1918,
 *                    100.64/10 shared address space, fc00::/7 unique-local, fec0::/10 site-local, 64:ff9b:1::/48)
 *   allowed:         public
 */
export type AddressClass = 'public' | 'private' | 'loopback' | 'link-local' | 'metadata' | 'unspecified' | 'multicast' | 'broadcast' | 'reserved';

export interface Classified {
  kind: AddressClass;
  /** The registry range it fell in (ipaddr.js's name), for messages and tests. */
  range: string;
}

/** Cloud instance-metadata endpoints (AWS IMDS and ECS task metadata; the IMDS IPv6 address). */
const METADATA_ADDRESSES = new Set(['169.254.169.254', '169.254.170.2', '169.254.170.23', 'fd00:ec2::254', 'fd00:ec2::23']);

const IPV4_CLASSES: Record<string, AddressClass> = {
  unicast: 'public',
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'private',
  private: 'private',
  reserved: 'reserved',
  as112: 'reserved',
  amt: 'reserved',
};

const IPV6_CLASSES: Record<string, AddressClass> = {
  unicast: 'public',
  unspecified: 'unspecified',
  linkLocal: 'link-local',
  multicast: 'multicast',
  loopback: 'loopback',
  uniqueLocal: 'private',
  deprecatedSiteLocal: 'private',
  discard: 'reserved',
  benchmarking: 'reserved',
  amt: 'reserved',
  as112v6: 'reserved',
  deprecatedOrchid: 'reserved',
  orchid2: 'reserved',
  droneRemoteIdProtocolEntityTags: 'reserved',
  segmentRouting: 'reserved',
  reserved: 'reserved',
};

/** From most to least dangerous: when an address carries two IPv4 addresses (Teredo), the worse one counts. */
const SEVERITY: AddressClass[] = ['metadata', 'link-local', 'unspecified', 'broadcast', 'multicast', 'reserved', 'loopback', 'private', 'public'];

function worse(a: Classified, b: Classified): Classified {
  return SEVERITY.indexOf(a.kind) <= SEVERITY.indexOf(b.kind) ? a : b;
}

/** Classifies an IP address literal (no brackets, no zone); anything that is not one is `reserved`. */
export function classifyAddress(address: string): Classified {
  const literal = address.replace(/%.*$/, '');
  if (!ipaddr.isValid(literal)) return { kind: 'reserved', range: 'invalid' };
  const parsed = ipaddr.parse(literal);
  // toString() is the canonical compact form (RFC 5952 for IPv6), so every spelling of an address matches.
  if (METADATA_ADDRESSES.has(parsed.toString())) return { kind: 'metadata', range: 'metadata' };
  if (parsed.kind() === 'ipv4') return classifyIPv4(parsed as ipaddr.IPv4);
  return classifyIPv6(parsed as ipaddr.IPv6);
}

function classifyIPv4(address: ipaddr.IPv4): Classified {
  if (METADATA_ADDRESSES.has(address.toString())) return { kind: 'metadata', range: 'metadata' };
  const range = address.range();
  return { kind: IPV4_CLASSES[range] ?? 'reserved', range };
}

function classifyIPv6(address: ipaddr.IPv6): Classified {
  const range = address.range();
  const parts = address.parts;
  const v4 = (high: number, low: number) => classifyIPv4(new ipaddr.IPv4([high >> 8, high & 255, low >> 8, low & 255]));
  const via = (inner: Classified): Classified => ({ kind: inner.kind, range: `${range}(${inner.range})` });
  switch (range) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d, IPv4-translated
      return via(v4(parts[6], parts[7]));
    case 'rfc6052': {
      // 64:ff9b::/96 is the well-known NAT64 prefix (IPv4 in the last 32 bits); 64:ff9b:1::/48 is for local use:
      // a network's own translator, so at least private whatever it embeds.
      const inner = via(v4(parts[6], parts[7]));
      return parts[2] === 1 ? worse(inner, { kind: 'private', range: 'rfc8215' }) : inner;
    }
    case '6to4': // 2002:AABB:CCDD::/48 routes to a.b.c.d
      return via(v4(parts[1], parts[2]));
    case 'teredo': {
      // 2001:0:SSSS:SSSS:flags:port:CCCC:CCCC, server in clear, client IPv4 inverted.
      return worse(via(v4(parts[2], parts[3])), via(v4(~parts[6] & 0xffff, ~parts[7] & 0xffff)));
    }
    default:
      break;
  }
  // The deprecated IPv4-compatible form ::a.b.c.d (::/96 beyond :: and ::1) still reaches a.b.c.d on some stacks.
  if (range === 'unicast' && parts.slice(0, 6).every((part) => part === 0)) return merged(via(v4(parts[6], parts[7])), { range: `ipv4Compatible(${v4(parts[6], parts[7]).range})` });
  return { kind: IPV6_CLASSES[range] ?? 'reserved', range };
}
