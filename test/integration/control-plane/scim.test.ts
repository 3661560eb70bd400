import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { api, newKey, otherOrganisation } from './identities-support.js';
import { readOnlyJwt, TEST_JWT_SECRET } from './jwt-support.js';
import { ENTERPRISE, ERROR, GROUP, patchOp, scim, USER } from './scim-support.js';

type Resource = Record<string, unknown> & { id: string };
type ListResponse = { schemas: string[]; totalResults: number; startIndex: number; itemsPerPage: number; Resources: Resource[] };

let gateway: TestGateway;
let scimKey: string;
let noScimKey: string;
let otherOrgAdmin: string;

beforeAll(async () => {
  gateway = await startTestGateway({ GW_JWT_SECRET: TEST_JWT_SECRET });
  scimKey = (await newKey(gateway, { scopes: ['scim'] })).key;
  noScimKey = (await newKey(gateway, { scopes: ['users:read'] })).key;
  otherOrgAdmin = (await otherOrganisation()).adminKey;
});
afterAll(async () => {
  await gateway?.close();
});

function expectScimError(reply: { status: number; body: Record<string, unknown>; contentType: string | null }, status: number, scimType?: string): void {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status);
  expect(reply.contentType).toMatch(/^application\/scim\+json/);
  expect(reply.body).toMatchObject({ schemas: [ERROR], status: String(status), detail: expect.any(String) });
  if (scimType) expect(reply.body.scimType).toBe(scimType);
}

