import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { api, newKey, newWorkspace } from './identities-support.js';
import { scim, USER } from './scim-support.js';

/**
 * A SCIM key confined to one workspace must not learn which users exist elsewhere in the organisation. The
 * userName and e-mail address are organisation-unique, so a collision must fail, but its answer is one and the same
 * whether the holder is a user of the key's own workspace or of another one, and whether the userName or the
 * address collided. Class: existence oracle across workspaces through uniqueness errors.
 */
let gateway: TestGateway;
let confinedKey: string;

beforeAll(async () => {
  gateway = await startTestGateway();
  const workspace = await newWorkspace(gateway);
  confinedKey = (await newKey(gateway, { workspace_id: workspace.id, scopes: ['scim'] })).key;
});
afterAll(async () => {
  await gateway?.close();
});

const userBody = (userName: string, email: string) => ({ schemas: [USER], userName, name: { givenName: 'A', familyName: 'B' }, emails: [{ value: email, primary: true }], active: true });

describe('a workspace-confined SCIM key and uniqueness', () => {
  it('gets the same answer for an address held in another workspace as for one held in its own', async () => {
    const suffix = randomUUID().slice(0, 8);
    // Someone in another workspace of the organisation, invited through the users API.
    const elsewhere = await newWorkspace(gateway);
    const invited = await api(gateway, 'POST', '/v1/admin/users/invites', { body: { email: `elsewhere-${suffix}@example.com`, workspaces: [{ workspace_id: elsewhere.id, role: 'member' }] } });
    expect(invited.status, JSON.stringify(invited.body)).toBe(201);
    // Someone the confined key provisioned itself.
    const own = await scim(gateway, 'POST', '/Users', userBody(`own-${suffix}`, `own-${suffix}@example.com`), confinedKey);
    expect(own.status, JSON.stringify(own.body)).toBe(201);
    // Someone an organisation admin provisioned through SCIM, elsewhere (a userName collision).
    const adminMade = await scim(gateway, 'POST', '/Users', userBody(`admin-made-${suffix}`, `admin-made-${suffix}@example.com`));
    expect(adminMade.status, JSON.stringify(adminMade.body)).toBe(201);

    const otherWorkspaceAddress = await scim(gateway, 'POST', '/Users', userBody(`probe-a-${suffix}`, `elsewhere-${suffix}@example.com`), confinedKey);
    const otherUserName = await scim(gateway, 'POST', '/Users', userBody(`admin-made-${suffix}`, `probe-b-${suffix}@example.com`), confinedKey);
    const ownAddress = await scim(gateway, 'POST', '/Users', userBody(`probe-c-${suffix}`, `own-${suffix}@example.com`), confinedKey);
    const ownUserName = await scim(gateway, 'POST', '/Users', userBody(`own-${suffix}`, `probe-d-${suffix}@example.com`), confinedKey);
    for (const reply of [otherWorkspaceAddress, otherUserName, ownAddress, ownUserName]) {
      expect(reply.status).toBe(409);
      expect(reply.body.scimType).toBe('uniqueness');
    }
    expect(otherWorkspaceAddress.body).toEqual(ownAddress.body);
    expect(otherUserName.body).toEqual(ownAddress.body);
    expect(ownUserName.body).toEqual(ownAddress.body);
    expect(JSON.stringify(otherWorkspaceAddress.body)).not.toMatch(/already exists in the organisation|elsewhere|admin-made/);
    // The probes left nothing behind: their userNames are free again.
    const retried = await scim(gateway, 'POST', '/Users', userBody(`probe-a-${suffix}`, `probe-a-${suffix}@example.com`), confinedKey);
    expect(retried.status, JSON.stringify(retried.body)).toBe(201);
  });

  it('leaves the organisation admin key its precise answers', async () => {
    const suffix = randomUUID().slice(0, 8);
    expect((await scim(gateway, 'POST', '/Users', userBody(`admin-${suffix}`, `admin-${suffix}@example.com`))).status).toBe(201);
    const again = await scim(gateway, 'POST', '/Users', userBody(`admin-${suffix}`, `other-${suffix}@example.com`));
    expect(again.status).toBe(409);
    expect(String(again.body.detail)).toContain('already provisioned');
  });
});
