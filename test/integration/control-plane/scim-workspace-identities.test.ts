import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { api, expectError, inviteMember, newKey, type Workspace } from './identities-support.js';
import { confinedScimWorkspace, patchOp, scim, USER } from './scim-support.js';

/**
 * Workspace identities (docs/control-plane/scim.md): a confined SCIM key's users wait, pending, until they are tied
 * to an organisation user: at once when a member of the workspace holds the address, else when an organisation
 * admin links them. Linking grants the workspace membership the group says and changes nothing the workspace key
 * reads; deprovisioning through the key takes the user out of that workspace only.
 */
type Resource = Record<string, unknown> & { id: string };
type Identity = { id: string; workspace_id: string; status: 'pending' | 'linked'; user_id: string | null; in_group: boolean; email: string };
type User = { id: string; email: string; status: string; workspaces: Array<{ workspace_id: string; role: string }> };

let gateway: TestGateway;
let own: Workspace;
let elsewhere: Workspace;
let confinedKey: string;

beforeAll(async () => {
  gateway = await startTestGateway();
  ({ own, elsewhere, confinedKey } = await confinedScimWorkspace(gateway));
}, 120_000);
afterAll(async () => {
  await gateway?.close();
});

const invite = (email: string, workspaceId: string) => inviteMember(gateway, email, workspaceId);

