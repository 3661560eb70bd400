import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Principal } from '../../../shared/auth/principal.js';
import { looksLikeUuid, newPolicyId } from '../../../shared/control-plane/policies/policy-id.js';
import { resolveCreationScope } from '../../../shared/control-plane/policies/policy-scope.js';
import {
  createRateLimitPolicySchema,
  createUsageLimitPolicySchema,
  POLICY_KEYS,
  updateRateLimitPolicySchema,
  updateUsageLimitPolicySchema,
} from '../../../shared/control-plane/policies/schemas.js';
import { validate } from '../../../shared/http/json-body.js';
import { GatewayError } from '../../../shared/http/errors.js';
import type { WorkspaceRepository } from '../../../shared/store/workspace-repository.js';

const valid = { conditions: [{ key: 'model', value: 'gpt-4o' }], group_by: [{ key: 'api_key' }], type: 'requests', unit: 'rpm', value: 10 };

/** The 400 that validate() throws, as {param, message}; fails the test when the input is accepted. */
function refusal(schema: Parameters<typeof validate>[0], input: unknown): { param: string | null; message: string; code: string } {
  try {
    validate(schema, input);
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    const { param, message, code, status } = error as GatewayError;
    expect(status).toBe(400);
    return { param, message, code };
  }
  throw new Error(`accepted ${JSON.stringify(input)}`);
}

describe('policy create schemas', () => {
  it('accept the spec payload; usage limits add a credit limit and default the reset to none', () => {
    expect(validate(createRateLimitPolicySchema, valid)).toEqual(valid);
    expect(validate(createUsageLimitPolicySchema, { ...valid, credit_limit: { type: 'cost', value: 2.5 } })).toEqual({
      ...valid,
      credit_limit: { type: 'cost', value: 2.5 },
      periodic_reset: 'none',
    });
  });

  it('accept every allowed key, and metadata.<any key without spaces>', () => {
    for (const key of ['api_key', 'workspace_id', 'virtual_key', 'provider', 'model', 'metadata._user', 'metadata.team-a', 'metadata.ünïcode']) {
      expect(validate(createRateLimitPolicySchema, { ...valid, conditions: [{ key, value: '*' }], group_by: [{ key }] }).conditions[0].key).toBe(key);
    }
  });

  it('refuse any other key, listing the allowed ones', () => {
    const allowed = /^(api_key|workspace_id|virtual_key|provider|model|metadata\.\S{1,128})$/;
    fc.assert(
      fc.property(
        fc.string({ maxLength: 40 }).filter((key) => !allowed.test(key)),
        (key) => {
          const { param, message } = refusal(createRateLimitPolicySchema, { ...valid, group_by: [{ key }] });
          expect(param).toBe('group_by[0].key');
          expect(message).toContain(`allowed keys: ${POLICY_KEYS.join(', ')}`);
        },
      ),
    );
  });

  it('accept any value above 0 and refuse 0 and below', () => {
    fc.assert(
      fc.property(fc.double({ min: Number.MIN_VALUE, max: 1e12, noNaN: true }), (value) => {
        expect(validate(createRateLimitPolicySchema, { ...valid, value }).value).toBe(value);
      }),
    );
    fc.assert(
      fc.property(fc.double({ min: -1e12, max: 0, noNaN: true }), (value) => {
        expect(refusal(createRateLimitPolicySchema, { ...valid, value })).toMatchObject({ param: 'value', message: 'value: must be a number greater than 0' });
      }),
    );
  });

  it('take a name of up to 255 characters', () => {
    expect(validate(createRateLimitPolicySchema, { ...valid, name: 'x'.repeat(255) }).name).toHaveLength(255);
    expect(refusal(createRateLimitPolicySchema, { ...valid, name: 'x'.repeat(256) })).toEqual({ code: 'invalid_request', param: 'name', message: 'name: must be at most 255 characters' });
  });

  it('take organisation_id only as a UUID and workspace_id as any id or slug', () => {
    const organisationId = '5f0c6a4e-1b2c-4d3e-8f90-a1b2c3d4e5f6';
    expect(validate(createRateLimitPolicySchema, { ...valid, organisation_id: organisationId, workspace_id: 'team-a' })).toMatchObject({ organisation_id: organisationId, workspace_id: 'team-a' });
    expect(refusal(createRateLimitPolicySchema, { ...valid, organisation_id: '5f0c6a4e' })).toMatchObject({ param: 'organisation_id', message: 'organisation_id: must be a UUID' });
  });
});

