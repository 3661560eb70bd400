import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { api, newKey, newWorkspace, type Workspace } from '../control-plane/identities-support.js';
import { patchOp, scim, USER, type ScimReply } from '../control-plane/scim-support.js';

/**
 * A SCIM key confined to one workspace learns nothing about users elsewhere in the organisation (issue #43): every
 * answer it gets about another workspace's user — a GET by id, a filter, a create, a PUT or PATCH that takes its
 * userName or e-mail — is the answer it gets about a user it cannot see for any other reason (one of its own
 * workspace's, or none at all). A PATCH or PUT renaming a user to a taken userName still answered with the
 * organisation admin's precise "userName '…' is already provisioned", unlike a create.
 * Class: SCIM answers that tell a confined key which users exist elsewhere.
 */
type Resource = Record<string, unknown> & { id: string };

let gateway: TestGateway;
let own: Workspace;
let elsewhere: Workspace;
let confinedKey: string;
let outsiderId: string;
let provisioned: Resource;

async function invite(email: string, workspaceId: string): Promise<string> {
  const invited = await api<{ id: string }>(gateway, 'POST', '/v1/admin/users/invites', { body: { email, workspaces: [{ workspace_id: workspaceId, role: 'member' }] } });
  expect(invited.status, JSON.stringify(invited.body)).toBe(201);
  return invited.body.id;
}

beforeAll(async () => {
  gateway = await startTestGateway();
  own = await newWorkspace(gateway, { name: 'Team A' });
  elsewhere = await newWorkspace(gateway, { name: 'Finance' });
  confinedKey = (await newKey(gateway, { workspace_id: own.id, scopes: ['scim'] })).key;
  outsiderId = await invite('outsider@example.com', elsewhere.id);
  await invite('colleague@example.com', own.id);
  // An organisation admin's SCIM user of the other workspace: held by userName, not only by e-mail.
  expect((await scim(gateway, 'POST', '/Users', { schemas: [USER], userName: 'idp-user-elsewhere', emails: [{ value: 'idp-elsewhere@example.com', primary: true }] })).status).toBe(201);
  provisioned = (await scim<Resource>(gateway, 'POST', '/Users', { schemas: [USER], userName: 'new-hire@example.com' }, confinedKey)).body;
  expect((await scim(gateway, 'POST', '/Users', { schemas: [USER], userName: 'teammate@example.com' }, confinedKey)).status).toBe(201);
  expect(provisioned.id).toBeDefined();
}, 120_000);
afterAll(async () => {
  await gateway?.close();
});

/** What a reply tells its reader, with the one part the caller chose itself (an id in a 404) taken out. */
function told(reply: ScimReply, callersOwnWords: string[] = []): string {
  let text = JSON.stringify({ status: reply.status, body: reply.body });
  for (const words of callersOwnWords) text = text.split(words).join('<id>');
  return text;
}

describe('a confined SCIM key gets the same answer about another workspace’s user as about one it cannot see otherwise', () => {
  it('GET by the id of another workspace’s user is the 404 of an id that does not exist', async () => {
    const absent = '3f0c1d2e-0000-4000-8000-000000000000';
    const other = await scim(gateway, 'GET', `/Users/${outsiderId}`, undefined, confinedKey);
    const none = await scim(gateway, 'GET', `/Users/${absent}`, undefined, confinedKey);
    expect(other.status).toBe(404);
    expect(told(other, [outsiderId])).toBe(told(none, [absent]));
    for (const method of ['PUT', 'PATCH', 'DELETE'] as const) {
      const body = method === 'PUT' ? { schemas: [USER], userName: 'x@example.com' } : method === 'PATCH' ? patchOp({ op: 'replace', path: 'displayName', value: 'X' }) : undefined;
      expect(told(await scim(gateway, method, `/Users/${outsiderId}`, body, confinedKey), [outsiderId])).toBe(told(await scim(gateway, method, `/Users/${absent}`, body, confinedKey), [absent]));
    }
  });

  it('a filter on another workspace’s userName or e-mail answers like one on nobody', async () => {
    for (const filter of ['userName eq "outsider@example.com"', 'userName eq "idp-user-elsewhere"', 'emails.value eq "idp-elsewhere@example.com"']) {
      const other = await scim(gateway, 'GET', `/Users?filter=${encodeURIComponent(filter)}`, undefined, confinedKey);
      const none = await scim(gateway, 'GET', `/Users?filter=${encodeURIComponent(filter.replace(/"[^"]+"/, '"nobody@example.com"'))}`, undefined, confinedKey);
      expect(other.status).toBe(200);
      expect(told(other)).toBe(told(none));
    }
  });

  it('a create taking another workspace’s userName or e-mail answers exactly as one taking its own workspace’s', async () => {
    const answers = [
      await scim(gateway, 'POST', '/Users', { schemas: [USER], userName: 'outsider@example.com' }, confinedKey),
      await scim(gateway, 'POST', '/Users', { schemas: [USER], userName: 'idp-user-elsewhere', emails: [{ value: 'fresh-address@example.com', primary: true }] }, confinedKey),
      await scim(gateway, 'POST', '/Users', { schemas: [USER], userName: 'fresh-name', emails: [{ value: 'idp-elsewhere@example.com', primary: true }] }, confinedKey),
      await scim(gateway, 'POST', '/Users', { schemas: [USER], userName: 'colleague@example.com' }, confinedKey),
    ];
    expect(answers[0].status).toBe(409);
    for (const answer of answers) expect(told(answer)).toBe(told(answers[3]));
  });

  it('a PUT or PATCH renaming its user to a taken userName answers as a create does, wherever the holder is', async () => {
    const create = await scim(gateway, 'POST', '/Users', { schemas: [USER], userName: 'colleague@example.com' }, confinedKey);
    // Held as a SCIM userName in another workspace, and in its own (a user it provisioned).
    for (const taken of ['idp-user-elsewhere', 'teammate@example.com']) {
      const put = await scim(gateway, 'PUT', `/Users/${provisioned.id}`, { schemas: [USER], userName: taken }, confinedKey);
      const patch = await scim(gateway, 'PATCH', `/Users/${provisioned.id}`, patchOp({ op: 'replace', path: 'userName', value: taken }), confinedKey);
      expect(told(put), taken).toBe(told(create));
      expect(told(patch), taken).toBe(told(create));
    }
    expect((await scim(gateway, 'GET', `/Users/${provisioned.id}`, undefined, confinedKey)).body).toMatchObject({ userName: 'new-hire@example.com' });
  });

  it('an organisation admin key keeps the precise answer', async () => {
    const renamed = await scim(gateway, 'PATCH', `/Users/${provisioned.id}`, patchOp({ op: 'replace', path: 'userName', value: 'idp-user-elsewhere' }));
    expect(renamed.status).toBe(409);
    expect(String(renamed.body.detail)).toContain('already provisioned');
  });
});
