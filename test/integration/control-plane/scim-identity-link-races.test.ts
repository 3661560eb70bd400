import { randomUUID } from 'node:crypto';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settings } from '../../../shared/settings.js';
import { dynamoDocumentClient } from '../../../shared/store/dynamo-client.js';
import { MAIN_TABLE, tableName } from '../../../shared/store/table-definitions.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { watchStoreCommands } from '../../support/store-commands.js';
import { api, expectError, inviteMember, type Reply, type Workspace } from './identities-support.js';
import { confinedScimWorkspace, patchOp, scim, USER } from './scim-support.js';

/**
 * Lost updates of a workspace identity (docs/control-plane/scim.md, "Workspace identities"): an organisation admin's
 * link writes over the identity as it read it, so two links made from one read, or a link racing the IdP's
 * deprovisioning or the identity's removal, cannot both land. Each race is made certain, not hoped for: the store
 * client of this process (the test gateway runs in it) holds the identity writes until every racer has reached its
 * write, then lets them go.
 */
type Identity = { id: string; status: 'pending' | 'linked'; user_id: string | null; active: boolean };
type User = { id: string; workspaces: Array<{ workspace_id: string }> };

let gateway: TestGateway;
let own: Workspace;
let elsewhere: Workspace;
let confinedKey: string;

/** The identity writes held now, and how many to hold before they all go on together. */
let hold = 0;
let held: Array<() => void> = [];
let allHeld: () => void = () => undefined;

beforeAll(async () => {
  gateway = await startTestGateway();
  ({ own, elsewhere, confinedKey } = await confinedScimWorkspace(gateway));
  watchStoreCommands('scimIdentityWriteGate', async (command, input) => {
    if (held.length < hold && command.startsWith('Put') && writesIdentity(input)) {
      await new Promise<void>((resolve) => {
        held.push(resolve);
        if (held.length === hold) allHeld();
      });
    }
  });
}, 120_000);
afterAll(async () => {
  await gateway?.close();
});

function writesIdentity(input: object): boolean {
  const sk = (input as { Item?: { sk?: unknown } }).Item?.sk;
  const text = typeof sk === 'string' ? sk : (sk as { S?: string } | undefined)?.S;
  return text?.startsWith('IDENT#') ?? false;
}

/** Holds the next `count` identity writes; `arrived` resolves once all are held, `release` lets them go on. */
function holdIdentityWrites(count: number): { arrived: Promise<void>; release(): void } {
  hold = count;
  held = [];
  const arrived = new Promise<void>((resolve) => (allHeld = resolve));
  return {
    arrived,
    release: () => {
      hold = 0;
      for (const resume of held) resume();
    },
  };
}

/** A pending identity the confined key provisioned, outside the group. */
async function pendingIdentity(prefix: string): Promise<string> {
  const name = `${prefix}-${randomUUID().slice(0, 8)}@example.com`;
  const created = await scim<{ id: string }>(gateway, 'POST', '/Users', { schemas: [USER], userName: name, emails: [{ value: name, primary: true }] }, confinedKey);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id;
}

async function pendingIdentityInGroup(): Promise<string> {
  const name = `racer-${randomUUID().slice(0, 8)}@example.com`;
  const created = await scim<{ id: string }>(gateway, 'POST', '/Users', { schemas: [USER], userName: name, emails: [{ value: name, primary: true }] }, confinedKey);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expect((await scim(gateway, 'PATCH', `/Groups/${own.id}`, patchOp({ op: 'add', path: 'members', value: [{ value: created.body.id }] }), confinedKey)).status).toBe(204);
  return created.body.id;
}

const link = (id: string, userId: string) => api<Identity>(gateway, 'POST', `/v1/admin/scim-identities/${id}/link`, { body: { user_id: userId } });
const identityOf = async (id: string) => (await api<{ data: Identity[] }>(gateway, 'GET', `/v1/admin/scim-identities?workspace_id=${own.id}`)).body.data.find((identity) => identity.id === id);
const isMember = async (userId: string) => (await api<User>(gateway, 'GET', `/v1/admin/users/${userId}`)).body.workspaces.some((membership) => membership.workspace_id === own.id);

