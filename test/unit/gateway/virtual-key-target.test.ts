import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../shared/http/errors.js';
import type { SecretStore } from '../../../shared/store/secrets/secret-store.js';
import { SecretStoreError } from '../../../shared/store/secrets/secret-store.js';
import { virtualKeySecretName, type VirtualKeyRecord, type VirtualKeySecret } from '../../../shared/store/virtual-key-repository.js';
import { toTargetSettings, VirtualKeyResolver } from '../../../shared/gateway/virtual-key-target.js';

const record = (overrides: Partial<VirtualKeyRecord> = {}): VirtualKeyRecord => ({
  id: 'vk-1',
  organisation_id: 'org',
  workspace_id: 'ws-1',
  name: 'key',
  provider: 'openai',
  secret_fields: ['api_key'],
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  ...overrides,
});

/** An in-memory store and repository that count their reads. */
function fixtures(secret: VirtualKeySecret | null = { api_key: 'sk-one' }) {
  const secrets = new Map<string, string>();
  if (secret) secrets.set(virtualKeySecretName('ws-1', 'vk-1'), JSON.stringify(secret));
  const reads = { records: 0, secrets: 0 };
  const store: SecretStore = {
    put: async (name, value) => void secrets.set(name, value),
    get: async (name) => {
      reads.secrets++;
      return secrets.get(name);
    },
    delete: async (name) => void secrets.delete(name),
  };
  const records = new Map([['ws-1/vk-1', record()]]);
  const repository = {
    get: async (workspaceId: string, id: string) => {
      reads.records++;
      return records.get(`${workspaceId}/${id}`);
    },
  };
  let now = 1_000_000;
  const clock = { now: () => now, advance: (ms: number) => (now += ms) };
  return { store, secrets, records, repository, reads, clock };
}

describe('toTargetSettings', () => {
  it('maps stored settings and secrets onto the provider target fields', () => {
    expect(toTargetSettings(record({ custom_host: 'https://h.example/v1' }), { api_key: 'sk' })).toEqual({ apiKey: 'sk', customHost: 'https://h.example/v1' });
    expect(
      toTargetSettings(record({ provider: 'azure-openai', azure: { resource_name: 'r', deployment_id: 'd', api_version: '2024-10-21' } }), { api_key: 'k' }),
    ).toEqual({ apiKey: 'k', azure: { resourceName: 'r', deploymentId: 'd', apiVersion: '2024-10-21' } });
    expect(toTargetSettings(record({ provider: 'vertex-ai', vertex: { project_id: 'p-123456', region: 'us-central1' } }), { vertex_service_account_json: '{"type":"service_account"}' })).toEqual({
      vertex: { projectId: 'p-123456', region: 'us-central1', serviceAccountJson: '{"type":"service_account"}' },
    });
    expect(
      toTargetSettings(record({ provider: 'bedrock', aws: { region: 'eu-west-1' } }), { aws_access_key_id: 'AKIA', aws_secret_access_key: 'secret', aws_session_token: 'token' }),
    ).toEqual({ aws: { accessKeyId: 'AKIA', secretAccessKey: 'secret', sessionToken: 'token', region: 'eu-west-1' } });
  });

  it('carries a Bedrock key\'s role to assume, with no stored credential', () => {
    const role = 'arn:aws:iam::123456789012:role/gw-bedrock-team-a';
    expect(toTargetSettings(record({ provider: 'bedrock', secret_fields: [], aws: { role_arn: role, external_id: 'ext-1', region: 'us-west-2' } }), {})).toEqual({
      aws: { region: 'us-west-2', role: { roleArn: role, externalId: 'ext-1' } },
    });
  });
});

describe('VirtualKeyResolver', () => {
  it('caches a resolved key for the TTL, then refreshes the (rotated) credential in the background', async () => {
    const { store, secrets, repository, reads, clock } = fixtures();
    const resolver = new VirtualKeyResolver(repository, () => store, () => 30_000, clock.now);
    expect((await resolver.resolve('ws-1', 'vk-1')).settings.apiKey).toBe('sk-one');
    secrets.set(virtualKeySecretName('ws-1', 'vk-1'), JSON.stringify({ api_key: 'sk-two' }));
    clock.advance(29_999);
    expect((await resolver.resolve('ws-1', 'vk-1')).settings.apiKey).toBe('sk-one');
    expect(reads).toEqual({ records: 1, secrets: 1 });
    clock.advance(1);
    // Past the TTL the old credential answers once more while one background read fetches the rotated one.
    expect((await resolver.resolve('ws-1', 'vk-1')).settings.apiKey).toBe('sk-one');
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect((await resolver.resolve('ws-1', 'vk-1')).settings.apiKey).toBe('sk-two');
    expect(reads).toEqual({ records: 2, secrets: 2 });
  });

  it('does not cache at all with a TTL of 0, and never caches an unknown key', async () => {
    const { store, records, repository, reads, clock } = fixtures();
    const resolver = new VirtualKeyResolver(repository, () => store, () => 0, clock.now);
    await resolver.resolve('ws-1', 'vk-1');
    await resolver.resolve('ws-1', 'vk-1');
    expect(reads.records).toBe(2);
    records.delete('ws-1/vk-1');
    const cached = new VirtualKeyResolver(repository, () => store, () => 30_000, clock.now);
    await expect(cached.resolve('ws-1', 'vk-1')).rejects.toMatchObject({ status: 400, code: 'virtual_key_not_found' });
    records.set('ws-1/vk-1', record());
    expect((await cached.resolve('ws-1', 'vk-1')).provider).toBe('openai');
  });

  it('scopes keys by workspace: the same id in another workspace is not found', async () => {
    const { store, repository, clock } = fixtures();
    const resolver = new VirtualKeyResolver(repository, () => store, () => 30_000, clock.now);
    await resolver.resolve('ws-1', 'vk-1');
    const error = await resolver.resolve('ws-2', 'vk-1').catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ status: 400, code: 'virtual_key_not_found', param: 'x-gw-virtual-key' });
  });

  it('refuses a malformed id without reading the table', async () => {
    const { store, repository, reads, clock } = fixtures();
    const resolver = new VirtualKeyResolver(repository, () => store, () => 30_000, clock.now);
    await expect(resolver.resolve('ws-1', '../../etc')).rejects.toMatchObject({ code: 'virtual_key_not_found' });
    expect(reads.records).toBe(0);
  });

  it('answers 503 when the secret store fails and 500 when the credential is gone', async () => {
    const { repository, clock } = fixtures();
    const failing: SecretStore = {
      put: async () => undefined,
      delete: async () => undefined,
      get: async () => {
        throw new SecretStoreError('Secrets Manager get failed: ThrottlingException', 'get');
      },
    };
    await expect(new VirtualKeyResolver(repository, () => failing, () => 0, clock.now).resolve('ws-1', 'vk-1')).rejects.toMatchObject({
      status: 503,
      code: 'secret_store_unavailable',
    });
    const empty = fixtures(null);
    await expect(new VirtualKeyResolver(empty.repository, () => empty.store, () => 0, clock.now).resolve('ws-1', 'vk-1')).rejects.toMatchObject({
      status: 500,
      code: 'virtual_key_credential_missing',
    });
  });
});