describe('SCIM as Okta sends it', () => {
  let aliceId: string;
  let groupId: string;

  it('looks a user up by filter, creates it, and reads it back', async () => {
    const lookup = await scim<ListResponse>(gateway, 'GET', '/Users?filter=userName%20eq%20%22alice%40example.com%22&startIndex=1&count=100');
    expect(lookup.status).toBe(200);
    expect(lookup.body).toMatchObject({ schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'], totalResults: 0, Resources: [] });

    const created = await scim<Resource>(gateway, 'POST', '/Users', {
      schemas: [USER],
      userName: 'alice@example.com',
      name: { givenName: 'Alice', familyName: 'Smith' },
      emails: [{ primary: true, value: 'alice@example.com', type: 'work' }],
      displayName: 'Alice Smith',
      locale: 'en-US',
      externalId: '00u1okta',
      groups: [],
      password: 'never-stored',
      active: true,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.contentType).toMatch(/^application\/scim\+json/);
    expect(created.body).toMatchObject({ schemas: [USER], userName: 'alice@example.com', externalId: '00u1okta', active: true, name: { givenName: 'Alice', familyName: 'Smith' }, meta: { resourceType: 'User' } });
    expect(JSON.stringify(created.body)).not.toContain('never-stored');
    aliceId = created.body.id;

    const found = await scim<ListResponse>(gateway, 'GET', '/Users?filter=userName%20eq%20%22ALICE%40example.com%22');
    expect(found.body.Resources.map((user) => user.id)).toEqual([aliceId]);
    const asAdmin = await api<{ email: string }>(gateway, 'GET', `/v1/admin/users/${aliceId}`);
    expect(asAdmin.body.email).toBe('alice@example.com');
  });

  it('pushes a group (a workspace), adds and removes members with Okta’s PATCH forms', async () => {
    const group = await scim<Resource>(gateway, 'POST', '/Groups', { schemas: [GROUP], displayName: 'Engineering', members: [] });
    expect(group.status, JSON.stringify(group.body)).toBe(201);
    groupId = group.body.id;
    const workspace = await api<{ name: string }>(gateway, 'GET', `/v1/workspaces/${groupId}`);
    expect(workspace.body.name).toBe('Engineering');

    const added = await scim(gateway, 'PATCH', `/Groups/${groupId}`, patchOp({ op: 'add', path: 'members', value: [{ value: aliceId, display: 'alice@example.com' }] }));
    expect(added.status, JSON.stringify(added.body)).toBe(204);
    expect(((await scim<Resource>(gateway, 'GET', `/Groups/${groupId}`)).body.members as Array<{ value: string }>).map((member) => member.value)).toEqual([aliceId]);
    expect((await scim<Resource>(gateway, 'GET', `/Users/${aliceId}`)).body.groups).toEqual([{ value: groupId, display: 'Engineering' }]);

    const renamed = await scim(gateway, 'PATCH', `/Groups/${groupId}`, patchOp({ op: 'replace', value: { id: groupId, displayName: 'Engineering Team' } }));
    expect(renamed.status).toBe(204);
    const listed = await scim<ListResponse>(gateway, 'GET', '/Groups?filter=displayName%20eq%20%22engineering%20team%22&excludedAttributes=members');
    expect(listed.body.Resources).toHaveLength(1);
    expect(listed.body.Resources[0]).not.toHaveProperty('members');

    const removed = await scim(gateway, 'PATCH', `/Groups/${groupId}`, patchOp({ op: 'remove', path: `members[value eq "${aliceId}"]` }));
    expect(removed.status).toBe(204);
    expect((await scim<Resource>(gateway, 'GET', `/Groups/${groupId}`)).body.members).toEqual([]);
  });

  it('deactivates with {"op":"replace","value":{"active":false}}: the user’s API keys stop working', async () => {
    await scim(gateway, 'PATCH', `/Groups/${groupId}`, patchOp({ op: 'add', path: 'members', value: [{ value: aliceId }] }));
    const userKey = await newKey(gateway, { workspace_id: groupId, user_id: aliceId, type: 'user', scopes: ['workspaces:read'] });
    expect((await api(gateway, 'GET', `/v1/workspaces/${groupId}`, { key: userKey.key })).status).toBe(200);

    const deactivated = await scim<Resource>(gateway, 'PATCH', `/Users/${aliceId}`, patchOp({ op: 'replace', value: { active: false } }));
    expect(deactivated.status, JSON.stringify(deactivated.body)).toBe(200);
    expect(deactivated.body.active).toBe(false);
    expect((await api(gateway, 'GET', `/v1/workspaces/${groupId}`, { key: userKey.key })).status).toBe(401);

    const replaced = await scim<Resource>(gateway, 'PUT', `/Users/${aliceId}`, {
      schemas: [USER],
      userName: 'alice@example.com',
      name: { givenName: 'Alicia', familyName: 'Smith' },
      emails: [{ primary: true, value: 'alice@example.com', type: 'work' }],
      active: true,
    });
    expect(replaced.body).toMatchObject({ active: true, name: { givenName: 'Alicia' } });
  });
});

describe('SCIM as Entra ID sends it', () => {
  let bobId: string;

  it('probes with a filter for a non-existent user, creates one with the enterprise extension', async () => {
    const probe = await scim<ListResponse>(gateway, 'GET', '/Users?filter=userName%20eq%20%224b1c8e1e-0000-4f2a-9d4e-non-existent%22');
    expect(probe.body.totalResults).toBe(0);
    const created = await scim<Resource>(gateway, 'POST', '/Users', {
      schemas: [USER, ENTERPRISE],
      externalId: 'entra-bob',
      userName: 'bob@contoso.com',
      active: true,
      emails: [{ primary: true, type: 'work', value: 'bob@contoso.com' }],
      meta: { resourceType: 'User' },
      name: { formatted: 'Bob Builder', familyName: 'Builder', givenName: 'Bob' },
      roles: [],
      [ENTERPRISE]: { department: 'R&D' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body[ENTERPRISE]).toEqual({ department: 'R&D' });
    bobId = created.body.id;
  });

  it('applies Entra’s PATCH forms: Replace/Add with paths, value filters, URN paths and "False" strings', async () => {
    const patched = await scim<Resource>(
      gateway,
      'PATCH',
      `/Users/${bobId}`,
      patchOp(
        { op: 'Replace', path: 'displayName', value: 'Bobby' },
        { op: 'Add', path: 'emails[type eq "work"].value', value: 'bobby@contoso.com' },
        { op: 'Replace', path: 'name.familyName', value: 'Baumeister' },
        { op: 'Add', path: `${ENTERPRISE}:department`, value: 'Sales' },
      ),
    );
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body).toMatchObject({ displayName: 'Bobby', name: { familyName: 'Baumeister', givenName: 'Bob' }, [ENTERPRISE]: { department: 'Sales' } });
    expect(patched.body.emails).toEqual([{ value: 'bobby@contoso.com', type: 'work', primary: true }]);

    const inactive = await scim<Resource>(gateway, 'PATCH', `/Users/${bobId}`, patchOp({ op: 'Replace', path: 'active', value: 'False' }));
    expect(inactive.body.active).toBe(false);
    const active = await scim<Resource>(gateway, 'PATCH', `/Users/${bobId}`, patchOp({ op: 'Replace', value: { active: true } }));
    expect(active.body.active).toBe(true);
  });

  it('creates a group with externalId, adds and removes members with value lists', async () => {
    const group = await scim<Resource>(gateway, 'POST', '/Groups', { schemas: [GROUP], displayName: 'Sales', externalId: 'entra-sales', members: [] });
    expect(group.status).toBe(201);
    expect((await scim(gateway, 'PATCH', `/Groups/${group.body.id}`, patchOp({ op: 'Add', path: 'members', value: [{ value: bobId }] }))).status).toBe(204);
    expect(((await scim<Resource>(gateway, 'GET', `/Groups/${group.body.id}`)).body.members as unknown[]).length).toBe(1);
    expect((await scim(gateway, 'PATCH', `/Groups/${group.body.id}`, patchOp({ op: 'Remove', path: 'members', value: [{ value: bobId }] }))).status).toBe(204);
    expect((await scim<Resource>(gateway, 'GET', `/Groups/${group.body.id}`)).body.members).toEqual([]);
    expect((await scim(gateway, 'DELETE', `/Groups/${group.body.id}`)).status).toBe(204);
    expectScimError(await scim(gateway, 'GET', `/Groups/${group.body.id}`), 404);
  });

  it('DELETE deactivates the user (it stays, inactive)', async () => {
    expect((await scim(gateway, 'DELETE', `/Users/${bobId}`)).status).toBe(204);
    expect((await scim<Resource>(gateway, 'GET', `/Users/${bobId}`)).body.active).toBe(false);
  });
});

describe('SCIM takes over users gw already has', () => {
  it('a POST for the e-mail of an invited user links that user (201, same id) instead of a 409', async () => {
    const invited = await api<{ id: string }>(gateway, 'POST', '/v1/admin/users/invites', { body: { email: 'erin@example.com', name: 'Erin' } });
    expect(invited.status).toBe(201);
    const linked = await scim<Resource>(gateway, 'POST', '/Users', { schemas: [USER], userName: 'erin@example.com', externalId: '00u-erin', emails: [{ value: 'erin@example.com', primary: true }] });
    expect(linked.status, JSON.stringify(linked.body)).toBe(201);
    expect(linked.body).toMatchObject({ id: invited.body.id, externalId: '00u-erin', active: true });
    expect((await scim(gateway, 'POST', '/Users', { schemas: [USER], userName: 'erin2@example.com', emails: [{ value: 'erin@example.com', primary: true }] })).status).toBe(409);
  });
});

describe('SCIM lists, filters and discovery', () => {
  it('filters with co, sw and and; pages with startIndex and count', async () => {
    for (const name of ['carol', 'carla', 'dave']) {
      expect((await scim(gateway, 'POST', '/Users', { schemas: [USER], userName: `${name}@paging.example`, name: { givenName: name, familyName: 'Paging' } })).status).toBe(201);
    }
    const startsWith = await scim<ListResponse>(gateway, 'GET', `/Users?filter=${encodeURIComponent('userName sw "car" and name.familyName co "agin"')}`);
    expect(startsWith.body.Resources.map((user) => user.userName).sort()).toEqual(['carla@paging.example', 'carol@paging.example']);
    const contains = await scim<ListResponse>(gateway, 'GET', `/Users?filter=${encodeURIComponent('userName co "@paging.example"')}&startIndex=2&count=1`);
    expect(contains.body).toMatchObject({ totalResults: 3, startIndex: 2, itemsPerPage: 1 });
    expect(contains.body.Resources).toHaveLength(1);
  });

  it('serves ServiceProviderConfig, ResourceTypes and Schemas', async () => {
    const config = await scim(gateway, 'GET', '/ServiceProviderConfig');
    expect(config.body).toMatchObject({ patch: { supported: true }, filter: { supported: true }, bulk: { supported: false } });
    const types = await scim<ListResponse>(gateway, 'GET', '/ResourceTypes');
    expect(types.body.Resources.map((type) => type.id)).toEqual(['User', 'Group']);
    const schemas = await scim<ListResponse>(gateway, 'GET', '/Schemas');
    expect(schemas.body.Resources.map((schema) => schema.id)).toContain(USER);
    expect((await scim(gateway, 'GET', `/Schemas/${encodeURIComponent(GROUP)}`)).body.id).toBe(GROUP);
  });
});

describe('SCIM errors, authentication and scoping', () => {
  it('answers bad input in SCIM’s error schema', async () => {
    expectScimError(await scim(gateway, 'POST', '/Users', { schemas: [USER], name: { givenName: 'x' } }), 400, 'invalidValue');
    expectScimError(await scim(gateway, 'POST', '/Users', { schemas: [USER], userName: 'alice@example.com' }), 409, 'uniqueness');
    expectScimError(await scim(gateway, 'POST', '/Users', { schemas: [USER], userName: 'no-email-here' }), 400, 'invalidValue');
    expectScimError(await scim(gateway, 'GET', '/Users?filter=userName%20eq'), 400, 'invalidFilter');
    expectScimError(await scim(gateway, 'GET', '/Users/00000000-0000-4000-8000-000000000000'), 404);
    expectScimError(await scim(gateway, 'PATCH', '/Users/00000000-0000-4000-8000-000000000000', { Operations: [] }), 404);
    const someone = (await scim<ListResponse>(gateway, 'GET', '/Users')).body.Resources[0].id;
    expectScimError(await scim(gateway, 'PATCH', `/Users/${someone}`, { Operations: [{ op: 'replace', value: { active: false } }] }), 400, 'invalidSyntax');
    expectScimError(await scim(gateway, 'PATCH', `/Users/${someone}`, patchOp({ op: 'remove' })), 400, 'noTarget');
    expectScimError(await scim(gateway, 'POST', '/Groups', { schemas: [GROUP], displayName: 'Ghosts', members: [{ value: 'no-such-user' }] }), 400, 'invalidValue');
  });

  it('authenticates the bearer gw key: none → 401, no scim scope → 403, scim scope works, a JWT is refused', async () => {
    expectScimError(await scim(gateway, 'GET', '/Users', undefined, null), 401);
    expectScimError(await scim(gateway, 'GET', '/Users', undefined, 'gwk_not_a_real_key'), 401);
    expectScimError(await scim(gateway, 'GET', '/Users', undefined, noScimKey), 403);
    expect((await scim(gateway, 'GET', '/Users', undefined, scimKey)).status).toBe(200);
    expectScimError(await scim(gateway, 'GET', '/Users', undefined, await readOnlyJwt(gateway)), 403);
    // JWTs keep working on the rest of the control plane.
    expect((await api(gateway, 'GET', '/v1/workspaces', { bearer: await readOnlyJwt(gateway) })).status).toBe(200);
  });

  it('another organisation sees none of these users or groups', async () => {
    const theirs = await scim<ListResponse>(gateway, 'GET', '/Users', undefined, otherOrgAdmin);
    expect(theirs.body.Resources.map((user) => user.userName)).not.toContain('alice@example.com');
    const alice = (await scim<ListResponse>(gateway, 'GET', '/Users?filter=userName%20eq%20%22alice%40example.com%22')).body.Resources[0];
    expectScimError(await scim(gateway, 'GET', `/Users/${alice.id}`, undefined, otherOrgAdmin), 404);
    expectScimError(await scim(gateway, 'PATCH', `/Users/${alice.id}`, patchOp({ op: 'replace', value: { active: false } }), otherOrgAdmin), 404);
    expect((await scim<ListResponse>(gateway, 'GET', '/Groups', undefined, otherOrgAdmin)).body.totalResults).toBe(0);
  });
});
