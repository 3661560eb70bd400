import { randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settings } from '../../../shared/settings.js';
import { dynamoDocumentClient } from '../../../shared/store/dynamo-client.js';
import { MAIN_TABLE, tableName } from '../../../shared/store/table-definitions.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { watchStoreCommands } from '../../support/store-commands.js';
import { api, expectError, inviteMember, type Workspace } from './identities-support.js';
import { confinedScimWorkspace, scim, USER } from './scim-support.js';

/**
 * Class: a whole-collection read to find one item. An admin's link of a SCIM identity names only its id; it read
 * every identity of the organisation to find it (and again to check the user's other links), so each link cost
 * the organisation's size and a 200-way race took about a minute. Now the identity is two point reads (its
 * `BYID#` pointer, then the item), a link that loses the user's claim reads no list at all, and only the claim's
 * holder reads its own workspace's identities (for links written before claims were kept). The test gateway runs
 * in this process, so its store client's Queries are counted here.
 */
let gateway: TestGateway;
let own: Workspace;
let elsewhere: Workspace;
let confinedKey: string;
let queries: string[][] = [];

beforeAll(async () => {
  gateway = await startTestGateway();
  ({ own, elsewhere, confinedKey } = await confinedScimWorkspace(gateway));
  watchStoreCommands('scimIdentityQueryCounter', (command, input) => {
    if (command !== 'QueryCommand') return;
    const values = (input as { ExpressionAttributeValues?: Record<string, unknown> }).ExpressionAttributeValues ?? {};
    queries.push(Object.values(values).filter((value): value is string => typeof value === 'string'));
  });
}, 120_000);
afterAll(async () => {
  await gateway?.close();
});

async function pendingIdentity(): Promise<string> {
  const name = `cost-${randomUUID().slice(0, 8)}@example.com`;
  const created = await scim<{ id: string }>(gateway, 'POST', '/Users', { schemas: [USER], userName: name, emails: [{ value: name, primary: true }] }, confinedKey);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id;
}

const link = (id: string, userId: string) => api<{ id: string; user_id: string | null }>(gateway, 'POST', `/v1/admin/scim-identities/${id}/link`, { body: { user_id: userId } });

/** The identity queries made while `action` ran (a key prefix starting `IDENT#` is a list of identities). */
async function identityListsDuring(action: () => Promise<void>): Promise<string[]> {
  queries = [];
  await action();
  return queries.flat().filter((value) => value.startsWith('IDENT#'));
}

describe('an admin’s link of a SCIM identity: a whole-collection read to find one item', () => {
  it('finds the identity by point reads; only the user claim’s holder lists, and only its own workspace', async () => {
    const [first, second] = [await pendingIdentity(), await pendingIdentity()];
    const userId = await inviteMember(gateway, `cost-user-${randomUUID().slice(0, 8)}@example.com`, elsewhere.id);

    const winner = await identityListsDuring(async () => expect((await link(first, userId)).status).toBe(200));
    expect(winner).toEqual([`IDENT#${own.id}#`]);

    const loser = await identityListsDuring(async () => expectError(await link(second, userId), 409, 'user_already_linked'));
    expect(loser).toEqual([]);

    const again = await identityListsDuring(async () => expectError(await link(first, userId), 409, 'already_linked'));
    expect(again).toEqual([]);
  });

  it('finds an identity created before pointers were written by the list once, then by point reads', async () => {
    const id = await pendingIdentity();
    const pointer = { pk: `SCIMIDS#${gateway.bootstrap.organisationId}`, sk: `BYID#${id}` };
    const table = tableName(settings(), MAIN_TABLE);
    expect((await dynamoDocumentClient().send(new GetCommand({ TableName: table, Key: pointer }))).Item).toMatchObject({ workspace_id: own.id });
    await dynamoDocumentClient().send(new DeleteCommand({ TableName: table, Key: pointer }));

    const userId = await inviteMember(gateway, `legacy-${randomUUID().slice(0, 8)}@example.com`, elsewhere.id);
    const legacy = await identityListsDuring(async () => expect((await link(id, userId)).status).toBe(200));
    expect(legacy).toContain('IDENT#');
    const after = await identityListsDuring(async () => expectError(await link(id, userId), 409, 'already_linked'));
    expect(after).toEqual([]);
  });
});
