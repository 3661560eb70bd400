import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { api, inviteMember, newKey, newWorkspace, type Workspace } from '../control-plane/identities-support.js';
import { GROUP, patchOp, scim, USER } from '../control-plane/scim-support.js';

/**
 * SCIM inside an organisation (issue #30): a workspace key with the `scim` scope acts on its own workspace only
 * (it neither adopts, renames nor sees another workspace's group), and SCIM deactivates only the users it
 * created, never a user gw had before (invited through the users API, the bootstrap admin).
 */
type Resource = Record<string, unknown> & { id: string };
type ListResponse = { totalResults: number; Resources: Resource[] };

let gateway: TestGateway;
let own: Workspace;
let finance: Workspace;
let workspaceScim: string;

beforeAll(async () => {
  gateway = await startTestGateway();
  own = await newWorkspace(gateway, { name: 'Team A' });
  finance = await newWorkspace(gateway, { name: 'Finance' });
  workspaceScim = (await newKey(gateway, { workspace_id: own.id, scopes: ['scim'] })).key;
});
afterAll(async () => {
  await gateway?.close();
});

const invite = (email: string, workspaceId: string) => inviteMember(gateway, email, workspaceId);

async function userKey(userId: string, workspaceId: string): Promise<string> {
  return (await newKey(gateway, { workspace_id: workspaceId, user_id: userId, type: 'user', scopes: ['workspaces:read'] })).key;
}

describe('a workspace key with the scim scope', () => {
  it('POST /Groups links its own workspace only: naming another workspace neither adopts nor renames it', async () => {
    const created = await scim<Resource>(gateway, 'POST', '/Groups', { schemas: [GROUP], displayName: 'Finance', members: [] }, workspaceScim);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.id).toBe(own.id);

    const renamed = await scim(gateway, 'PATCH', `/Groups/${own.id}`, patchOp({ op: 'replace', value: { displayName: 'Finance renamed' } }), workspaceScim);
    expect(renamed.status).toBe(204);
    expect((await api<Workspace>(gateway, 'GET', `/v1/workspaces/${finance.id}`)).body.name).toBe('Finance');
    expect((await api<Workspace>(gateway, 'GET', `/v1/workspaces/${own.id}`)).body.name).toBe('Finance renamed');
  });

  it('sees no other workspace’s group and cannot change or delete one (404)', async () => {
    const adminGroup = await scim<Resource>(gateway, 'POST', '/Groups', { schemas: [GROUP], displayName: 'Finance', members: [] });
    expect(adminGroup.status, JSON.stringify(adminGroup.body)).toBe(201);
    expect(adminGroup.body.id).toBe(finance.id);

    const listed = await scim<ListResponse>(gateway, 'GET', '/Groups', undefined, workspaceScim);
    expect(listed.body.Resources.map((group) => group.id)).toEqual([own.id]);
    expect((await scim(gateway, 'GET', `/Groups/${finance.id}`, undefined, workspaceScim)).status).toBe(404);
    expect((await scim(gateway, 'PUT', `/Groups/${finance.id}`, { schemas: [GROUP], displayName: 'Mine now', members: [] }, workspaceScim)).status).toBe(404);
    expect((await scim(gateway, 'PATCH', `/Groups/${finance.id}`, patchOp({ op: 'replace', value: { displayName: 'Mine now' } }), workspaceScim)).status).toBe(404);
    expect((await scim(gateway, 'DELETE', `/Groups/${finance.id}`, undefined, workspaceScim)).status).toBe(404);
    expect((await api<Workspace>(gateway, 'GET', `/v1/workspaces/${finance.id}`)).body.name).toBe('Finance');
    expect((await scim(gateway, 'GET', `/Groups/${finance.id}`)).status).toBe(200);
  });

  it('sees only users of its workspace or that it provisioned, and never adopts an existing user elsewhere', async () => {
    const outsider = await invite('outsider@example.com', finance.id);
    const provisioned = await scim<Resource>(gateway, 'POST', '/Users', { schemas: [USER], userName: 'new-hire@example.com' }, workspaceScim);
    expect(provisioned.status, JSON.stringify(provisioned.body)).toBe(201);

    const listed = await scim<ListResponse>(gateway, 'GET', '/Users', undefined, workspaceScim);
    expect(listed.body.Resources.map((user) => user.id)).toContain(provisioned.body.id);
    expect(listed.body.Resources.map((user) => user.id)).not.toContain(outsider);
    expect((await scim(gateway, 'GET', `/Users/${outsider}`, undefined, workspaceScim)).status).toBe(404);

    // Claiming the outsider's address makes a pending identity of its own workspace, never the outsider.
    const claim = await scim<Resource>(gateway, 'POST', '/Users', { schemas: [USER], userName: 'outsider@example.com' }, workspaceScim);
    expect(claim.status).toBe(201);
    expect(claim.body.id).not.toBe(outsider);
    expect((await scim(gateway, 'DELETE', `/Users/${claim.body.id}`, undefined, workspaceScim)).status).toBe(204);
    expect((await scim(gateway, 'GET', `/Users/${outsider}`)).body).toMatchObject({ userName: 'outsider@example.com', active: true });
  });

  it('cannot deactivate or change a member of its workspace that SCIM did not create (403 user_not_scim_managed)', async () => {
    const member = await invite('member-a@example.com', own.id);
    const key = await userKey(member, own.id);
    for (const [method, body] of [
      ['PATCH', patchOp({ op: 'replace', value: { active: false } })],
      ['PUT', { schemas: [USER], userName: 'member-a@example.com', active: false }],
      ['DELETE', undefined],
    ] as const) {
      const refused = await scim(gateway, method, `/Users/${member}`, body, workspaceScim);
      expect(refused.status, JSON.stringify(refused.body)).toBe(403);
      expect(refused.body.code).toBe('user_not_scim_managed');
    }
    expect((await api(gateway, 'GET', `/v1/workspaces/${own.id}`, { key })).status).toBe(200);
  });

  it('deactivates a user it created (once an organisation admin linked it): that user’s keys stop working', async () => {
    const created = await scim<Resource>(gateway, 'POST', '/Users', { schemas: [USER], userName: 'leaver@example.com' }, workspaceScim);
    expect((await scim(gateway, 'PATCH', `/Groups/${own.id}`, patchOp({ op: 'add', path: 'members', value: [{ value: created.body.id }] }), workspaceScim)).status).toBe(204);
    const linked = await api<{ user_id: string }>(gateway, 'POST', `/v1/admin/scim-identities/${created.body.id}/link`, { body: {} });
    expect(linked.status, JSON.stringify(linked.body)).toBe(200);
    const key = await userKey(linked.body.user_id, own.id);
    expect((await api(gateway, 'GET', `/v1/workspaces/${own.id}`, { key })).status).toBe(200);
    expect((await scim(gateway, 'DELETE', `/Users/${created.body.id}`, undefined, workspaceScim)).status).toBe(204);
    expect((await api(gateway, 'GET', `/v1/workspaces/${own.id}`, { key })).status).toBe(401);
  });
});

