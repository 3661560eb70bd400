import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditLogRepository } from '../../../shared/store/audit-log-repository.js';
import { listActivePolicies, PolicyRepository, PolicyVersionConflictError } from '../../../shared/store/policy-repository.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import {
  call,
  createKey,
  createOrganisation,
  createWorkspace,
  expectedError,
  rateLimitPayload,
  usageLimitPayload,
  type CreatedKey,
} from './policies-support.js';

interface Policy {
  id: string;
  kind: string;
  name: string | null;
  status: string;
  version: number;
  workspace_id: string;
  updated_at: string;
  archived_at: string | null;
  conditions: Array<{ key: string; value: string }>;
  [field: string]: unknown;
}
interface Page<T = Policy> {
  object: 'list';
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

const RATE = '/v1/policies/rate-limits';
const USAGE = '/v1/policies/usage-limits';

let gateway: TestGateway;
let organisationId: string;
let defaultWorkspaceId: string;
let pagingWorkspaceId: string;
let writer: CreatedKey;
let reader: CreatedKey;
let lister: CreatedKey;
let unscoped: CreatedKey;
let pagingWriter: CreatedKey;
let otherAdmin: CreatedKey;

beforeAll(async () => {
  gateway = await startTestGateway();
  organisationId = gateway.bootstrap.organisationId;
  defaultWorkspaceId = gateway.bootstrap.workspaceId;
  pagingWorkspaceId = await createWorkspace(organisationId, 'paging');
  const scope = { organisationId, workspaceId: defaultWorkspaceId };
  writer = await createKey({ ...scope, scopes: ['policies:read', 'policies:write'], name: 'writer key' });
  reader = await createKey({ ...scope, scopes: ['policies:read'] });
  lister = await createKey({ ...scope, scopes: ['policies:list'] });
  unscoped = await createKey({ ...scope, scopes: ['completions:write'] });
  pagingWriter = await createKey({ organisationId, workspaceId: pagingWorkspaceId, scopes: ['policies:read', 'policies:write'] });
  const other = await createOrganisation();
  otherAdmin = await createKey({ ...other, kind: 'admin' });
});
afterAll(async () => {
  await gateway?.close();
});

async function create(path: string, body: Record<string, unknown>, key?: string): Promise<string> {
  const response = await call<{ id: string }>(gateway, 'POST', path, { key, body });
  expect(response.status).toBe(201);
  return response.body.id;
}

/** Follows next_cursor to the end; returns every page. */
async function allPages(path: string, key?: string): Promise<Array<Page<{ id: string }>>> {
  const pages: Array<Page<{ id: string }>> = [];
  let cursor: string | null = null;
  do {
    const separator = path.includes('?') ? '&' : '?';
    const response: { status: number; body: Page<{ id: string }> } = await call<Page<{ id: string }>>(gateway, 'GET', `${path}${cursor ? `${separator}cursor=${cursor}` : ''}`, { key });
    expect(response.status).toBe(200);
    pages.push(response.body);
    cursor = response.body.next_cursor;
  } while (cursor);
  return pages;
}

describe('GET /v1/policies/<kind> (list)', () => {
  it('pages through a workspace’s policies newest first with limit and cursor', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await create(RATE, rateLimitPayload({ name: `paged ${i}` }), pagingWriter.raw));
    const pages = await allPages(`${RATE}?limit=2`, pagingWriter.raw);
    expect(pages.map((page) => page.data.length)).toEqual([2, 2, 1]);
    expect(pages.map((page) => page.has_more)).toEqual([true, true, false]);
    expect(pages.at(-1)!.next_cursor).toBeNull();
    expect(pages.flatMap((page) => page.data.map((policy) => policy.id))).toEqual([...ids].reverse());
  });

  it('lists one kind per path and filters by status', async () => {
    const usageId = await create(USAGE, usageLimitPayload(), pagingWriter.raw);
    const rates = await call<Page>(gateway, 'GET', `${RATE}?limit=100`, { key: pagingWriter.raw });
    expect(rates.body.data.every((policy) => policy.kind === 'rate_limit')).toBe(true);
    const usages = await call<Page>(gateway, 'GET', USAGE, { key: pagingWriter.raw });
    expect(usages.body.data.map((policy) => policy.id)).toEqual([usageId]);
    await call(gateway, 'POST', `${USAGE}/${usageId}/archive`, { key: pagingWriter.raw });
    const active = await call<Page>(gateway, 'GET', `${USAGE}?status=active`, { key: pagingWriter.raw });
    expect(active.body.data).toEqual([]);
    const archived = await call<Page>(gateway, 'GET', `${USAGE}?status=archived`, { key: pagingWriter.raw });
    expect(archived.body.data.map((policy) => policy.id)).toEqual([usageId]);
  });

