import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../shared/http/errors.js';
import { assertStoredCredentialCoordinates, type StoredCredential } from '../../../shared/gateway/stored-credential-host.js';

// The Azure resource name picks the host of a stored Azure key; regions of Vertex and Bedrock stay on the
// provider's own API (docs/security.md, "Stored credentials and hosts").
const key: StoredCredential = { resource: 'virtual key "vk-1"', hosts: ['https://home-res.openai.azure.com'], allowedHosts: ['https://allowed-res.openai.azure.com'] };

function refusal(run: () => void): GatewayError | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return error as GatewayError;
  }
}

describe('assertStoredCredentialCoordinates', () => {
  it('lets a stored Azure key go to its own resource (in any case), or one its owner allow-listed', () => {
    for (const resourceName of ['home-res', 'HOME-RES', 'allowed-res']) {
      expect(refusal(() => assertStoredCredentialCoordinates(key, 'azure-openai', { resourceName }, undefined))).toBeUndefined();
    }
  });

  it('refuses another resource chosen by the caller or another stored resource, with the custom-host code', () => {
    const byCaller = refusal(() => assertStoredCredentialCoordinates(key, 'azure-openai', { resourceName: 'other' }, undefined));
    expect({ status: byCaller?.status, code: byCaller?.code, param: byCaller?.param }).toEqual({ status: 400, code: 'stored_credential_custom_host', param: 'x-gw-azure-resource-name' });
    expect(byCaller?.message).toContain('https://other.openai.azure.com');
    const byConfig = refusal(() => assertStoredCredentialCoordinates(key, 'azure-openai', { resourceName: 'other' }, 'saved config "c-1"'));
    expect(byConfig?.message).toContain('saved config "c-1" names the host');
  });

  it('lets the resource that holds the credential choose its own resource', () => {
    expect(refusal(() => assertStoredCredentialCoordinates(key, 'azure-openai', { resourceName: 'other' }, 'virtual key "vk-1"'))).toBeUndefined();
  });

  it('checks nothing for the caller’s own credential, or for providers whose coordinates stay on their own API', () => {
    expect(refusal(() => assertStoredCredentialCoordinates(undefined, 'azure-openai', { resourceName: 'other' }, undefined))).toBeUndefined();
    for (const provider of ['vertex-ai', 'bedrock', 'openai']) {
      expect(refusal(() => assertStoredCredentialCoordinates(key, provider, { resourceName: 'other' }, undefined))).toBeUndefined();
    }
  });

  it('takes resource names only: a dot cannot move the host to another domain', () => {
    for (const resourceName of ['evil.example.com#', 'a.b', 'x/y']) {
      const error = refusal(() => assertStoredCredentialCoordinates(undefined, 'azure-openai', { resourceName }, undefined));
      expect(error, resourceName).toBeUndefined();
      const stored = refusal(() => assertStoredCredentialCoordinates(key, 'azure-openai', { resourceName }, undefined));
      expect({ status: stored?.status, code: stored?.code }).toEqual({ status: 400, code: 'invalid_azure_resource' });
    }
  });
});
