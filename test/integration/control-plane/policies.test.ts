import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../../shared/auth/api-key-secrets.js';
import { ApiKeyRepository } from '../../../shared/store/api-key-repository.js';
import { startTestGateway, TEST_ADMIN_KEY, type TestGateway } from '../../support/gateway.js';
import {
  call,
  createKey,
  createOrganisation,
  createWorkspace,
  expectedError,
  rateLimitPayload,
  usageLimitPayload,
  UUID_PATTERN,
  type CreatedKey,
} from './policies-support.js';

let gateway: TestGateway;
let organisationId: string;
let defaultWorkspaceId: string;
let secondWorkspaceId: string;
let adminKeyId: string;
let writer: CreatedKey;
let reader: CreatedKey;
let unscoped: CreatedKey;
let secondWorkspaceWriter: CreatedKey;
let otherOrganisation: { organisationId: string; workspaceId: string; admin: CreatedKey };

beforeAll(async () => {
  gateway = await startTestGateway();
  organisationId = gateway.bootstrap.organisationId;
  defaultWorkspaceId = gateway.bootstrap.workspaceId;
  secondWorkspaceId = await createWorkspace(organisationId, 'second');
  adminKeyId = (await new ApiKeyRepository().findByHash(hashApiKey(TEST_ADMIN_KEY)))!.id;
  const scope = { organisationId, workspaceId: defaultWorkspaceId };
  writer = await createKey({ ...scope, scopes: ['policies:read', 'policies:write'], name: 'policy writer' });
  reader = await createKey({ ...scope, scopes: ['policies:read'] });
  unscoped = await createKey({ ...scope, scopes: ['completions:write'] });
  secondWorkspaceWriter = await createKey({ organisationId, workspaceId: secondWorkspaceId, scopes: ['policies:read', 'policies:write'] });
  const other = await createOrganisation();
  otherOrganisation = { ...other, admin: await createKey({ ...other, kind: 'admin' }) };
});
afterAll(async () => {
  await gateway?.close();
});

const KINDS = [
  { kind: 'rate_limit', path: '/v1/policies/rate-limits', payload: rateLimitPayload },
  { kind: 'usage_limit', path: '/v1/policies/usage-limits', payload: usageLimitPayload },
] as const;

const ALLOWED_KEYS = 'allowed keys: api_key, workspace_id, virtual_key, provider, integration, model, metadata.<key>';