async function provision(userName: string, email = userName): Promise<Resource> {
  const created = await scim<Resource>(gateway, 'POST', '/Users', { schemas: [USER], userName, emails: [{ value: email, primary: true }] }, confinedKey);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

const addToGroup = (id: string) => scim(gateway, 'PATCH', `/Groups/${own.id}`, patchOp({ op: 'add', path: 'members', value: [{ value: id }] }), confinedKey);
const identities = async (query = '') => (await api<{ data: Identity[] }>(gateway, 'GET', `/v1/admin/scim-identities${query}`)).body.data;
const userOf = async (id: string) => (await api<User>(gateway, 'GET', `/v1/admin/users/${id}`)).body;

describe('an organisation admin links a pending workspace identity', () => {
  it('to the user elsewhere holding its address: membership granted, the workspace key’s answers unchanged', async () => {
    const email = `outsider-${randomUUID().slice(0, 8)}@example.com`;
    const outsider = await invite(email, elsewhere.id);
    const identity = await provision(email);
    expect((await addToGroup(identity.id)).status).toBe(204);
    const before = await scim(gateway, 'GET', `/Users/${identity.id}`, undefined, confinedKey);
    const groupBefore = await scim(gateway, 'GET', `/Groups/${own.id}`, undefined, confinedKey);
    expect(before.body).toMatchObject({ userName: email, groups: [{ value: own.id }] });
    // Pending: nobody became a member of the workspace.
    expect((await userOf(outsider)).workspaces.map((membership) => membership.workspace_id)).toEqual([elsewhere.id]);

    const pending = await identities(`?status=pending&workspace_id=${own.id}`);
    expect(pending.map((candidate) => candidate.id)).toContain(identity.id);
    const linked = await api<Identity>(gateway, 'POST', `/v1/admin/scim-identities/${identity.id}/link`, { body: {} });
    expect(linked.status, JSON.stringify(linked.body)).toBe(200);
    expect(linked.body).toMatchObject({ status: 'linked', user_id: outsider, workspace_id: own.id });
    expect((await userOf(outsider)).workspaces.map((membership) => membership.workspace_id).sort()).toEqual([elsewhere.id, own.id].sort());
    expect((await identities('?status=pending')).map((candidate) => candidate.id)).not.toContain(identity.id);

    // The link tells the workspace key nothing: the same user, the same group.
    expect((await scim(gateway, 'GET', `/Users/${identity.id}`, undefined, confinedKey)).body).toEqual(before.body);
    expect((await scim(gateway, 'GET', `/Groups/${own.id}`, undefined, confinedKey)).body).toEqual(groupBefore.body);
    expectError(await api(gateway, 'POST', `/v1/admin/scim-identities/${identity.id}/link`, { body: {} }), 409, 'already_linked');

    // Deprovisioning through the workspace key takes the user out of this workspace only.
    const keyHere = (await newKey(gateway, { workspace_id: own.id, user_id: outsider, type: 'user', scopes: ['workspaces:read'] })).key;
    const keyThere = (await newKey(gateway, { workspace_id: elsewhere.id, user_id: outsider, type: 'user', scopes: ['workspaces:read'] })).key;
    expect((await api(gateway, 'GET', `/v1/workspaces/${own.id}`, { key: keyHere })).status).toBe(200);
    expect((await scim(gateway, 'DELETE', `/Users/${identity.id}`, undefined, confinedKey)).status).toBe(204);
    expect((await api(gateway, 'GET', `/v1/workspaces/${own.id}`, { key: keyHere })).status).toBe(401);
    expect((await api(gateway, 'GET', `/v1/workspaces/${elsewhere.id}`, { key: keyThere })).status).toBe(200);
    expect((await userOf(outsider)).workspaces.map((membership) => membership.workspace_id)).toEqual([elsewhere.id]);
  });

  it('to a new organisation user when nobody holds its address, or to the user it names', async () => {
    const email = `new-hire-${randomUUID().slice(0, 8)}@example.com`;
    const identity = await provision(`hire-${randomUUID().slice(0, 8)}`, email);
    expect((await addToGroup(identity.id)).status).toBe(204);
    const linked = await api<Identity>(gateway, 'POST', `/v1/admin/scim-identities/${identity.id}/link`, { body: {} });
    expect(linked.status, JSON.stringify(linked.body)).toBe(200);
    const created = await userOf(String(linked.body.user_id));
    expect(created).toMatchObject({ email, status: 'active', workspaces: [{ workspace_id: own.id, role: 'member' }] });

    const named = await invite(`named-${randomUUID().slice(0, 8)}@example.com`, elsewhere.id);
    const other = await provision(`other-${randomUUID().slice(0, 8)}@example.com`);
    const toNamed = await api<Identity>(gateway, 'POST', `/v1/admin/scim-identities/${other.id}/link`, { body: { user_id: named } });
    expect(toNamed.body).toMatchObject({ status: 'linked', user_id: named });
    // Not in the group: linking grants no membership.
    expect((await userOf(named)).workspaces.map((membership) => membership.workspace_id)).toEqual([elsewhere.id]);
    // One identity per user in a workspace: a second link to the same user is refused.
    const second = await provision(`second-${randomUUID().slice(0, 8)}@example.com`);
    expectError(await api(gateway, 'POST', `/v1/admin/scim-identities/${second.id}/link`, { body: { user_id: named } }), 409, 'user_already_linked', { param: 'user_id' });
  });

  it('is an organisation admin’s act: a workspace key cannot list or link identities', async () => {
    const identity = await provision(`self-link-${randomUUID().slice(0, 8)}@example.com`);
    expectError(await api(gateway, 'GET', '/v1/admin/scim-identities', { key: confinedKey }), 403, 'admin_required');
    expectError(await api(gateway, 'POST', `/v1/admin/scim-identities/${identity.id}/link`, { key: confinedKey, body: {} }), 403, 'admin_required');
    expectError(await api(gateway, 'POST', '/v1/admin/scim-identities/3f0c1d2e-0000-4000-8000-000000000000/link', { body: {} }), 404, 'not_found');
    expectError(await api(gateway, 'POST', `/v1/admin/scim-identities/${identity.id}/link`, { body: { user_id: 'x y' } }), 400, 'invalid_request', { param: 'user_id' });
  });
});

describe('a workspace identity whose address a member of the workspace holds', () => {
  it('is linked at once and governs that member’s place in the workspace', async () => {
    const email = `colleague-${randomUUID().slice(0, 8)}@example.com`;
    const colleague = await invite(email, own.id);
    const identity = await provision(email);
    expect(identity.groups).toEqual([{ value: own.id, display: 'Team' }]);
    expect((await identities(`?workspace_id=${own.id}&status=linked`)).find((candidate) => candidate.id === identity.id)).toMatchObject({ user_id: colleague });
    // The key lists the member once, as its identity.
    const listed = await scim<{ Resources: Resource[] }>(gateway, 'GET', '/Users', undefined, confinedKey);
    const ids = listed.body.Resources.map((resource) => resource.id);
    expect(ids).toContain(identity.id);
    expect(ids).not.toContain(colleague);
    const key = (await newKey(gateway, { workspace_id: own.id, user_id: colleague, type: 'user', scopes: ['workspaces:read'] })).key;
    expect((await scim(gateway, 'PATCH', `/Users/${identity.id}`, patchOp({ op: 'replace', value: { active: false } }), confinedKey)).status).toBe(200);
    expect((await api(gateway, 'GET', `/v1/workspaces/${own.id}`, { key })).status).toBe(401);
    expect((await userOf(colleague)).workspaces).toEqual([]);
    // Reactivated, it is a member again (its revoked keys stay revoked).
    expect((await scim(gateway, 'PATCH', `/Users/${identity.id}`, patchOp({ op: 'replace', value: { active: true } }), confinedKey)).status).toBe(200);
    expect((await userOf(colleague)).workspaces).toEqual([{ workspace_id: own.id, role: 'member' }]);
  });
});