describe('SCIM deactivates only users SCIM manages', () => {
  it('an organisation admin key links an invited user, but deactivating it is refused and its keys keep working', async () => {
    const invited = await invite('kept@example.com', own.id);
    const key = await userKey(invited, own.id);
    const linked = await scim<Resource>(gateway, 'POST', '/Users', { schemas: [USER], userName: 'kept@example.com', externalId: '00u-kept' });
    expect(linked.status).toBe(201);
    expect(linked.body.id).toBe(invited);

    const refused = await scim(gateway, 'PATCH', `/Users/${invited}`, patchOp({ op: 'replace', value: { active: false } }));
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('user_not_scim_managed');
    expect((await scim(gateway, 'DELETE', `/Users/${invited}`)).status).toBe(403);
    expect((await api(gateway, 'GET', `/v1/workspaces/${own.id}`, { key })).status).toBe(200);
    // Updates other than deactivation still apply.
    const renamed = await scim<Resource>(gateway, 'PATCH', `/Users/${invited}`, patchOp({ op: 'replace', path: 'displayName', value: 'Kept User' }));
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body).toMatchObject({ displayName: 'Kept User', active: true });
  });

  it('a POST that links an existing user as inactive is refused before anything changes', async () => {
    const invited = await invite('inactive-link@example.com', own.id);
    const refused = await scim(gateway, 'POST', '/Users', { schemas: [USER], userName: 'inactive-link@example.com', active: false });
    expect(refused.status).toBe(403);
    expect((await scim(gateway, 'POST', '/Users', { schemas: [USER], userName: 'inactive-link@example.com' })).status).toBe(201);
    expect((await scim(gateway, 'GET', `/Users/${invited}`)).body).toMatchObject({ active: true });
  });

});