  it('shows an admin key the whole organisation, a workspace key only its workspace, another organisation nothing', async () => {
    const ownId = await create(RATE, rateLimitPayload(), writer.raw);
    const pagingId = await create(RATE, rateLimitPayload(), pagingWriter.raw);
    const adminIds = (await allPages(`${RATE}?limit=100`)).flatMap((page) => page.data.map((policy) => policy.id));
    expect(adminIds).toEqual(expect.arrayContaining([ownId, pagingId]));
    const writerIds = (await allPages(`${RATE}?limit=100`, writer.raw)).flatMap((page) => page.data.map((policy) => policy.id));
    expect(writerIds).toContain(ownId);
    expect(writerIds).not.toContain(pagingId);
    const adminOfPaging = (await allPages(`${RATE}?limit=100&workspace_id=paging`)).flatMap((page) => page.data.map((policy) => policy.id));
    expect(adminOfPaging).toContain(pagingId);
    expect(adminOfPaging).not.toContain(ownId);
    const other = await call<Page>(gateway, 'GET', RATE, { key: otherAdmin.raw });
    expect(other.body.data).toEqual([]);
  });

  it('answers 404 when a workspace key names another workspace', async () => {
    const response = await call(gateway, 'GET', `${RATE}?workspace_id=${pagingWorkspaceId}`, { key: writer.raw });
    expect(response.status).toBe(404);
    expect(response.body).toEqual(expectedError('not_found', 'not_found_error', 'workspace_id', 'No workspace'));
  });

  it.each([
    { query: 'limit=0', code: 'invalid_limit', param: 'limit', message: 'limit must be an integer between 1 and 100' },
    { query: 'limit=101', code: 'invalid_limit', param: 'limit', message: 'limit must be an integer between 1 and 100' },
    { query: 'limit=ten', code: 'invalid_limit', param: 'limit', message: 'limit must be an integer between 1 and 100' },
    { query: 'cursor=not-a-cursor', code: 'invalid_cursor', param: 'cursor', message: 'cursor' },
    { query: 'status=deleted', code: 'invalid_request', param: 'status', message: 'status: must be one of: active, archived' },
  ])('rejects ?$query with 400', async ({ query, code, param, message }) => {
    const response = await call(gateway, 'GET', `${RATE}?${query}`);
    expect(response.status).toBe(400);
    expect(response.body).toEqual(expectedError(code, 'invalid_request_error', param, message));
  });

  it('refuses a cursor of another workspace’s list', async () => {
    const page = await call<Page>(gateway, 'GET', `${RATE}?limit=1`, { key: pagingWriter.raw });
    expect(page.body.next_cursor).not.toBeNull();
    const response = await call(gateway, 'GET', `${RATE}?cursor=${page.body.next_cursor}`, { key: writer.raw });
    expect(response.status).toBe(400);
    expect(response.body).toEqual(expectedError('invalid_cursor', 'invalid_request_error', 'cursor', 'cursor does not belong to this list'));
  });

  it('needs policies:read or policies:list (403 otherwise) and a key (401)', async () => {
    expect((await call(gateway, 'GET', RATE, { key: lister.raw })).status).toBe(200);
    expect((await call(gateway, 'GET', RATE, { key: reader.raw })).status).toBe(200);
    const refused = await call(gateway, 'GET', RATE, { key: unscoped.raw });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(expectedError('missing_scope', 'permission_error', null, 'policies:read'));
    const anonymous = await call(gateway, 'GET', RATE, { key: null });
    expect(anonymous.status).toBe(401);
  });
});

describe('GET /v1/policies/<kind>/{id}', () => {
  it('answers 404 for another workspace’s policy, another organisation, the other kind’s path and a malformed id', async () => {
    const id = await create(RATE, rateLimitPayload(), writer.raw);
    for (const [key, path] of [
      [pagingWriter.raw, `${RATE}/${id}`],
      [otherAdmin.raw, `${RATE}/${id}`],
      [undefined, `${USAGE}/${id}`],
      [undefined, `${RATE}/not-a-uuid`],
    ] as const) {
      const response = await call(gateway, 'GET', path, { key });
      expect(response.status).toBe(404);
      expect(response.body).toEqual(expectedError('not_found', 'not_found_error', null, 'No '));
    }
  });

  it('needs policies:read', async () => {
    const id = await create(RATE, rateLimitPayload(), writer.raw);
    expect((await call(gateway, 'GET', `${RATE}/${id}`, { key: reader.raw })).status).toBe(200);
    const refused = await call(gateway, 'GET', `${RATE}/${id}`, { key: lister.raw });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(expectedError('missing_scope', 'permission_error', null, 'policies:read'));
  });
});