/** Every rule of the spec's payload table (and gw's own rules on the same fields): field changes → param, message. */
const PAYLOAD_RULES: Array<{ rule: string; change: Record<string, unknown>; param: string | null; message: string }> = [
  { rule: 'conditions is required', change: { conditions: undefined }, param: 'conditions', message: 'conditions: is required' },
  { rule: 'conditions must be an array', change: { conditions: { key: 'model', value: 'x' } }, param: 'conditions', message: 'must be an array' },
  { rule: 'conditions needs at least 1 item', change: { conditions: [] }, param: 'conditions', message: 'must contain at least 1 condition' },
  { rule: 'a condition is an object', change: { conditions: ['model'] }, param: 'conditions[0]', message: 'must be an object {key, value}' },
  { rule: 'a condition needs a key', change: { conditions: [{ value: 'x' }] }, param: 'conditions[0].key', message: 'is required' },
  { rule: 'a condition key must be allowed', change: { conditions: [{ key: 'user', value: 'x' }] }, param: 'conditions[0].key', message: `unknown key "user"; ${ALLOWED_KEYS}` },
  { rule: 'metadata. needs a key name', change: { conditions: [{ key: 'metadata.', value: 'x' }] }, param: 'conditions[0].key', message: ALLOWED_KEYS },
  { rule: 'a condition needs a value', change: { conditions: [{ key: 'model' }] }, param: 'conditions[0].value', message: 'is required' },
  { rule: 'a condition value is not empty', change: { conditions: [{ key: 'model', value: '' }] }, param: 'conditions[0].value', message: 'use * to match any value' },
  { rule: 'a condition value is a string', change: { conditions: [{ key: 'model', value: 5 }] }, param: 'conditions[0].value', message: 'must be a string' },
  { rule: 'a condition has only key and value', change: { conditions: [{ key: 'model', value: 'x', op: 'eq' }] }, param: 'conditions[0]', message: 'unknown field "op"' },
  {
    rule: 'a condition key appears once',
    change: { conditions: [{ key: 'model', value: 'a' }, { key: 'model', value: 'b' }] },
    param: 'conditions[1].key',
    message: 'duplicate condition key "model"',
  },
  { rule: 'group_by is required', change: { group_by: undefined }, param: 'group_by', message: 'group_by: is required' },
  { rule: 'group_by needs at least 1 item', change: { group_by: [] }, param: 'group_by', message: 'must contain at least 1 key' },
  { rule: 'a group_by key must be allowed', change: { group_by: [{ key: 'team' }] }, param: 'group_by[0].key', message: `unknown key "team"; ${ALLOWED_KEYS}` },
  { rule: 'a group_by key appears once', change: { group_by: [{ key: 'model' }, { key: 'model' }] }, param: 'group_by[1].key', message: 'duplicate group_by key' },
  { rule: 'type is required', change: { type: undefined }, param: 'type', message: 'type: is required (requests or tokens)' },
  { rule: 'type is requests or tokens', change: { type: 'cost' }, param: 'type', message: 'must be one of: requests, tokens' },
  { rule: 'unit is required', change: { unit: undefined }, param: 'unit', message: 'unit: is required (rpm, rph, rpd)' },
  { rule: 'unit is rpm, rph or rpd', change: { unit: 'rps' }, param: 'unit', message: 'must be one of: rpm, rph, rpd' },
  { rule: 'unit is case-exact', change: { unit: 'RPM' }, param: 'unit', message: 'must be one of: rpm, rph, rpd' },
  { rule: 'value is required', change: { value: undefined }, param: 'value', message: 'value: is required' },
  { rule: 'value is a number', change: { value: '60' }, param: 'value', message: 'must be a number' },
  { rule: 'value is not 0', change: { value: 0 }, param: 'value', message: 'must be a number greater than 0' },
  { rule: 'value is not negative', change: { value: -5 }, param: 'value', message: 'must be a number greater than 0' },
  { rule: 'name is at most 255 characters', change: { name: 'n'.repeat(256) }, param: 'name', message: 'must be at most 255 characters' },
  { rule: 'name is a string', change: { name: 7 }, param: 'name', message: 'must be a string' },
  { rule: 'organisation_id is a UUID', change: { organisation_id: 'acme' }, param: 'organisation_id', message: 'must be a UUID' },
  { rule: 'workspace_id is not empty', change: { workspace_id: '' }, param: 'workspace_id', message: 'must not be empty' },
  { rule: 'unknown fields are refused', change: { priority: 1 }, param: null, message: 'unknown field "priority"; allowed fields: conditions, group_by' },
];

