import { Agent as HttpsAgent } from 'node:https';
import { Agent as HttpAgent } from 'node:http';
import {
  CreateSecretCommand,
  DeleteSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { recordedClient } from '../recording/sdk-recording-middleware.js';
import { assertSecretName, DEFAULT_SECRET_NAME_PREFIX, SecretStoreError, type SecretStore } from './secret-store.js';
import { traceAwsClient } from '../../observability/tracer.js';

export { DEFAULT_SECRET_NAME_PREFIX, secretNamePrefix } from './secret-store.js';

export interface SecretsManagerSecretStoreOptions {
  region: string;
  /** Another endpoint (VPC endpoint, LocalStack, a test double); AWS's own when absent. */
  endpoint?: string;
  /** Prepended to every name, e.g. `gw/` (secretNamePrefix of GW_SECRET_NAME_PREFIX). */
  prefix?: string;
  /** Customer-managed KMS key for new secrets (GW_SECRETS_KMS_KEY_ID); Secrets Manager's own key when absent. */
  kmsKeyId?: string;
  /** Injected in tests; otherwise one keep-alive client is built from region and endpoint. */
  client?: SecretsManagerClient;
}

/**
 * The SecretStore on AWS Secrets Manager. Deletes skip the recovery window: a deleted virtual key cannot be
 * restored through gw, so keeping its credential around for days would only be a liability.
 */
export class SecretsManagerSecretStore implements SecretStore {
  private readonly client: SecretsManagerClient;
  private readonly prefix: string;
  private readonly kmsKeyId?: string;

  constructor(options: SecretsManagerSecretStoreOptions) {
    this.prefix = options.prefix ?? DEFAULT_SECRET_NAME_PREFIX;
    this.kmsKeyId = options.kmsKeyId;
    // X-Ray subsegments per Secrets Manager call when tracing is on (a no-op elsewhere).
    this.client = traceAwsClient(
      options.client ??
      new SecretsManagerClient({
        region: options.region,
        endpoint: options.endpoint,
        maxAttempts: 3,
        requestHandler: new NodeHttpHandler({
          httpAgent: new HttpAgent({ keepAlive: true }),
          httpsAgent: new HttpsAgent({ keepAlive: true }),
          connectionTimeout: 2_000,
          requestTimeout: 5_000,
        }),
      }),
    );
    // Test-only: records each command's secret name for the grant check (a no-op unless tests switch it on).
    recordedClient(this.client, 'secretsmanager');
  }

  async put(name: string, value: string): Promise<void> {
    const secretId = this.secretId(name);
    try {
      await this.client.send(
        new CreateSecretCommand({ Name: secretId, SecretString: value, Description: 'gw credential', KmsKeyId: this.kmsKeyId }),
      );
      return;
    } catch (error) {
      if (errorName(error) !== 'ResourceExistsException') throw storeError('put', secretId, error);
    }
    try {
      await this.client.send(new PutSecretValueCommand({ SecretId: secretId, SecretString: value }));
    } catch (error) {
      throw storeError('put', secretId, error);
    }
  }

  async get(name: string): Promise<string | undefined> {
    const secretId = this.secretId(name);
    try {
      const result = await this.client.send(new GetSecretValueCommand({ SecretId: secretId }));
      return result.SecretString;
    } catch (error) {
      if (errorName(error) === 'ResourceNotFoundException') return undefined;
      throw storeError('get', secretId, error);
    }
  }

  async delete(name: string): Promise<void> {
    const secretId = this.secretId(name);
    try {
      await this.client.send(new DeleteSecretCommand({ SecretId: secretId, ForceDeleteWithoutRecovery: true }));
    } catch (error) {
      if (errorName(error) === 'ResourceNotFoundException') return;
      throw storeError('delete', secretId, error);
    }
  }

  private secretId(name: string): string {
    assertSecretName(name);
    return this.prefix + name;
  }
}

function errorName(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null ? (error as { name?: string }).name : undefined;
}

/**
 * Only the error's name travels on: AWS SDK errors carry the raw HTTP response, which must never reach a log
 * line next to a request that held a secret.
 */
function storeError(operation: 'put' | 'get' | 'delete', secretId: string, error: unknown): SecretStoreError {
  return new SecretStoreError(`Secrets Manager ${operation} of '${secretId}' failed: ${errorName(error) ?? 'unknown error'}`, operation);
}
