import { hashApiKey, isGatewayKeyShaped } from '../auth/api-key-secrets.js';
import { credentialFieldsOf, pathText } from '../gateway/config/credential-fields.js';
import { badRequest } from '../http/errors.js';
import { ApiKeyRepository } from '../store/api-key-repository.js';

/** A credential a body would store, and how the answer names its place (`credential`, `config.targets[0].api_key`). */
export interface StoredCredentialField {
  param: string;
  value: unknown;
}

// Longer values are no gw key (the authenticator refuses them too); no need to hash a 16 KB service account.
const MAX_KEY_LENGTH = 256;

let repository: ApiKeyRepository | undefined;

/**
 * gw's own API keys never go upstream (docs/security.md, "gw's key is never a provider key"): a gw key — any
 * workspace's, any status — stored as a provider credential would be sent to the provider on every call. So
 * every place that stores one (virtual keys, saved configs, deployments, integrations, MCP servers) refuses it
 * at creation and on update, before anything is written: 400 `gateway_key_as_credential` naming the field, and
 * never the value. A gw key is one with gw's prefix (no lookup) or whose SHA-256 is in the key table (a chosen
 * GW_BOOTSTRAP_API_KEY has no prefix). Writes are rare, so the lookup is not cached.
 */
export async function refuseGatewayKeyCredentials(fields: ReadonlyArray<StoredCredentialField>): Promise<void> {
  for (const { param, value } of fields) {
    if (typeof value !== 'string' || value.length === 0 || value.length > MAX_KEY_LENGTH) continue;
    if (isGatewayKeyShaped(value) || (await isIssuedKey(value))) {
      throw badRequest(
        'gateway_key_as_credential',
        `${param}: this is a gw API key, and gw's own keys are never sent to a provider; store the provider's own credential here`,
        param,
      );
    }
  }
}

/** The credential fields of a config body (at any depth of its target tree), named as the answer names them. */
export function configCredentialFields(config: unknown, prefix = 'config'): StoredCredentialField[] {
  return credentialFieldsOf(config).map(({ path, value }) => ({ param: `${prefix}.${pathText(path)}`, value }));
}

async function isIssuedKey(value: string): Promise<boolean> {
  repository ??= new ApiKeyRepository();
  return (await repository.findByHash(hashApiKey(value))) !== undefined;
}
