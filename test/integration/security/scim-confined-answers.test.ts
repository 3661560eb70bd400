import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { watchStoreCommands } from '../../support/store-commands.js';
import { api, newKey, newWorkspace, type Workspace } from '../control-plane/identities-support.js';
import { GROUP, patchOp, scim, USER, type ScimReply } from '../control-plane/scim-support.js';

/**
 * A SCIM key confined to one workspace learns nothing about users elsewhere in the organisation (issue #43): every
 * answer it gets about a userName or e-mail address held in another workspace — a create, a PUT or PATCH rename, a
 * filter, a GET by id — is the answer it gets for one nobody holds. Until round 4's third pass, creates and renames
 * answered 409 `uniqueness` for a name held anywhere in the organisation (one message, but still 409 where a free
 * name got 201). Its users are now workspace identities, unique inside its workspace only.
 * Class: SCIM answers that tell a confined key which users exist elsewhere (existence oracle across workspaces).
 */
type Resource = Record<string, unknown> & { id: string };
type ListResponse = { totalResults: number; Resources: Resource[] };

let gateway: TestGateway;
let own: Workspace;
let elsewhere: Workspace;
let confinedKey: string;
let elsewhereKey: string;
let counting = false;
const commands: string[] = [];

/** The store commands (in order) one SCIM call causes, its audit event included. */
async function storeWorkOf(call: () => Promise<ScimReply>): Promise<{ reply: ScimReply; commands: string[] }> {
  await drainAllBackgroundWork();
  commands.length = 0;
  counting = true;
  try {
    const reply = await call();
    await drainAllBackgroundWork();
    return { reply, commands: [...commands] };
  } finally {
    counting = false;
  }
}

/** Names held in the other workspace three ways: an invited member, an organisation admin's SCIM user, its own SCIM identity. */
interface HeldElsewhere {
  invited: { id: string; email: string };
  adminScim: { userName: string; email: string };
  identity: Resource & { userName: string };
  identityEmail: string;
}

async function holdElsewhere(): Promise<HeldElsewhere> {
  const tag = randomUUID().slice(0, 8);
  const email = `outsider-${tag}@example.com`;
  const invited = await api<{ id: string }>(gateway, 'POST', '/v1/admin/users/invites', { body: { email, workspaces: [{ workspace_id: elsewhere.id, role: 'member' }] } });
  expect(invited.status, JSON.stringify(invited.body)).toBe(201);
  const adminScim = { userName: `idp-elsewhere-${tag}`, email: `idp-elsewhere-${tag}@example.com` };
  expect((await scim(gateway, 'POST', '/Users', user(adminScim.userName, adminScim.email))).status).toBe(201);
  const identityEmail = `finance-only-${tag}@example.com`;
  const identity = await scim<Resource & { userName: string }>(gateway, 'POST', '/Users', user(`finance-only-${tag}`, identityEmail), elsewhereKey);
  expect(identity.status, JSON.stringify(identity.body)).toBe(201);
  return { invited: { id: invited.body.id, email }, adminScim, identity: identity.body, identityEmail };
}

beforeAll(async () => {
  gateway = await startTestGateway();
  own = await newWorkspace(gateway, { name: 'Team A' });
  elsewhere = await newWorkspace(gateway, { name: 'Finance' });
  confinedKey = (await newKey(gateway, { workspace_id: own.id, scopes: ['scim'] })).key;
  elsewhereKey = (await newKey(gateway, { workspace_id: elsewhere.id, scopes: ['scim'] })).key;
  // Every command the process's store client sends (the test gateway runs in this process), while `counting`.
  watchStoreCommands('scimConfinedStoreWork', (command) => {
    if (counting) commands.push(command);
  });
}, 120_000);
afterAll(async () => {
  await gateway?.close();
});

function user(userName: string, email: string): Record<string, unknown> {
  return { schemas: [USER], userName, name: { givenName: 'A', familyName: 'B' }, emails: [{ value: email, type: 'work', primary: true }], active: true };
}

/**
 * What a reply tells its reader beyond what the caller chose: the caller's own words (userName, address, ids it was
 * given or named) and the server's fresh ids and clock readings are replaced by placeholders.
 */
function told(reply: ScimReply, callersOwnWords: string[] = []): string {
  let text = JSON.stringify({ status: reply.status, body: reply.body });
  // Longest first, so a userName inside its own address is not replaced half-way.
  for (const words of [...callersOwnWords].sort((a, b) => b.length - a.length)) text = text.split(words).join('<own>');
  return text
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>');
}