describe('PUT /v1/policies/<kind>/{id}', () => {
  it('changes only the fields sent, bumps the version and normalises conditions', async () => {
    const id = await create(USAGE, usageLimitPayload(), writer.raw);
    const before = (await call<Policy>(gateway, 'GET', `${USAGE}/${id}`)).body;
    const updated = await call<Policy>(gateway, 'PUT', `${USAGE}/${id}`, {
      key: writer.raw,
      body: { value: 120, conditions: [{ key: 'provider', value: 'together' }], credit_limit: { type: 'tokens', value: 5000 } },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      ...before,
      value: 120,
      conditions: [{ key: 'provider', value: 'together-ai' }],
      credit_limit: { type: 'tokens', value: 5000 },
      version: 2,
      updated_at: expect.any(String),
    });
    expect((await call<Policy>(gateway, 'GET', `${USAGE}/${id}`)).body).toEqual(updated.body);
  });

  it.each([
    { rule: 'an empty body', body: {}, param: null, message: 'must change at least one field: name, conditions' },
    { rule: 'a workspace change', body: { workspace_id: 'paging' }, param: null, message: 'unknown field "workspace_id"' },
    { rule: 'a credit limit on a rate limit', body: { credit_limit: { type: 'cost', value: 1 } }, param: null, message: 'unknown field "credit_limit"' },
    { rule: 'value 0', body: { value: 0 }, param: 'value', message: 'must be a number greater than 0' },
    { rule: 'no conditions', body: { conditions: [] }, param: 'conditions', message: 'must contain at least 1 condition' },
    { rule: 'an unknown group_by key', body: { group_by: [{ key: 'region' }] }, param: 'group_by[0].key', message: 'allowed keys: api_key' },
    { rule: 'a bad unit', body: { unit: 'rpy' }, param: 'unit', message: 'must be one of: rpm, rph, rpd' },
  ])('rejects $rule with 400', async ({ body, param, message }) => {
    const id = await create(RATE, rateLimitPayload(), writer.raw);
    const response = await call(gateway, 'PUT', `${RATE}/${id}`, { key: writer.raw, body });
    expect(response.status).toBe(400);
    expect(response.body).toEqual(expectedError('invalid_request', 'invalid_request_error', param, message));
  });

  it('answers 404 for another workspace’s policy, 403 without policies:write, 409 once archived', async () => {
    const id = await create(RATE, rateLimitPayload(), writer.raw);
    const foreign = await call(gateway, 'PUT', `${RATE}/${id}`, { key: pagingWriter.raw, body: { value: 1 } });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(expectedError('not_found', 'not_found_error', null, `No rate-limit policy with id '${id}'`));
    const readOnly = await call(gateway, 'PUT', `${RATE}/${id}`, { key: reader.raw, body: { value: 1 } });
    expect(readOnly.status).toBe(403);
    expect(readOnly.body).toEqual(expectedError('missing_scope', 'permission_error', null, 'policies:write'));
    await call(gateway, 'POST', `${RATE}/${id}/archive`, { key: writer.raw });
    const archived = await call(gateway, 'PUT', `${RATE}/${id}`, { key: writer.raw, body: { value: 1 } });
    expect(archived.status).toBe(409);
    expect(archived.body).toEqual(expectedError('policy_archived', 'invalid_request_error', null, 'archived policies cannot be changed'));
  });
});

describe('every policy route without a valid key', () => {
  it('answers 401 before anything else', async () => {
    const id = await create(RATE, rateLimitPayload(), writer.raw);
    for (const [method, path, body] of [
      ['GET', `${RATE}/${id}`, undefined],
      ['PUT', `${RATE}/${id}`, { value: 1 }],
      ['POST', `${RATE}/${id}/archive`, undefined],
      ['GET', `${USAGE}/${id}`, undefined],
    ] as const) {
      const missing = await call(gateway, method, path, { key: null, body });
      expect(missing.status).toBe(401);
      expect(missing.body).toEqual(expectedError('api_key_missing', 'authentication_error', null, 'x-gw-api-key'));
      const invalid = await call(gateway, method, path, { key: 'gwk_wrong', body });
      expect(invalid.status).toBe(401);
      expect(invalid.body).toEqual(expectedError('api_key_invalid', 'authentication_error', null, 'Invalid API key'));
    }
    expect((await call<Policy>(gateway, 'GET', `${RATE}/${id}`)).body).toMatchObject({ status: 'active', version: 1 });
  });
});