describe.each(KINDS)('POST $path', ({ kind, path, payload }) => {
  it('creates a policy: 201 with {id: <uuid>, object: "policy_usage_limits"}, readable at once', async () => {
    const created = await call<{ id: string; object: string }>(gateway, 'POST', path, { body: payload() });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.stringMatching(UUID_PATTERN), object: 'policy_usage_limits' });
    const read = await call(gateway, 'GET', `${path}/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      id: created.body.id,
      object: 'policy_usage_limits',
      kind,
      conditions: [{ key: 'model', value: 'gpt-4o-mini' }],
      group_by: [{ key: 'api_key' }],
      status: 'active',
      workspace_id: defaultWorkspaceId,
      organisation_id: organisationId,
      archived_at: null,
      version: 1,
    });
  });

  it.each(PAYLOAD_RULES)('rejects the payload when $rule (400 naming the field)', async ({ change, param, message }) => {
    const body = payload(change);
    for (const [field, value] of Object.entries(change)) if (value === undefined) delete body[field];
    const response = await call(gateway, 'POST', path, { body });
    expect(response.status).toBe(400);
    expect(response.body).toEqual(expectedError('invalid_request', 'invalid_request_error', param, message));
  });

  it('accepts a name of exactly 255 characters, * as a condition value, and metadata keys', async () => {
    const body = payload({ name: 'n'.repeat(255), conditions: [{ key: 'virtual_key', value: '*' }, { key: 'metadata._user', value: 'alice' }], group_by: [{ key: 'metadata.team' }] });
    const created = await call<{ id: string }>(gateway, 'POST', path, { body });
    expect(created.status).toBe(201);
    const read = await call(gateway, 'GET', `${path}/${created.body.id}`);
    expect(read.body).toMatchObject({ name: 'n'.repeat(255), conditions: body.conditions, group_by: body.group_by });
  });

  it('refuses a body that is not a JSON object, and one that is not JSON', async () => {
    const array = await call(gateway, 'POST', path, { body: [payload()] });
    expect(array.status).toBe(400);
    expect(array.body).toEqual(expectedError('invalid_request', 'invalid_request_error', null, 'must be a JSON object'));
    const broken = await call(gateway, 'POST', path, { body: '{"conditions": [' });
    expect(broken.status).toBe(400);
    expect(broken.body).toEqual(expectedError('invalid_json', 'invalid_request_error', null, 'not valid JSON'));
  });

  it('creates in another workspace of the organisation for an admin key (by slug or id, with the organisation id)', async () => {
    for (const workspace of ['second', secondWorkspaceId]) {
      const created = await call<{ id: string }>(gateway, 'POST', path, { body: payload({ workspace_id: workspace, organisation_id: organisationId }) });
      expect(created.status).toBe(201);
      const read = await call(gateway, 'GET', `${path}/${created.body.id}`);
      expect(read.body).toMatchObject({ workspace_id: secondWorkspaceId, organisation_id: organisationId });
    }
  });

  it('creates in the key’s own workspace for a workspace key with policies:write', async () => {
    const created = await call<{ id: string }>(gateway, 'POST', path, { key: writer.raw, body: payload() });
    expect(created.status).toBe(201);
    const read = await call(gateway, 'GET', `${path}/${created.body.id}`, { key: writer.raw });
    expect(read.body).toMatchObject({ workspace_id: defaultWorkspaceId });
  });

  it('answers 404 when a workspace key names another workspace, whether it exists or not', async () => {
    for (const workspace of [secondWorkspaceId, 'second', 'no-such-workspace']) {
      const response = await call(gateway, 'POST', path, { key: writer.raw, body: payload({ workspace_id: workspace }) });
      expect(response.status).toBe(404);
      expect(response.body).toEqual(expectedError('not_found', 'not_found_error', 'workspace_id', `No workspace with id or slug '${workspace}'`));
    }
  });

  it('answers 404 for another organisation’s workspace or organisation id, even for an admin key', async () => {
    const workspace = await call(gateway, 'POST', path, { body: payload({ workspace_id: otherOrganisation.workspaceId }) });
    expect(workspace.status).toBe(404);
    expect(workspace.body).toEqual(expectedError('not_found', 'not_found_error', 'workspace_id', 'No workspace'));
    const organisation = await call(gateway, 'POST', path, { body: payload({ organisation_id: otherOrganisation.organisationId }) });
    expect(organisation.status).toBe(404);
    expect(organisation.body).toEqual(expectedError('not_found', 'not_found_error', 'organisation_id', 'No organisation'));
  });

  it('refuses callers without a key (401), with an unknown key (401) and without policies:write (403)', async () => {
    const missing = await call(gateway, 'POST', path, { key: null, body: payload() });
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual(expectedError('api_key_missing', 'authentication_error', null, 'x-gw-api-key'));
    const unknown = await call(gateway, 'POST', path, { key: 'gwk_not_a_real_key', body: payload() });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual(expectedError('api_key_invalid', 'authentication_error', null, 'Invalid API key'));
    for (const key of [reader, unscoped]) {
      const refused = await call(gateway, 'POST', path, { key: key.raw, body: payload() });
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual(expectedError('missing_scope', 'permission_error', null, 'policies:write'));
    }
  });
});

describe('condition values that name something gw knows', () => {
  const path = '/v1/policies/rate-limits';
  const withCondition = (key: string, value: string) => rateLimitPayload({ conditions: [{ key, value }] });

  it('stores an API key of the policy’s workspace by id', async () => {
    const created = await call<{ id: string }>(gateway, 'POST', path, { body: withCondition('api_key', writer.id) });
    expect(created.status).toBe(201);
    const read = await call(gateway, 'GET', `${path}/${created.body.id}`);
    expect(read.body).toMatchObject({ conditions: [{ key: 'api_key', value: writer.id }] });
  });

  it('refuses an API key that does not exist or lives in another workspace, with the same message', async () => {
    for (const keyId of ['7d0d0c8e-0000-4000-8000-000000000000', secondWorkspaceWriter.id, otherOrganisation.admin.id]) {
      const response = await call(gateway, 'POST', path, { body: withCondition('api_key', keyId) });
      expect(response.status).toBe(400);
      expect(response.body).toEqual(
        expectedError('invalid_condition_value', 'invalid_request_error', 'conditions[0].value', `no API key with id '${keyId}' in workspace ${defaultWorkspaceId}`),
      );
    }
  });

  it('stores a workspace_id condition given by slug as the workspace id', async () => {
    const created = await call<{ id: string }>(gateway, 'POST', path, { body: { ...withCondition('workspace_id', 'second'), workspace_id: 'second' } });
    expect(created.status).toBe(201);
    const read = await call(gateway, 'GET', `${path}/${created.body.id}`);
    expect(read.body).toMatchObject({ conditions: [{ key: 'workspace_id', value: secondWorkspaceId }] });
  });

  it('refuses a workspace_id condition naming another workspace than the policy’s', async () => {
    const response = await call(gateway, 'POST', path, { body: withCondition('workspace_id', secondWorkspaceId) });
    expect(response.status).toBe(400);
    expect(response.body).toEqual(expectedError('invalid_condition_value', 'invalid_request_error', 'conditions[0].value', 'must name the policy\'s own workspace'));
  });

  it('stores a provider alias as its canonical slug and refuses an unknown provider, listing the known ones', async () => {
    const created = await call<{ id: string }>(gateway, 'POST', path, { body: withCondition('provider', 'mistral') });
    expect(created.status).toBe(201);
    const read = await call(gateway, 'GET', `${path}/${created.body.id}`);
    expect(read.body).toMatchObject({ conditions: [{ key: 'provider', value: 'mistral-ai' }] });
    const unknown = await call(gateway, 'POST', path, { body: withCondition('provider', 'skynet') });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual(expectedError('invalid_condition_value', 'invalid_request_error', 'conditions[0].value', "unknown provider 'skynet'; known providers: openai"));
  });

  it('accepts the admin key’s own id (its default workspace is the policy’s)', async () => {
    const created = await call(gateway, 'POST', path, { body: withCondition('api_key', adminKeyId) });
    expect(created.status).toBe(201);
  });
});

describe('POST /v1/policies/usage-limits: the credit limit and periodic reset', () => {
  const path = '/v1/policies/usage-limits';

  it('stores the credit limit and the reset, defaulting the reset to none', async () => {
    const created = await call<{ id: string }>(gateway, 'POST', path, { body: usageLimitPayload({ credit_limit: { type: 'tokens', value: 1_000_000 }, periodic_reset: undefined }) });
    expect(created.status).toBe(201);
    const read = await call(gateway, 'GET', `${path}/${created.body.id}`);
    expect(read.body).toMatchObject({ kind: 'usage_limit', credit_limit: { type: 'tokens', value: 1_000_000 }, periodic_reset: 'none' });
  });

  it.each([
    { rule: 'credit_limit is required', change: { credit_limit: undefined }, param: 'credit_limit', message: 'is required for a usage limit' },
    { rule: 'credit_limit is an object', change: { credit_limit: 10 }, param: 'credit_limit', message: 'must be an object {type, value}' },
    { rule: 'credit_limit.type is cost or tokens', change: { credit_limit: { type: 'usd', value: 1 } }, param: 'credit_limit.type', message: 'must be one of: cost, tokens' },
    { rule: 'credit_limit.value is > 0', change: { credit_limit: { type: 'cost', value: 0 } }, param: 'credit_limit.value', message: 'must be a number greater than 0' },
    { rule: 'credit_limit.value is required', change: { credit_limit: { type: 'cost' } }, param: 'credit_limit.value', message: 'is required' },
    { rule: 'periodic_reset is none, weekly or monthly', change: { periodic_reset: 'daily' }, param: 'periodic_reset', message: 'must be one of: none, weekly, monthly' },
  ])('rejects the payload when $rule', async ({ change, param, message }) => {
    const body = usageLimitPayload(change);
    for (const [field, value] of Object.entries(change)) if (value === undefined) delete body[field];
    const response = await call(gateway, 'POST', path, { body });
    expect(response.status).toBe(400);
    expect(response.body).toEqual(expectedError('invalid_request', 'invalid_request_error', param, message));
  });

  it('refuses a credit limit on a rate limit', async () => {
    const response = await call(gateway, 'POST', '/v1/policies/rate-limits', { body: rateLimitPayload({ credit_limit: { type: 'cost', value: 5 } }) });
    expect(response.status).toBe(400);
    expect(response.body).toEqual(expectedError('invalid_request', 'invalid_request_error', null, 'unknown field "credit_limit"'));
  });
});
