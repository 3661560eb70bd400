import { describe, expect, it } from 'vitest';
import { assertStoredCredentialHost, isWithinBaseUrl, type StoredCredential } from '../../../shared/gateway/stored-credential-host.js';
import { GatewayError } from '../../../shared/http/errors.js';

// Endpoint binding of stored credentials (docs/security.md, "Stored credentials and hosts"): a caller-named host
// must be the stored base URL (origin and path prefix) or lie below it, whatever spelling tricks it uses.
const BOUND = 'https://proxy.example.com/acct1';

describe('endpoint binding of stored credentials: prefix tricks', () => {
  it('matches the base URL itself and paths below it, in any spelling of the same origin', () => {
    for (const url of [
      'https://proxy.example.com/acct1',
      'https://proxy.example.com/acct1/',
      'https://proxy.example.com/acct1/v1/messages',
      'HTTPS://PROXY.EXAMPLE.COM/acct1/v1',
      'https://proxy.example.com:443/acct1',
      'https://proxy.example.com/acct1/x/../v1',
    ]) {
      expect(isWithinBaseUrl(url, BOUND), url).toBe(true);
    }
    expect(isWithinBaseUrl('https://proxy.example.com/acct1/v1', 'https://proxy.example.com/acct1/')).toBe(true);
  });

  it('refuses a sibling prefix, traversals (plain, encoded, backslashed), userinfo, another port or scheme, and path case', () => {
    for (const url of [
      'https://proxy.example.com/acct10',
      'https://proxy.example.com/acct1-other/v1',
      'https://proxy.example.com/acct1/../acct2',
      'https://proxy.example.com/acct1/%2e%2e/acct2',
      'https://proxy.example.com/acct1/.%2E/acct2',
      'https://proxy.example.com/acct1/..%2facct2',
      'https://proxy.example.com/acct1%2F..%2Facct2',
      'https://proxy.example.com/acct1/..%5cacct2',
      'https://proxy.example.com/acct1\\..\\acct2',
      'https://proxy.example.com@evil.example/acct1',
      'https://evil.example@proxy.example.com/acct1',
      'https://user:pass@proxy.example.com/acct1',
      'https://proxy.example.com:8443/acct1',
      'http://proxy.example.com/acct1',
      'https://proxy.example.com/ACCT1',
      'https://proxy.example.com',
      'not a url',
    ]) {
      expect(isWithinBaseUrl(url, BOUND), url).toBe(false);
    }
  });

  it('refuses a caller-named host outside the stored base URL and its allow-list, naming the base URL only', () => {
    const key: StoredCredential = { resource: 'virtual key "vk-1"', hosts: [BOUND], allowedHosts: ['https://other.example.com/tenant-7'] };
    expect(() => assertStoredCredentialHost(key, 'https://other.example.com/tenant-7/v1', undefined)).not.toThrow();
    let refused: GatewayError | undefined;
    try {
      assertStoredCredentialHost(key, 'https://proxy.example.com/acct10/v1', undefined);
    } catch (error) {
      refused = error as GatewayError;
    }
    expect(refused).toMatchObject({ status: 400, code: 'stored_credential_custom_host', param: 'x-gw-custom-host' });
    expect(refused?.message).toContain('https://proxy.example.com/acct10/v1');
  });
});
