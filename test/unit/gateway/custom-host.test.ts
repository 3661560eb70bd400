import { describe, expect, it } from 'vitest';
import { validateCustomHost, addressRefusal } from '../../../shared/gateway/custom-host.js';

const strict = { allowLoopback: false, allowPrivate: false };
const local = { allowLoopback: true, allowPrivate: false };

describe('custom host rules', () => {
  it('accepts public http(s) base URLs and drops the trailing slash', () => {
    expect(validateCustomHost('https://llm.example.com/v1/', strict)).toBe('https://llm.example.com/v1');
  });

  it.each([
    ['ftp://example.com', 'must use http or https'],
    ['not a url', 'absolute http(s) URL'],
    ['https://user:pw@example.com', 'must not carry credentials'],
    ['https://example.com/v1?x=1', 'no query string'],
    ['http://169.254.169.254/latest', 'always refused'],
    ['http://[fd00:ec2::254]/', 'always refused'],
    ['http://metadata.google.internal/', 'always refused'],
    ['http://169.254.10.1/', 'always refused'],
    ['http://127.0.0.1:8080', 'loopback'],
    ['http://localhost:8080', 'loopback'],
    ['http://10.1.2.3', 'private-range'],
    ['http://192.168.1.10', 'private-range'],
    ['http://[::ffff:10.0.0.1]/', 'private-range'],
  ])('refuses %s', (url, reason) => {
    expect(() => validateCustomHost(url, strict)).toThrow(reason);
  });

  it('a host remembered as accepted under loose rules is still refused under strict ones (the memo keys on the rules)', () => {
    expect(validateCustomHost('http://127.0.0.1:9/v1/', local)).toBe('http://127.0.0.1:9/v1');
    expect(validateCustomHost('http://127.0.0.1:9/v1/', local)).toBe('http://127.0.0.1:9/v1');
    expect(() => validateCustomHost('http://127.0.0.1:9/v1/', strict)).toThrow('loopback');
    expect(() => validateCustomHost('http://127.0.0.1:9/v1/', strict)).toThrow('loopback');
  });

  it('allows loopback only where the setting allows it, never metadata addresses', () => {
    expect(validateCustomHost('http://127.0.0.1:11434/v1', local)).toBe('http://127.0.0.1:11434/v1');
    expect(addressRefusal('169.254.169.254', { allowLoopback: true, allowPrivate: true })).toMatch(/always refused/);
    expect(addressRefusal('8.8.8.8', strict)).toBeUndefined();
  });
});
