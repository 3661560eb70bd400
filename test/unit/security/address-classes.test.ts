import { describe, expect, it } from 'vitest';
import { classifyAddress, type AddressClass } from '../../../shared/gateway/address-classes.js';
import { addressRefusal, normaliseHostname, validateCustomHost } from '../../../shared/gateway/custom-host.js';

/**
 * Every class of the IANA special-purpose registries the custom-host rules know, checked twice: at validation
 * (an IP literal in x-gw-custom-host / a config / a virtual key) and at connect time (addressRefusal is what the
 * upstream agent's DNS lookup applies to every address a name resolves to).
 */
const strict = { allowLoopback: false, allowPrivate: false };
const open = { allowLoopback: true, allowPrivate: true };

const TABLE: Array<[address: string, kind: AddressClass, note: string]> = [
  ['8.8.8.8', 'public', 'global unicast'],
  ['2606:4700:4700::1111', 'public', 'global unicast IPv6'],
  ['0.0.0.0', 'unspecified', 'this host'],
  ['0.1.2.3', 'unspecified', '0.0.0.0/8 this network'],
  ['::', 'unspecified', 'IPv6 unspecified'],
  ['127.0.0.1', 'loopback', 'IPv4 loopback'],
  ['127.255.0.9', 'loopback', 'all of 127/8'],
  ['::1', 'loopback', 'IPv6 loopback'],
  ['10.0.0.1', 'private', 'RFC 1918 10/8'],
  ['172.16.5.4', 'private', 'RFC 1918 172.16/12'],
  ['192.168.1.1', 'private', 'RFC 1918 192.168/16'],
  ['100.64.0.1', 'private', 'shared address space 100.64/10'],
  ['fc00::1', 'private', 'unique local fc00::/7'],
  ['fd12:3456::1', 'private', 'unique local fd00::/8'],
  ['fec0::1', 'private', 'deprecated site-local'],
  ['169.254.169.254', 'metadata', 'AWS IMDS'],
  ['169.254.170.2', 'metadata', 'ECS task metadata'],
  ['fd00:ec2::254', 'metadata', 'AWS IMDS over IPv6'],
  ['169.254.1.1', 'link-local', 'IPv4 link-local'],
  ['fe80::1', 'link-local', 'IPv6 link-local fe80::/10'],
  ['febf::1', 'link-local', 'top of fe80::/10'],
  ['224.0.0.1', 'multicast', 'IPv4 multicast'],
  ['239.255.255.250', 'multicast', 'SSDP'],
  ['ff02::1', 'multicast', 'IPv6 multicast'],
  ['255.255.255.255', 'broadcast', 'limited broadcast'],
  ['192.0.2.10', 'reserved', 'documentation TEST-NET-1'],
  ['198.51.100.10', 'reserved', 'documentation TEST-NET-2'],
  ['203.0.113.10', 'reserved', 'documentation TEST-NET-3'],
  ['2001:db8::1', 'reserved', 'IPv6 documentation'],
  ['198.18.0.1', 'reserved', 'benchmarking 198.18/15'],
  ['2001:2::1', 'reserved', 'IPv6 benchmarking'],
  ['240.0.0.1', 'reserved', 'reserved 240/4'],
  ['192.0.0.8', 'reserved', 'IETF protocol assignments'],
  ['100::1', 'reserved', 'discard-only'],
  ['::ffff:127.0.0.1', 'loopback', 'IPv4-mapped loopback'],
  ['::ffff:a9fe:a9fe', 'metadata', 'IPv4-mapped metadata, hex form'],
  ['::ffff:10.0.0.1', 'private', 'IPv4-mapped private'],
  ['::ffff:8.8.8.8', 'public', 'IPv4-mapped public'],
  ['::ffff:0:127.0.0.1', 'loopback', 'IPv4-translated ::ffff:0:0:0/96'],
  ['::ffff:0:a9fe:a9fe', 'metadata', 'IPv4-translated metadata'],
  ['64:ff9b::a9fe:a9fe', 'metadata', 'NAT64 64:ff9b::/96 of the metadata address'],
  ['64:ff9b::7f00:1', 'loopback', 'NAT64 of loopback'],
  ['64:ff9b::808:808', 'public', 'NAT64 of a public address'],
  ['64:ff9b:1::808:808', 'private', 'local-use NAT64 64:ff9b:1::/48'],
  ['2002:a9fe:a9fe::1', 'metadata', '6to4 of the metadata address'],
  ['2002:808:808::1', 'public', '6to4 of a public address'],
  ['2001:0:808:808::80ff:fefe', 'loopback', 'Teredo with a loopback client'],
  ['::7f00:1', 'loopback', 'deprecated IPv4-compatible ::a.b.c.d'],
];

const ALWAYS_REFUSED: AddressClass[] = ['metadata', 'link-local', 'unspecified', 'multicast', 'broadcast', 'reserved'];

describe('address classes', () => {
  it.each(TABLE)('%s is %s (%s)', (address, kind) => {
    expect(classifyAddress(address).kind).toBe(kind);
  });

  it.each(TABLE)('connect time: %s (%s) is refused or allowed by its class', (address, kind) => {
    const refusedStrict = addressRefusal(address, strict);
    const refusedOpen = addressRefusal(address, open);
    if (kind === 'public') {
      expect(refusedStrict).toBeUndefined();
      expect(refusedOpen).toBeUndefined();
    } else if (ALWAYS_REFUSED.includes(kind)) {
      expect(refusedStrict).toMatch(/always refused/);
      expect(refusedOpen).toMatch(/always refused/);
    } else {
      expect(refusedStrict).toMatch(kind === 'loopback' ? /loopback/ : /private-range/);
      expect(refusedOpen).toBeUndefined();
    }
  });

  it.each(TABLE)('validation: http://%s as a custom host follows its class (%s)', (address, kind) => {
    const url = `http://${address.includes(':') ? `[${address}]` : address}:8080/v1`;
    if (kind === 'public') expect(validateCustomHost(url, strict)).toMatch(/^http:\/\//);
    else expect(() => validateCustomHost(url, strict)).toThrow(/not allowed/);
    if (ALWAYS_REFUSED.includes(kind)) expect(() => validateCustomHost(url, open)).toThrow(/always refused/);
    else expect(validateCustomHost(url, open)).toMatch(/^http:\/\//);
  });
});

describe('host names are normalised before the name checks', () => {
  it.each([
    ['http://localhost./v1', /loopback/],
    ['http://LOCALHOST/v1', /loopback/],
    ['http://api.localhost../v1', /loopback/],
    ['http://metadata.google.internal./computeMetadata', /always refused/],
    ['http://Metadata.Google.Internal/', /always refused/],
    ['http://metadata./', /always refused/],
    ['http://instance-data/', /always refused/],
    ['http://xn--ls8h.internal/', /always refused/],
    ['http://127.0.0.1./', /loopback/],
    ['http://0x7f.1/', /loopback/],
    ['http://2130706433/', /loopback/],
    ['http://[::ffff:169.254.169.254]/', /always refused/],
  ])('refuses %s', (url, reason) => {
    expect(() => validateCustomHost(url, strict)).toThrow(reason);
  });

  it('lower-cases, strips trailing dots and turns IDNs into punycode', () => {
    expect(normaliseHostname('LocalHost.')).toBe('localhost');
    expect(normaliseHostname('bücher.example.')).toBe('xn--bcher-kva.example');
    expect(normaliseHostname('[::1]')).toBe('::1');
    expect(validateCustomHost('https://LLM.Example.com./v1', strict)).toBe('https://llm.example.com./v1');
  });
});
