import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { call, createKey, createWorkspace, expectedError, rateLimitPayload, usageLimitPayload, type CreatedKey } from './policies-support.js';

interface Entity {
  object: string;
  type: 'api_key' | 'workspace' | 'user';
  id: string;
  policies: Array<{ id: string; kind: string; name: string | null; status: string }>;
  [field: string]: unknown;
}
interface Page {
  object: 'list';
  data: Entity[];
  has_more: boolean;
  next_cursor: string | null;
}

const ENTITIES = '/v1/policies/entities';

let gateway: TestGateway;
let organisationId: string;
let workspaceId: string;
let otherWorkspaceId: string;
let admin: CreatedKey;
let member: CreatedKey;
let reader: CreatedKey;
let unscoped: CreatedKey;
let otherWriter: CreatedKey;
let policyIds: { byKey: string; byUser: string; byWorkspace: string; other: string };

beforeAll(async () => {
  gateway = await startTestGateway();
  organisationId = gateway.bootstrap.organisationId;
  // A workspace of its own, so the entities of other tests' policies never show up here.
  workspaceId = await createWorkspace(organisationId, 'entities');
  otherWorkspaceId = await createWorkspace(organisationId, 'entities-other');
  admin = await createKey({ organisationId, workspaceId, scopes: ['policies:read', 'policies:write'], name: 'entities admin' });
  member = await createKey({ organisationId, workspaceId, scopes: ['completions:write'], name: 'member key' });
  reader = await createKey({ organisationId, workspaceId, scopes: ['policies:list'] });
  unscoped = await createKey({ organisationId, workspaceId, scopes: ['completions:write'] });
  otherWriter = await createKey({ organisationId, workspaceId: otherWorkspaceId, scopes: ['policies:read', 'policies:write'] });

  const create = async (path: string, body: Record<string, unknown>, key: string) =>
    (await call<{ id: string }>(gateway, 'POST', path, { key, body })).body.id;
  policyIds = {
    byKey: await create('/v1/policies/rate-limits', rateLimitPayload({ name: 'per member key', conditions: [{ key: 'api_key', value: member.id }] }), admin.raw),
    byUser: await create('/v1/policies/usage-limits', usageLimitPayload({ name: 'alice budget', conditions: [{ key: 'metadata._user', value: 'alice' }, { key: 'api_key', value: member.id }] }), admin.raw),
    byWorkspace: await create('/v1/policies/rate-limits', rateLimitPayload({ name: 'whole workspace', conditions: [{ key: 'workspace_id', value: 'entities' }, { key: 'metadata._user', value: '*' }] }), admin.raw),
    other: await create('/v1/policies/rate-limits', rateLimitPayload({ name: 'bob elsewhere', conditions: [{ key: 'metadata._user', value: 'bob' }] }), otherWriter.raw),
  };
});
afterAll(async () => {
  await gateway?.close();
});

describe('GET /v1/policies/entities', () => {
  it('lists the API keys, workspaces and users named by the caller’s policies, with the policies naming them', async () => {
    const response = await call<Page>(gateway, 'GET', ENTITIES, { key: admin.raw });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      object: 'list',
      has_more: false,
      next_cursor: null,
      data: [
        {
          object: 'policy_entity',
          type: 'api_key',
          id: member.id,
          name: 'member key',
          masked: expect.stringMatching(/^gwk_.{4}….{4}$/),
          workspace_id: workspaceId,
          status: 'active',
          policies: [
            { id: policyIds.byKey, kind: 'rate_limit', name: 'per member key', status: 'active' },
            { id: policyIds.byUser, kind: 'usage_limit', name: 'alice budget', status: 'active' },
          ],
        },
        {
          object: 'policy_entity',
          type: 'workspace',
          id: workspaceId,
          name: 'Workspace entities',
          slug: 'entities',
          policies: [{ id: policyIds.byWorkspace, kind: 'rate_limit', name: 'whole workspace', status: 'active' }],
        },
        { object: 'policy_entity', type: 'user', id: 'alice', policies: [{ id: policyIds.byUser, kind: 'usage_limit', name: 'alice budget', status: 'active' }] },
      ],
    });
  });

  it('never shows entities of another workspace’s policies to a workspace key; an admin key sees the organisation', async () => {
    const own = await call<Page>(gateway, 'GET', ENTITIES, { key: otherWriter.raw });
    expect(own.body.data.map((entity) => [entity.type, entity.id])).toEqual([['user', 'bob']]);
    const foreign = await call(gateway, 'GET', `${ENTITIES}?workspace_id=entities`, { key: otherWriter.raw });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(expectedError('not_found', 'not_found_error', 'workspace_id', 'No workspace'));
    const organisation = await call<Page>(gateway, 'GET', `${ENTITIES}?limit=100`);
    const users = organisation.body.data.filter((entity) => entity.type === 'user').map((entity) => entity.id);
    expect(users).toEqual(expect.arrayContaining(['alice', 'bob']));
  });

  it('pages with limit and cursor in a stable order', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const response: { body: Page } = await call<Page>(gateway, 'GET', `${ENTITIES}?limit=1${cursor ? `&cursor=${cursor}` : ''}`, { key: admin.raw });
      expect(response.body.data).toHaveLength(1);
      seen.push(`${response.body.data[0].type}:${response.body.data[0].id}`);
      cursor = response.body.next_cursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([`api_key:${member.id}`, `workspace:${workspaceId}`, 'user:alice']);
  });

  it('shows archived policies as archived', async () => {
    const id = (await call<{ id: string }>(gateway, 'POST', '/v1/policies/rate-limits', { key: otherWriter.raw, body: rateLimitPayload({ conditions: [{ key: 'metadata._user', value: 'carol' }] }) })).body.id;
    await call(gateway, 'POST', `/v1/policies/rate-limits/${id}/archive`, { key: otherWriter.raw });
    const response = await call<Page>(gateway, 'GET', ENTITIES, { key: otherWriter.raw });
    expect(response.body.data.find((entity) => entity.id === 'carol')?.policies).toEqual([{ id, kind: 'rate_limit', name: 'sixty a minute', status: 'archived' }]);
  });

  it.each([
    { query: 'cursor=eyJwayI6IldTIn0', code: 'invalid_cursor', param: 'cursor', message: 'cursor does not belong to this list' },
    { query: 'cursor=%%%', code: 'invalid_cursor', param: 'cursor', message: 'cursor' },
    { query: 'limit=0', code: 'invalid_limit', param: 'limit', message: 'limit must be an integer between 1 and 100' },
  ])('rejects ?$query with 400', async ({ query, code, param, message }) => {
    const response = await call(gateway, 'GET', `${ENTITIES}?${query}`, { key: admin.raw });
    expect(response.status).toBe(400);
    expect(response.body).toEqual(expectedError(code, 'invalid_request_error', param, message));
  });

  it('needs policies:read or policies:list, and a key', async () => {
    expect((await call(gateway, 'GET', ENTITIES, { key: reader.raw })).status).toBe(200);
    const refused = await call(gateway, 'GET', ENTITIES, { key: unscoped.raw });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(expectedError('missing_scope', 'permission_error', null, 'policies:read'));
    const anonymous = await call(gateway, 'GET', ENTITIES, { key: null });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual(expectedError('api_key_missing', 'authentication_error', null, 'x-gw-api-key'));
  });
});