describe('a confined SCIM key gets the same answer for a name held in another workspace as for a free one', () => {
  it('create: a userName or e-mail held elsewhere is a 201 carrying only what the caller sent, like a free one', async () => {
    const suffix = randomUUID().slice(0, 8);
    const free = await scim(gateway, 'POST', '/Users', user(`free-${suffix}`, `free-${suffix}@example.com`), confinedKey);
    expect(free.status, JSON.stringify(free.body)).toBe(201);
    const held = await holdElsewhere();
    const cases: Array<[string, string]> = [
      [held.invited.email, `probe-a-${suffix}@example.com`],
      [`probe-b-${suffix}`, held.invited.email.toUpperCase()],
      [held.adminScim.userName, `probe-c-${suffix}@example.com`],
      [`probe-d-${suffix}`, held.adminScim.email],
      [held.identity.userName, held.identityEmail],
    ];
    for (const [userName, email] of cases) {
      const reply = await scim(gateway, 'POST', '/Users', user(userName, email), confinedKey);
      expect(told(reply, [userName, email]), `${userName} / ${email}`).toBe(told(free, [`free-${suffix}`, `free-${suffix}@example.com`]));
    }
  });

  it('create and rename: a name held elsewhere costs the same store commands as a free one', async () => {
    const held = await holdElsewhere();
    const suffix = randomUUID().slice(0, 8);
    // Warm the key's authentication cache, so neither measured call reads the key.
    await scim(gateway, 'GET', '/ServiceProviderConfig', undefined, confinedKey);
    const free = await storeWorkOf(() => scim(gateway, 'POST', '/Users', user(`work-${suffix}`, `work-${suffix}@example.com`), confinedKey));
    const taken = await storeWorkOf(() => scim(gateway, 'POST', '/Users', user(held.adminScim.userName, held.invited.email), confinedKey));
    expect([free.reply.status, taken.reply.status]).toEqual([201, 201]);
    expect(free.commands.length).toBeGreaterThan(3);
    expect(taken.commands).toEqual(free.commands);
    const id = String(free.reply.body.id);
    const freeRename = await storeWorkOf(() => scim(gateway, 'PATCH', `/Users/${id}`, patchOp({ op: 'replace', path: 'userName', value: `work-2-${suffix}` }), confinedKey));
    const takenRename = await storeWorkOf(() => scim(gateway, 'PATCH', `/Users/${id}`, patchOp({ op: 'replace', path: 'userName', value: held.identity.userName }), confinedKey));
    expect([freeRename.reply.status, takenRename.reply.status]).toEqual([200, 200]);
    expect(takenRename.commands).toEqual(freeRename.commands);
    // A GET by the id of another workspace's user reads what a GET by an unknown id reads.
    const elsewhereGet = await storeWorkOf(() => scim(gateway, 'GET', `/Users/${held.invited.id}`, undefined, confinedKey));
    const absentGet = await storeWorkOf(() => scim(gateway, 'GET', '/Users/3f0c1d2e-0000-4000-8000-000000000002', undefined, confinedKey));
    expect([elsewhereGet.reply.status, absentGet.reply.status]).toEqual([404, 404]);
    expect(elsewhereGet.commands).toEqual(absentGet.commands);
  });

  it('PUT and PATCH: renaming to a userName held elsewhere answers as renaming to a free one', async () => {
    const suffix = randomUUID().slice(0, 8);
    const mine = (await scim<Resource>(gateway, 'POST', '/Users', user(`renamed-${suffix}`, `renamed-${suffix}@example.com`), confinedKey)).body;
    const rename = async (method: 'PUT' | 'PATCH', userName: string) =>
      scim(gateway, method, `/Users/${mine.id}`, method === 'PUT' ? user(userName, `renamed-${suffix}@example.com`) : patchOp({ op: 'replace', path: 'userName', value: userName }), confinedKey);
    const { invited, adminScim, identity } = await holdElsewhere();
    for (const method of ['PUT', 'PATCH'] as const) {
      for (const held of [adminScim.userName, invited.email, identity.userName]) {
        const free = await rename(method, `free-${method}-${suffix}`);
        expect(free.status, JSON.stringify(free.body)).toBe(200);
        const taken = await rename(method, held);
        expect(told(taken, [held]), `${method} ${held}`).toBe(told(free, [`free-${method}-${suffix}`]));
      }
    }
  });

  it('filter: a userName or e-mail held elsewhere matches nothing, as one nobody holds', async () => {
    const held = await holdElsewhere();
    const filters = [`userName eq "${held.invited.email}"`, `emails.value eq "${held.invited.email}"`, `userName eq "${held.adminScim.userName}"`, `emails.value eq "${held.adminScim.email}"`, `userName eq "${held.identity.userName}"`];
    for (const filter of filters) {
      const other = await scim<ListResponse>(gateway, 'GET', `/Users?filter=${encodeURIComponent(filter)}`, undefined, confinedKey);
      const none = await scim<ListResponse>(gateway, 'GET', `/Users?filter=${encodeURIComponent(filter.replace(/"[^"]+"/, '"nobody-at-all@example.com"'))}`, undefined, confinedKey);
      expect(other.status).toBe(200);
      expect(told(other), filter).toBe(told(none));
    }
    // Once the key provisions such a name itself, the filter finds its own identity, and only that.
    const mine = (await scim<Resource>(gateway, 'POST', '/Users', user('filter-own', held.invited.email), confinedKey)).body;
    const found = await scim<ListResponse>(gateway, 'GET', `/Users?filter=${encodeURIComponent(`emails.value eq "${held.invited.email}"`)}`, undefined, confinedKey);
    expect(found.body.Resources.map((resource) => resource.id)).toEqual([mine.id]);
  });

  it('GET, PUT, PATCH, DELETE by the id of another workspace’s user or identity answer as for an id that does not exist', async () => {
    const absent = '3f0c1d2e-0000-4000-8000-000000000000';
    const held = await holdElsewhere();
    for (const id of [held.invited.id, held.identity.id]) {
      for (const method of ['GET', 'PUT', 'PATCH', 'DELETE'] as const) {
        const body = method === 'PUT' ? user('x', 'x@example.com') : method === 'PATCH' ? patchOp({ op: 'replace', path: 'displayName', value: 'X' }) : undefined;
        const other = await scim(gateway, method, `/Users/${id}`, body, confinedKey);
        expect(other.status, `${method} ${id}`).toBe(404);
        expect(told(other, [id])).toBe(told(await scim(gateway, method, `/Users/${absent}`, body, confinedKey), [absent]));
      }
    }
    expect((await scim<Resource>(gateway, 'GET', `/Users/${held.identity.id}`, undefined, elsewhereKey)).body).toMatchObject({ userName: held.identity.userName, active: true });
  });

  it('the organisation admin key’s own workspace gets no sight of the users that key provisions', async () => {
    // A scim key of the workspace the admin key belongs to (a key made without workspace_id).
    const homeKey = (await newKey(gateway, { scopes: ['scim'] })).key;
    const userName = `org-idp-${randomUUID().slice(0, 8)}`;
    const created = await scim<Resource>(gateway, 'POST', '/Users', user(userName, `${userName}@example.com`));
    expect(created.status).toBe(201);
    const filtered = await scim<ListResponse>(gateway, 'GET', `/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`, undefined, homeKey);
    expect(filtered.body.totalResults).toBe(0);
    expect((await scim(gateway, 'GET', `/Users/${created.body.id}`, undefined, homeKey)).status).toBe(404);
  });

  it('a second workspace’s key can neither list nor add to its group the first workspace’s identities', async () => {
    const mine = (await scim<Resource>(gateway, 'POST', '/Users', user(`only-mine-${randomUUID().slice(0, 8)}`, 'mine@example.com'), confinedKey)).body;
    const listed = await scim<ListResponse>(gateway, 'GET', '/Users', undefined, elsewhereKey);
    expect(listed.body.Resources.map((resource) => resource.id)).not.toContain(mine.id);
    expect((await scim(gateway, 'POST', '/Groups', { schemas: [GROUP], displayName: 'Finance' }, elsewhereKey)).status).toBe(201);
    const absent = '3f0c1d2e-0000-4000-8000-000000000001';
    const add = (id: string) => scim(gateway, 'PATCH', `/Groups/${elsewhere.id}`, patchOp({ op: 'add', path: 'members', value: [{ value: id }] }), elsewhereKey);
    const refused = await add(mine.id);
    expect(refused.status).toBe(400);
    expect(told(refused, [mine.id])).toBe(told(await add(absent), [absent]));
    // Nor may it pull an organisation user it cannot see into its workspace by id (it used to: any user of the organisation).
    const outsider = await api<{ id: string }>(gateway, 'POST', '/v1/admin/users/invites', { body: { email: `pulled-${randomUUID().slice(0, 8)}@example.com`, workspaces: [{ workspace_id: own.id, role: 'member' }] } });
    const pulled = await add(outsider.body.id);
    expect(told(pulled, [outsider.body.id])).toBe(told(await add(absent), [absent]));
    expect((await api<{ workspaces: Array<{ workspace_id: string }> }>(gateway, 'GET', `/v1/admin/users/${outsider.body.id}`)).body.workspaces).toEqual([{ workspace_id: own.id, role: 'member' }]);
  });
});