describe('lost updates: an admin’s link of a workspace identity', () => {
  it('of two admins linking one identity at once, exactly one lands (200) and the other is 409 already_linked', async () => {
    const id = await pendingIdentityInGroup();
    const [first, second] = await Promise.all([inviteMember(gateway, `first-${id}@example.com`, elsewhere.id), inviteMember(gateway, `second-${id}@example.com`, elsewhere.id)]);
    const gate = holdIdentityWrites(2);
    const replies = Promise.all([link(id, first), link(id, second)]);
    await gate.arrived;
    gate.release();
    const answered = await replies;

    expect(answered.map((reply) => reply.status).sort()).toEqual([200, 409]);
    const winner = answered.find((reply) => reply.status === 200)!.body.user_id!;
    expectError(answered.find((reply) => reply.status === 409) as Reply<unknown>, 409, 'already_linked');
    expect(await identityOf(id)).toMatchObject({ status: 'linked', user_id: winner });
    // Only the user the identity stands for got the workspace.
    const loser = winner === first ? second : first;
    expect({ winner: await isMember(winner), loser: await isMember(loser) }).toEqual({ winner: true, loser: false });
  });

  it('racing the IdP’s deprovisioning is 409 and never makes the identity active again', async () => {
    const id = await pendingIdentityInGroup();
    const userId = await inviteMember(gateway, `kept-out-${id}@example.com`, elsewhere.id);
    const gate = holdIdentityWrites(1);
    const linking = link(id, userId);
    await gate.arrived;
    // The link has read the identity (active) and waits at its write; the IdP deprovisions it meanwhile.
    expect((await scim(gateway, 'DELETE', `/Users/${id}`, undefined, confinedKey)).status).toBe(204);
    gate.release();

    expectError(await linking, 409, 'scim_identity_changed');
    expect(await identityOf(id)).toMatchObject({ status: 'pending', active: false, user_id: null });
    expect((await scim<{ active: boolean }>(gateway, 'GET', `/Users/${id}`, undefined, confinedKey)).body.active).toBe(false);
    expect(await isMember(userId)).toBe(false);
    // Read again, the link goes through: the deactivated identity grants nothing until the IdP makes it active.
    expect((await link(id, userId)).status).toBe(200);
    expect(await isMember(userId)).toBe(false);
  });

  it('of an identity removed meanwhile is 404 and does not bring it back', async () => {
    const id = await pendingIdentityInGroup();
    const userId = await inviteMember(gateway, `late-${id}@example.com`, elsewhere.id);
    const gate = holdIdentityWrites(1);
    const linking = link(id, userId);
    await gate.arrived;
    const key = { pk: `SCIMIDS#${gateway.bootstrap.organisationId}`, sk: `IDENT#${own.id}#${id}` };
    await dynamoDocumentClient().send(new DeleteCommand({ TableName: tableName(settings(), MAIN_TABLE), Key: key }));
    gate.release();

    expectError(await linking, 404, 'not_found');
    expect(await identityOf(id)).toBeUndefined();
    expect(await isMember(userId)).toBe(false);
    // And a link after the removal is the same 404.
    expectError(await link(id, userId), 404, 'not_found');
  });
});

describe('lost updates: one user linked to two identities of a workspace', () => {
  it('an admin’s link racing a create that would link the same member automatically: the link holds, the new identity stays pending', async () => {
    const id = await pendingIdentity('linked-first');
    const memberEmail = `member-${randomUUID().slice(0, 8)}@example.com`;
    const memberId = await inviteMember(gateway, memberEmail, own.id);
    const gate = holdIdentityWrites(1);
    const linking = link(id, memberId);
    await gate.arrived;
    // The link has claimed the member and waits at its write; the IdP provisions the member's address meanwhile.
    const created = await scim<{ id: string }>(gateway, 'POST', '/Users', { schemas: [USER], userName: memberEmail, emails: [{ value: memberEmail, primary: true }] }, confinedKey);
    gate.release();

    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect((await linking).status).toBe(200);
    expect(await identityOf(id)).toMatchObject({ status: 'linked', user_id: memberId });
    expect(await identityOf(created.body.id)).toMatchObject({ status: 'pending', user_id: null });
  });

  it('of 200 admins linking 200 different identities to one user at once, exactly one lands and 199 are 409 user_already_linked', async () => {
    const ids: string[] = [];
    // Provisioned a few at a time: the race is in the links, not here.
    for (let batch = 0; batch < 10; batch++) ids.push(...(await Promise.all(Array.from({ length: 20 }, () => pendingIdentity('many')))));
    const userId = await inviteMember(gateway, `one-user-${randomUUID().slice(0, 8)}@example.com`, elsewhere.id);

    const answered = await Promise.all(ids.map((id) => link(id, userId)));

    const statuses = answered.map((reply) => reply.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    for (const reply of answered.filter((candidate) => candidate.status !== 200)) expectError(reply as Reply<unknown>, 409, 'user_already_linked');
    const linked = (await api<{ data: Identity[] }>(gateway, 'GET', `/v1/admin/scim-identities?workspace_id=${own.id}`)).body.data.filter((identity) => identity.user_id === userId);
    expect(linked.map((identity) => identity.id)).toEqual([answered.find((reply) => reply.status === 200)!.body.id]);
  }, 120_000);
});
