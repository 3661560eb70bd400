import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settings } from '../../../shared/settings.js';
import { ConfigRepository, type SavedConfigRecord, type SavedConfigVersion } from '../../../shared/store/config-repository.js';
import { dynamoDocumentClient } from '../../../shared/store/dynamo-client.js';
import { GuardrailRepository, type GuardrailRecord } from '../../../shared/store/guardrail-repository.js';
import { MAIN_TABLE, tableName } from '../../../shared/store/table-definitions.js';
import { VersionedDocuments } from '../../../shared/store/versioned/versioned-documents.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';

/**
 * The one versioned-document store behind saved configs and guardrails, against the embedded store through the
 * real AWS SDK: the item layout existing data depends on, reads of a version, concurrent updates, and 404s.
 */
let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startTestGateway();
});
afterAll(() => gateway?.close());

const table = () => tableName(settings(), MAIN_TABLE);
const rawItem = async (pk: string, sk: string) => (await dynamoDocumentClient().send(new GetCommand({ TableName: table(), Key: { pk, sk } }))).Item;
const configs = () => new VersionedDocuments<SavedConfigRecord, SavedConfigVersion>(new ConfigRepository(), { noun: 'saved config', idPrefix: 'cfg' });
const ref = (name: string) => ({ name, fields: [{ path: ['api_key'], masked: '********' }] });

describe('versioned documents', () => {
  it('keep the item layout stored data depends on: a LATEST item listed in gsi1, one V#<9 digits> item a version', async () => {
    const workspaceId = `ws-layout-${Date.now()}`;
    const documents = configs();
    const created = await documents.repository.create({ id: 'cfg-layout', workspace_id: workspaceId, name: 'layout', config: { provider: 'openai' }, created_at: '2026-01-01T00:00:00.000Z' });
    await documents.update(created, { name: 'renamed', config: { provider: 'anthropic' } });

    const latest = await rawItem(`WS#${workspaceId}#CONFIG#cfg-layout`, 'LATEST');
    expect(latest).toMatchObject({ gsi1pk: `WS#${workspaceId}#CONFIGS`, gsi1sk: 'cfg-layout', id: 'cfg-layout', name: 'renamed', version: 2, config: { provider: 'anthropic' } });
    expect(await rawItem(`WS#${workspaceId}#CONFIG#cfg-layout`, 'V#000000001')).toEqual({
      pk: `WS#${workspaceId}#CONFIG#cfg-layout`,
      sk: 'V#000000001',
      id: 'cfg-layout',
      version: 1,
      config: { provider: 'openai' },
      created_at: '2026-01-01T00:00:00.000Z',
    });
    expect(await rawItem(`WS#${workspaceId}#CONFIG#cfg-layout`, 'V#000000002')).toMatchObject({ version: 2, config: { provider: 'anthropic' } });

    const guardrails = new GuardrailRepository();
    const guardrail = { id: 'grd-layout', workspace_id: workspaceId, name: 'prefix', type: 'add_prefix', config: { prefix: 'Be brief. ' }, created_at: '2026-01-01T00:00:00.000Z' };
    await guardrails.create(guardrail as Omit<GuardrailRecord, 'version' | 'updated_at'>);
    expect(await rawItem(`WS#${workspaceId}#GUARDRAIL#grd-layout`, 'V#000000001')).toMatchObject({ name: 'prefix', type: 'add_prefix', version: 1 });
    const listed = await dynamoDocumentClient().send(
      new QueryCommand({ TableName: table(), IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :pk', ExpressionAttributeValues: { ':pk': `WS#${workspaceId}#GUARDRAILS` } }),
    );
    expect(listed.Items?.map((item) => item.id)).toEqual(['grd-layout']);
  });

  it('read a version as the document was then, a field that version lacked included', async () => {
    const documents = configs();
    const workspaceId = `ws-pinned-${Date.now()}`;
    const created = await documents.repository.create({ id: documents.newId(), workspace_id: workspaceId, name: 'pinned', config: { v: 1 }, created_at: '2026-01-01T00:00:00.000Z' });
    // Version 2 holds a credential (a secret reference), version 1 held none.
    await documents.update(created, { name: 'renamed', config: { v: 2 }, secret_ref: ref('second') });

    const latest = await documents.get(workspaceId, created.id);
    expect(latest).toMatchObject({ version: 2, name: 'renamed', config: { v: 2 }, secret_ref: ref('second') });
    const first = await documents.get(workspaceId, created.id, 1);
    // The name lives on the latest item only; the version's own fields (config, secret_ref) are version 1's.
    expect(first).toMatchObject({ version: 1, name: 'renamed', config: { v: 1 }, updated_at: '2026-01-01T00:00:00.000Z' });
    expect(first.secret_ref).toBeUndefined();
    expect((await documents.versions(workspaceId, created.id)).map((version) => version.version)).toEqual([2, 1]);
  });

  it('let exactly one of two concurrent updates win; the other is a 409 that undoes what it prepared', async () => {
    const documents = configs();
    const workspaceId = `ws-race-${Date.now()}`;
    const current = await documents.repository.create({ id: documents.newId(), workspace_id: workspaceId, name: 'race', config: { v: 1 }, created_at: new Date().toISOString() });
    let undone = 0;
    const undo = async () => {
      undone++;
    };
    const results = await Promise.allSettled([documents.update(current, { config: { by: 'a' } }, undo), documents.update(current, { config: { by: 'b' } }, undo)]);

    const won = results.filter((result) => result.status === 'fulfilled');
    const lost = results.filter((result) => result.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect((lost[0] as PromiseRejectedResult).reason).toMatchObject({ status: 409, code: 'conflict', message: `Saved config '${current.id}' was changed concurrently; read it again and retry` });
    expect(undone).toBe(1);
    const latest = await documents.get(workspaceId, current.id);
    expect(latest.version).toBe(2);
    expect(latest.config).toEqual((won[0] as PromiseFulfilledResult<SavedConfigRecord>).value.config);
  });

  it('answer 404 naming the unknown id or version, and find no other workspace’s document', async () => {
    const documents = new VersionedDocuments(new GuardrailRepository(), { noun: 'guardrail', idPrefix: 'grd' });
    const workspaceId = `ws-404-${Date.now()}`;
    const id = documents.newId();
    expect(id).toMatch(/^grd-[A-Za-z0-9_-]{12}$/);
    await documents.repository.create({ id, workspace_id: workspaceId, name: 'x', type: 'add_prefix', config: { prefix: 'x' }, created_at: new Date().toISOString() } as Omit<GuardrailRecord, 'version' | 'updated_at'>);

    await expect(documents.get(workspaceId, 'grd-missing')).rejects.toMatchObject({ status: 404, code: 'not_found', message: "No guardrail with id 'grd-missing' in this workspace" });
    await expect(documents.get(workspaceId, id, 7)).rejects.toMatchObject({ status: 404, message: `Guardrail '${id}' has no version 7` });
    await expect(documents.get('ws-other', id)).rejects.toMatchObject({ status: 404 });
    await expect(documents.versions('ws-other', id)).rejects.toMatchObject({ status: 404 });
    expect((await documents.list('ws-other', { limit: 10 })).items).toEqual([]);
  });
});