describe('PolicyRepository.replace', () => {
  it('refuses a write based on a stale version, so concurrent updates cannot both win', async () => {
    const id = await create(RATE, rateLimitPayload(), writer.raw);
    const repository = new PolicyRepository();
    const current = (await repository.findById(id))!;
    await repository.replace({ ...current, value: 7, version: 2 }, 1);
    await expect(repository.replace({ ...current, value: 8, version: 2 }, 1)).rejects.toBeInstanceOf(PolicyVersionConflictError);
    expect(await repository.findById(id)).toMatchObject({ value: 7, version: 2 });
  });
});

describe('POST /v1/policies/<kind>/{id}/archive', () => {
  it('archives: still readable, skipped by listActivePolicies, and idempotent', async () => {
    const workspaceId = await createWorkspace(organisationId, 'archiving');
    const key = await createKey({ organisationId, workspaceId, scopes: ['policies:read', 'policies:write'] });
    const kept = await create(RATE, rateLimitPayload(), key.raw);
    const keptUsage = await create(USAGE, usageLimitPayload(), key.raw);
    const archivedId = await create(RATE, rateLimitPayload(), key.raw);
    const archived = await call<Policy>(gateway, 'POST', `${RATE}/${archivedId}/archive`, { key: key.raw });
    expect(archived.status).toBe(200);
    expect(archived.body).toMatchObject({ id: archivedId, status: 'archived', archived_at: expect.any(String), version: 2 });
    expect((await call<Policy>(gateway, 'GET', `${RATE}/${archivedId}`, { key: key.raw })).body).toEqual(archived.body);
    const again = await call<Policy>(gateway, 'POST', `${RATE}/${archivedId}/archive`, { key: key.raw });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(archived.body);

    const active = await listActivePolicies(workspaceId);
    expect(active.map((policy) => policy.id).sort()).toEqual([kept, keptUsage].sort());
    expect(active.find((policy) => policy.id === keptUsage)).toMatchObject({
      kind: 'usage_limit',
      status: 'active',
      credit_limit: { type: 'cost', value: 25 },
      periodic_reset: 'monthly',
      workspace_id: workspaceId,
      organisation_id: organisationId,
      version: 1,
    });
  });

  it('answers 404 for another workspace’s policy and 403 without policies:write', async () => {
    const id = await create(RATE, rateLimitPayload(), writer.raw);
    const foreign = await call(gateway, 'POST', `${RATE}/${id}/archive`, { key: pagingWriter.raw });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(expectedError('not_found', 'not_found_error', null, 'No rate-limit policy'));
    const readOnly = await call(gateway, 'POST', `${RATE}/${id}/archive`, { key: reader.raw });
    expect(readOnly.status).toBe(403);
    expect((await call<Policy>(gateway, 'GET', `${RATE}/${id}`)).body.status).toBe('active');
  });
});

describe('audit log', () => {
  it('records every policy mutation, successful or refused', async () => {
    const id = await create(RATE, rateLimitPayload(), writer.raw);
    await call(gateway, 'PUT', `${RATE}/${id}`, { key: writer.raw, body: { name: 'renamed' } });
    await call(gateway, 'PUT', `${RATE}/${id}`, { key: reader.raw, body: { name: 'refused' } });
    await call(gateway, 'POST', `${RATE}/${id}/archive`, { key: writer.raw });
    const events = (await new AuditLogRepository().list({ organisationId }, { resource_id: id }, 100)).items.reverse();
    expect(events.map((event) => [event.action, event.outcome])).toEqual([
      ['policy.create', 'success'],
      ['policy.update', 'success'],
      ['policy.update', 'failure'],
      ['policy.archive', 'success'],
    ]);
    expect(events[0]).toMatchObject({ resource_type: 'policy', workspace_id: defaultWorkspaceId, actor: { type: 'api_key', id: writer.id }, details: { kind: 'rate_limit' } });
    expect(events[1].details).toEqual({ kind: 'rate_limit', fields: ['name'] });
    expect(events[2].details).toMatchObject({ status: 403, code: 'missing_scope' });
  });
});
