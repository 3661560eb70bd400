import { DependencyUnavailableError } from '../../http/errors.js';

/**
 * The port through which provider credentials are kept. Implementations: AWS Secrets Manager in the cloud
 * (`SecretsManagerSecretStore`) and an AES-256-GCM encrypted file store locally (`LocalFileSecretStore`).
 * Names are relative (`<workspace>/<virtual key>`); each store maps them to its own namespace.
 *
 * Implementations never put a secret value into an error, a log line or an exception message.
 */
export interface SecretStore {
  /** Creates the secret, or replaces its value when it already exists. */
  put(name: string, value: string): Promise<void>;
  /** The secret's value, or undefined when there is no such secret. */
  get(name: string): Promise<string | undefined>;
  /** Removes the secret; removing one that does not exist is not an error. */
  delete(name: string): Promise<void>;
}

/**
 * A store operation failed for a reason other than "not found". Carries no secret material. Wherever one reaches
 * a client it is a 503 `secret_store_unavailable` saying nothing of the secret (toGatewayError).
 */
export class SecretStoreError extends DependencyUnavailableError {
  constructor(
    message: string,
    readonly operation: 'put' | 'get' | 'delete',
    options: { cause?: unknown } = {},
  ) {
    super(message, 'secret_store_unavailable', 'The secret store could not complete the operation; try again later', options);
    this.name = 'SecretStoreError';
  }
}

/** Names are `[A-Za-z0-9/_+=.@-]`, the alphabet Secrets Manager allows, and may not climb out of a directory. */
const SECRET_NAME = /^[A-Za-z0-9_+=.@-]+(\/[A-Za-z0-9_+=.@-]+)*$/;

export function assertSecretName(name: string): void {
  if (name.length === 0 || name.length > 400 || !SECRET_NAME.test(name) || name.split('/').some((part) => part === '.' || part === '..')) {
    throw new SecretStoreError(`Invalid secret name '${name}'`, 'put');
  }
}

/**
 * Every secret gw writes lives under `<GW_SECRET_NAME_PREFIX>/` (the stack sets it to the stack's name), so IAM can
 * grant each stack exactly `<stackName>/*` and two stacks in one account never read each other's credentials.
 * Names below it are the callers' relative names: `virtual-keys/<ws>/<id>`, `config-secrets/…`, `mcp-servers/…`.
 */
export function secretNamePrefix(prefixSetting: string): string {
  return `${prefixSetting}/`;
}

export const DEFAULT_SECRET_NAME_PREFIX = secretNamePrefix('gw');
