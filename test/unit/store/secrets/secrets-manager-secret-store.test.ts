import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SecretStoreError } from '../../../../shared/store/secrets/secret-store.js';
import { DEFAULT_SECRET_NAME_PREFIX, SecretsManagerSecretStore, secretNamePrefix } from '../../../../shared/store/secrets/secrets-manager-secret-store.js';

/**
 * A Secrets Manager stand-in speaking the real wire protocol (awsJson1_1: POST /, `X-Amz-Target:
 * secretsmanager.<Operation>`, errors as `{"__type": …}`), so the store is exercised through the real AWS SDK.
 */
interface Call {
  operation: string;
  body: Record<string, unknown>;
}

const SENTINEL = 'sk-sm-sentinel-41b7e0d2';
const secrets = new Map<string, string>();
const calls: Call[] = [];
let failWith: string | undefined;
let server: Server;
let endpoint: string;

function reply(response: import('node:http').ServerResponse, status: number, payload: unknown, errorType?: string): void {
  const headers: Record<string, string> = { 'content-type': 'application/x-amz-json-1.1' };
  if (errorType) headers['x-amzn-errortype'] = errorType;
  response.writeHead(status, headers);
  response.end(JSON.stringify(payload));
}

beforeAll(async () => {
  server = createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => {
      const operation = String(request.headers['x-amz-target'] ?? '').replace('secretsmanager.', '');
      const body = JSON.parse(Buffer.concat(parts).toString('utf8') || '{}') as Record<string, unknown>;
      calls.push({ operation, body });
      const notFound = () => reply(response, 400, { __type: 'ResourceNotFoundException', message: "Secrets Manager can't find the specified secret." }, 'ResourceNotFoundException');
      if (failWith) return reply(response, 400, { __type: failWith, message: `denied: ${JSON.stringify(body)}` }, failWith);
      const arn = (name: string) => `arn:aws:secretsmanager:us-east-1:123456789012:secret:${name}-AbCdEf`;
      switch (operation) {
        case 'CreateSecret': {
          const name = body.Name as string;
          if (secrets.has(name)) return reply(response, 400, { __type: 'ResourceExistsException', message: 'exists' }, 'ResourceExistsException');
          secrets.set(name, body.SecretString as string);
          return reply(response, 200, { ARN: arn(name), Name: name, VersionId: 'v1' });
        }
        case 'PutSecretValue': {
          const name = body.SecretId as string;
          if (!secrets.has(name)) return notFound();
          secrets.set(name, body.SecretString as string);
          return reply(response, 200, { ARN: arn(name), Name: name, VersionId: 'v2' });
        }
        case 'GetSecretValue': {
          const name = body.SecretId as string;
          if (!secrets.has(name)) return notFound();
          return reply(response, 200, { ARN: arn(name), Name: name, SecretString: secrets.get(name), VersionId: 'v1', CreatedDate: 1_700_000_000 });
        }
        case 'DeleteSecret': {
          const name = body.SecretId as string;
          if (!secrets.delete(name)) return notFound();
          return reply(response, 200, { ARN: arn(name), Name: name, DeletionDate: 1_700_000_000 });
        }
        default:
          return reply(response, 400, { __type: 'InvalidRequestException', message: `unexpected ${operation}` }, 'InvalidRequestException');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  secrets.clear();
  calls.length = 0;
  failWith = undefined;
});

const newStore = () => new SecretsManagerSecretStore({ region: 'us-east-1', endpoint });

describe('SecretsManagerSecretStore', () => {
  it('creates secrets under the default gw/ prefix and reads them back', async () => {
    const store = newStore();
    await store.put('virtual-keys/ws-1/vk-1', SENTINEL);
    expect(DEFAULT_SECRET_NAME_PREFIX).toBe('gw/');
    expect(calls[0]).toMatchObject({ operation: 'CreateSecret', body: { Name: 'gw/virtual-keys/ws-1/vk-1', SecretString: SENTINEL } });
    expect(await store.get('virtual-keys/ws-1/vk-1')).toBe(SENTINEL);
    expect(calls[1]).toMatchObject({ operation: 'GetSecretValue', body: { SecretId: 'gw/virtual-keys/ws-1/vk-1' } });
  });

  it("puts every name under the stack's prefix, so two stacks never share a secret", async () => {
    const staging = new SecretsManagerSecretStore({ region: 'us-east-1', endpoint, prefix: secretNamePrefix('gw-staging') });
    const production = new SecretsManagerSecretStore({ region: 'us-east-1', endpoint, prefix: secretNamePrefix('gw-prod') });
    await staging.put('virtual-keys/ws-1/vk-1', 'staging-value');
    await production.put('virtual-keys/ws-1/vk-1', SENTINEL);
    expect(calls.map((call) => call.body.Name)).toEqual(['gw-staging/virtual-keys/ws-1/vk-1', 'gw-prod/virtual-keys/ws-1/vk-1']);
    expect(await staging.get('virtual-keys/ws-1/vk-1')).toBe('staging-value');
    expect(await production.get('virtual-keys/ws-1/vk-1')).toBe(SENTINEL);
  });

  it('encrypts new secrets with the configured KMS key', async () => {
    const kmsKeyId = 'arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
    await new SecretsManagerSecretStore({ region: 'us-east-1', endpoint, kmsKeyId }).put('virtual-keys/ws-1/vk-2', SENTINEL);
    expect(calls[0]).toMatchObject({ operation: 'CreateSecret', body: { Name: 'gw/virtual-keys/ws-1/vk-2', KmsKeyId: kmsKeyId } });
    await newStore().put('virtual-keys/ws-1/vk-3', SENTINEL);
    expect(calls[1].body).not.toHaveProperty('KmsKeyId');
  });

  it('replaces an existing secret with PutSecretValue after CreateSecret reports it exists', async () => {
    const store = newStore();
    await store.put('virtual-keys/ws-1/vk-1', 'first');
    await store.put('virtual-keys/ws-1/vk-1', SENTINEL);
    expect(calls.map((call) => call.operation)).toEqual(['CreateSecret', 'CreateSecret', 'PutSecretValue']);
    expect(secrets.get('gw/virtual-keys/ws-1/vk-1')).toBe(SENTINEL);
  });

  it('reports a missing secret as undefined', async () => {
    expect(await newStore().get('virtual-keys/ws-1/none')).toBeUndefined();
  });

  it('deletes without a recovery window, and deleting a missing secret is not an error', async () => {
    const store = newStore();
    await store.put('virtual-keys/ws-1/vk-1', SENTINEL);
    await store.delete('virtual-keys/ws-1/vk-1');
    expect(calls.at(-1)).toMatchObject({ operation: 'DeleteSecret', body: { SecretId: 'gw/virtual-keys/ws-1/vk-1', ForceDeleteWithoutRecovery: true } });
    expect(secrets.size).toBe(0);
    await expect(store.delete('virtual-keys/ws-1/vk-1')).resolves.toBeUndefined();
  });

  it('turns other service errors into a SecretStoreError naming only the error type, never the value', async () => {
    failWith = 'AccessDeniedException';
    const store = newStore();
    const failure = await store.put('virtual-keys/ws-1/vk-1', SENTINEL).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SecretStoreError);
    expect((failure as SecretStoreError).message).toBe("Secrets Manager put of 'gw/virtual-keys/ws-1/vk-1' failed: AccessDeniedException");
    expect(JSON.stringify(failure)).not.toContain(SENTINEL);
    expect((failure as Error).cause).toBeUndefined();
    await expect(store.get('virtual-keys/ws-1/vk-1')).rejects.toThrow(/get of 'gw\/virtual-keys\/ws-1\/vk-1' failed: AccessDeniedException/);
  });

  it('refuses names outside the Secrets Manager alphabet before any call', async () => {
    await expect(newStore().put('../x', SENTINEL)).rejects.toThrow(SecretStoreError);
    expect(calls).toHaveLength(0);
  });
});