describe('policy update schemas', () => {
  it('take any subset of the changeable fields, with the same rules', () => {
    expect(validate(updateRateLimitPolicySchema, { unit: 'rph' })).toEqual({ unit: 'rph' });
    expect(validate(updateUsageLimitPolicySchema, { periodic_reset: 'weekly' })).toEqual({ periodic_reset: 'weekly' });
    expect(refusal(updateRateLimitPolicySchema, { conditions: [{ key: 'model', value: '' }] }).param).toBe('conditions[0].value');
  });

  it('do not default the periodic reset, so an update never resets it by omission', () => {
    expect(validate(updateUsageLimitPolicySchema, { value: 5 })).toEqual({ value: 5 });
  });

  it('refuse an empty change and fields that cannot change', () => {
    expect(refusal(updateUsageLimitPolicySchema, {}).message).toBe(
      'must change at least one field: name, conditions, group_by, type, unit, value, enforcement, credit_limit, periodic_reset',
    );
    expect(refusal(updateRateLimitPolicySchema, { organisation_id: '5f0c6a4e-1b2c-4d3e-8f90-a1b2c3d4e5f6' }).message).toContain('unknown field "organisation_id"');
  });
});

describe('newPolicyId', () => {
  it('makes RFC 9562 version-7 UUIDs that sort in creation order, even within one millisecond', () => {
    const now = Date.UTC(2026, 0, 1);
    const ids = [newPolicyId(now), newPolicyId(now), newPolicyId(now), newPolicyId(now + 1), newPolicyId(now - 5)];
    for (const id of ids) {
      expect(looksLikeUuid(id)).toBe(true);
      expect(id[14]).toBe('7');
      expect(['8', '9', 'a', 'b']).toContain(id[19]);
    }
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(Number.parseInt(ids[0].replace(/-/g, '').slice(0, 12), 16)).toBe(now);
  });

  it('keeps order across thousands of ids in the same millisecond', () => {
    const now = Date.UTC(2026, 1, 1);
    const ids = Array.from({ length: 5000 }, () => newPolicyId(now));
    expect([...ids].sort()).toEqual(ids);
  });
});

describe('creation scope', () => {
  const organisationId = '5f0c6a4e-1b2c-4d3e-8f90-a1b2c3d4e5f6';
  const principal = (authMethod: Principal['authMethod']): Principal => ({
    keyId: 'caller',
    kind: 'workspace',
    organisationId,
    workspaceId: 'ws-own',
    scopes: new Set(['policies:write']),
    authMethod,
  });
  // Only the own-workspace paths run here, so the store is never asked.
  const noStore = {} as WorkspaceRepository;

  it('defaults to the API key’s organisation and workspace', async () => {
    await expect(resolveCreationScope(principal('api_key'), {}, noStore)).resolves.toEqual({ organisationId, workspaceId: 'ws-own' });
    await expect(resolveCreationScope(principal(undefined), { organisation_id: organisationId }, noStore)).resolves.toEqual({ organisationId, workspaceId: 'ws-own' });
  });

  it('needs workspace_id and organisation_id from a caller not authenticated by an API key', async () => {
    await expect(resolveCreationScope(principal('jwt'), { organisation_id: organisationId }, noStore)).rejects.toMatchObject({
      status: 400,
      param: 'workspace_id',
      message: 'workspace_id: is required when the call is not authenticated by an API key',
    });
    await expect(resolveCreationScope(principal('jwt'), { workspace_id: 'ws-own' }, noStore)).rejects.toMatchObject({
      status: 400,
      param: 'organisation_id',
      message: 'organisation_id: is required when the call is not authenticated by an API key',
    });
  });

  it('answers 404 for another organisation', async () => {
    await expect(resolveCreationScope(principal('api_key'), { organisation_id: '0b1c2d3e-4f50-4a6b-9c7d-8e9fa0b1c2d3' }, noStore)).rejects.toMatchObject({ status: 404, code: 'not_found', param: 'organisation_id' });
  });
});
