import { describe, expect, it } from 'vitest';
import { ApiKeyAuthenticator } from '../../../shared/auth/authenticate.js';
import { hashApiKey } from '../../../shared/auth/api-key-secrets.js';
import { AuthenticationError } from '../../../shared/auth/authentication-error.js';
import type { ApiKeyRecord, ApiKeyRepository } from '../../../shared/store/api-key-repository.js';

const RAW = 'gwk_unit_test_key_0123456789abcdef';

/** A repository that counts lookups and serves whatever record the test puts in it. */
function repository(record: ApiKeyRecord | undefined) {
  const state = { record, lookups: 0 };
  const stub = {
    findByHash: async (hash: string) => {
      state.lookups++;
      return state.record && state.record.key_hash === hash ? { ...state.record } : undefined;
    },
  } as unknown as ApiKeyRepository;
  return { state, stub };
}

const record = (overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({
  id: 'key-1',
  key_hash: hashApiKey(RAW),
  masked: 'gwk_unit…cdef',
  name: 'unit',
  kind: 'workspace',
  type: 'service',
  organisation_id: 'org-1',
  workspace_id: 'ws-1',
  scopes: ['api_keys:read'],
  status: 'active',
  created_at: '2026-01-01T00:00:00Z',
  ...overrides,
});

describe('ApiKeyAuthenticator', () => {
  it('checks expiry against the clock on every call, even from the cache', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const { state, stub } = repository(record({ expires_at: '2026-01-01T00:01:00Z' }));
    const authenticator = new ApiKeyAuthenticator(stub, () => now);
    expect((await authenticator.authenticate(RAW)).keyId).toBe('key-1');
    now = Date.parse('2026-01-01T00:01:00Z');
    const error = await authenticator.authenticate(RAW).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).code).toBe('api_key_expired');
    expect((error as AuthenticationError).caller).toEqual({ method: 'api_key', organisationId: 'org-1', workspaceId: 'ws-1', actorId: 'key-1' });
    expect(state.lookups).toBe(1);
  });

  it('sees a change at once after forgetEverywhere, in every authenticator of the process', async () => {
    const { state, stub } = repository(record());
    const gatewaySide = new ApiKeyAuthenticator(stub);
    const controlPlaneSide = new ApiKeyAuthenticator(stub);
    await gatewaySide.authenticate(RAW);
    await controlPlaneSide.authenticate(RAW);
    state.record = record({ status: 'revoked' });
    expect((await gatewaySide.authenticate(RAW)).keyId).toBe('key-1');
    ApiKeyAuthenticator.forgetEverywhere(hashApiKey(RAW));
    for (const authenticator of [gatewaySide, controlPlaneSide]) {
      const error = (await authenticator.authenticate(RAW).catch((thrown: unknown) => thrown)) as AuthenticationError;
      expect(error.code).toBe('api_key_revoked');
    }
  });

  it('keeps its error codes and statuses for missing and unknown keys', async () => {
    const authenticator = new ApiKeyAuthenticator(repository(undefined).stub);
    const missing = (await authenticator.authenticate(undefined).catch((thrown: unknown) => thrown)) as AuthenticationError;
    expect([missing.status, missing.code]).toEqual([401, 'api_key_missing']);
    const unknown = (await authenticator.authenticate('gwk_nope').catch((thrown: unknown) => thrown)) as AuthenticationError;
    expect([unknown.status, unknown.code, unknown.caller]).toEqual([401, 'api_key_invalid', { method: 'api_key' }]);
  });
});
