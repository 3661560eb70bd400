import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PromptVersionView, PromptView } from '../../../shared/control-plane/prompts/schemas.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { allPages, api, expectError, newKey, newWorkspace, otherOrganisation, type Page, type Reply } from './identities-support.js';

let gateway: TestGateway;
let otherWorkspaceId: string;
let otherWorkspaceWriter: string;
let readOnly: string;
let listOnly: string;
let renderOnly: string;
let otherOrgAdmin: string;

const template = {
  name: 'support reply',
  description: 'Answers a customer',
  messages: [
    { role: 'system', content: 'You are the support agent of {{company}}.' },
    { role: 'user', content: '{{question}}' },
  ],
  model: 'gpt-4o-mini',
  hyperparameters: { temperature: 0.2, max_tokens: 300 },
};

const call = <Body = PromptView>(method: string, path: string, options: Parameters<typeof api>[3] = {}): Promise<Reply<Body>> => api<Body>(gateway, method, path, options);
const create = (body: Record<string, unknown> = template, key?: string) => call('POST', '/v1/prompts', { body, key });

beforeAll(async () => {
  gateway = await startTestGateway();
  const other = await newWorkspace(gateway);
  otherWorkspaceId = other.id;
  otherWorkspaceWriter = (await newKey(gateway, { workspace_id: other.id, scopes: ['prompts:read', 'prompts:write', 'prompts:render'] })).key;
  readOnly = (await newKey(gateway, { scopes: ['prompts:read'] })).key;
  listOnly = (await newKey(gateway, { scopes: ['prompts:list'] })).key;
  renderOnly = (await newKey(gateway, { scopes: ['prompts:render'] })).key;
  otherOrgAdmin = (await otherOrganisation()).adminKey;
});
afterAll(async () => {
  await gateway?.close();
});

describe('POST /v1/prompts', () => {
  it('creates a prompt with version 1, published', async () => {
    const reply = await create();
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({
      object: 'prompt',
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      workspace_id: gateway.bootstrap.workspaceId,
      name: 'support reply',
      description: 'Answers a customer',
      latest_version: 1,
      published_version: 1,
      labels: {},
      created_at: expect.any(String),
      updated_at: expect.any(String),
      version: {
        object: 'prompt_version',
        prompt_id: reply.body.id,
        version: 1,
        messages: template.messages,
        model: 'gpt-4o-mini',
        hyperparameters: { temperature: 0.2, max_tokens: 300 },
        created_at: expect.any(String),
      },
    });
  });

  it('refuses each invalid body with a 400 naming the field', async () => {
    const without = (field: string) => Object.fromEntries(Object.entries(template).filter(([key]) => key !== field));
    expectError(await create(without('name')), 400, 'invalid_request', { param: 'name' });
    expectError(await create(without('messages')), 400, 'invalid_request', { param: 'messages' });
    expectError(await create({ ...template, messages: [] }), 400, 'invalid_request', { param: 'messages' });
    expectError(await create({ ...template, messages: [{ content: 'no role' }] }), 400, 'invalid_request', { param: 'messages[0].role' });
    expectError(await create({ ...template, messages: [{ role: 'user', content: 'Hi {{name' }] }), 400, 'invalid_template', { param: 'messages[0].content', message: /Unclosed tag/ });
    expectError(await create({ ...template, messages: [{ role: 'user', content: '{{#items}}open' }] }), 400, 'invalid_template', { param: 'messages[0].content' });
    expectError(await create({ ...template, messages: [{ role: 'user', content: '{{> header}}' }] }), 400, 'invalid_template', { message: /partials/ });
    expectError(await create({ ...template, hyperparameters: { temperature: 3 } }), 400, 'invalid_request', { param: 'hyperparameters.temperature' });
    expectError(await create({ ...template, hyperparameters: { temprature: 1 } }), 400, 'invalid_request', { param: 'hyperparameters', message: /temprature/ });
    expectError(await create({ ...template, model: 5 }), 400, 'invalid_request', { param: 'model' });
    expectError(await create({ ...template, extra: true }), 400, 'invalid_request', { message: /extra/ });
    expectError(await call('POST', '/v1/prompts', { body: '{"name":' }), 400, 'invalid_json');
  });
});

describe('versions, publishing and labels', () => {
  it('makes every update a new version from the latest, published only on request', async () => {
    const { body: created } = await create();
    const id = created.id;

    const v2 = await call('PATCH', `/v1/prompts/${id}`, { body: { model: 'gpt-4o', version_description: 'bigger model' } });
    expect(v2.status).toBe(200);
    expect(v2.body).toMatchObject({ latest_version: 2, published_version: 1, version: { version: 2, model: 'gpt-4o', description: 'bigger model', messages: template.messages } });

    const v3 = await call('PATCH', `/v1/prompts/${id}`, { body: { name: 'renamed', hyperparameters: { temperature: 0.9 }, model: null, publish: true } });
    expect(v3.body).toMatchObject({ name: 'renamed', latest_version: 3, published_version: 3, version: { version: 3, hyperparameters: { temperature: 0.9 } } });
    expect(v3.body.version?.model).toBeUndefined();

    // Reading: the published version by default, any version or label on request.
    expect((await call('GET', `/v1/prompts/${id}`)).body.version?.version).toBe(3);
    expect((await call('GET', `/v1/prompts/${id}?version=1`)).body.version?.model).toBe('gpt-4o-mini');
    expect((await call('GET', `/v1/prompts/${id}?label=latest`)).body.version?.version).toBe(3);

    const versions = await allPages<PromptVersionView>(gateway, `/v1/prompts/${id}/versions`, {}, 2);
    expect(versions.items.map((version) => version.version)).toEqual([3, 2, 1]);
    expect(versions.pages).toBe(2);
    const one = await call<PromptVersionView>('GET', `/v1/prompts/${id}/versions/2`);
    expect(one.body).toMatchObject({ object: 'prompt_version', prompt_id: id, version: 2, model: 'gpt-4o' });

    const published = await call('POST', `/v1/prompts/${id}/versions/2/publish`);
    expect(published.status).toBe(200);
    expect(published.body).toMatchObject({ published_version: 2, latest_version: 3 });
    expect((await call('GET', `/v1/prompts/${id}`)).body.version?.version).toBe(2);
  });

  it('points labels at versions, reads by label, and removes them', async () => {
    const { body: created } = await create();
    const id = created.id;
    await call('PATCH', `/v1/prompts/${id}`, { body: { model: 'staging-model' } });

    const labelled = await call('PUT', `/v1/prompts/${id}/labels/staging`, { body: { version: 2 } });
    expect(labelled.status).toBe(200);
    expect(labelled.body.labels).toEqual({ staging: 2 });
    expect((await call('GET', `/v1/prompts/${id}?label=staging`)).body.version?.model).toBe('staging-model');
    await call('PUT', `/v1/prompts/${id}/labels/staging`, { body: { version: 1 } });
    expect((await call('GET', `/v1/prompts/${id}?label=staging`)).body.version?.version).toBe(1);

    const removed = await call('DELETE', `/v1/prompts/${id}/labels/staging`);
    expect(removed.status).toBe(200);
    expect(removed.body.labels).toEqual({});
    expectError(await call('GET', `/v1/prompts/${id}?label=staging`), 404, 'not_found', { message: /no label 'staging'/ });
    expectError(await call('DELETE', `/v1/prompts/${id}/labels/staging`), 404, 'not_found');
  });

  it('refuses bad versions, labels and selectors', async () => {
    const { body: created } = await create();
    const id = created.id;
    expectError(await call('GET', `/v1/prompts/${id}?version=9`), 404, 'not_found', { message: /no version 9/ });
    expectError(await call('GET', `/v1/prompts/${id}?version=0`), 400, 'invalid_version', { param: 'version' });
    expectError(await call('GET', `/v1/prompts/${id}?version=1&label=latest`), 400, 'invalid_version_selector');
    expectError(await call('GET', `/v1/prompts/${id}?label=${encodeURIComponent('bad label')}`), 400, 'invalid_label', { param: 'label' });
    expectError(await call('GET', `/v1/prompts/${id}/versions/abc`), 400, 'invalid_version', { param: 'version' });
    expectError(await call('POST', `/v1/prompts/${id}/versions/5/publish`), 404, 'not_found');
    expectError(await call('PUT', `/v1/prompts/${id}/labels/staging`, { body: { version: 5 } }), 404, 'not_found');
    expectError(await call('PUT', `/v1/prompts/${id}/labels/staging`, { body: {} }), 400, 'invalid_request', { param: 'version' });
    expectError(await call('PUT', `/v1/prompts/${id}/labels/staging`, { body: { version: 'one' } }), 400, 'invalid_request', { param: 'version' });
    expectError(await call('PUT', `/v1/prompts/${id}/labels/latest`, { body: { version: 1 } }), 400, 'reserved_label', { param: 'label' });
    expectError(await call('PUT', `/v1/prompts/${id}/labels/${encodeURIComponent('a b')}`, { body: { version: 1 } }), 400, 'invalid_label');
    expectError(await call('PATCH', `/v1/prompts/${id}`, { body: {} }), 400, 'invalid_request', { message: /at least one field/ });
    expectError(await call('PATCH', `/v1/prompts/${id}`, { body: { publish: true } }), 400, 'invalid_request', { message: /at least one field/ });
    expectError(await call('PATCH', `/v1/prompts/${id}`, { body: { messages: [{ role: 'user', content: '{{oops' }] } }), 400, 'invalid_template');
  });
});

describe('delete, 404s and listing', () => {
  it('deletes a prompt with its versions; everything about it is then 404', async () => {
    const { body: created } = await create();
    const id = created.id;
    await call('PATCH', `/v1/prompts/${id}`, { body: { model: 'x' } });
    const deleted = await call<{ object: string; id: string; deleted: boolean }>('DELETE', `/v1/prompts/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ object: 'prompt', id, deleted: true });
    expectError(await call('GET', `/v1/prompts/${id}`), 404, 'not_found');
    expectError(await call('GET', `/v1/prompts/${id}/versions`), 404, 'not_found');
    expectError(await call('GET', `/v1/prompts/${id}/versions/1`), 404, 'not_found');
    expectError(await call('PATCH', `/v1/prompts/${id}`, { body: { name: 'x' } }), 404, 'not_found');
    expectError(await call('DELETE', `/v1/prompts/${id}`), 404, 'not_found');
    expectError(await call('GET', `/v1/prompts/${'x'.repeat(200)}`), 404, 'not_found');
  });

  it('writes every mutation to the audit log', async () => {
    const { body: created } = await create();
    const id = created.id;
    await call('PATCH', `/v1/prompts/${id}`, { body: { model: 'gpt-4o' } });
    await call('POST', `/v1/prompts/${id}/versions/2/publish`);
    await call('PUT', `/v1/prompts/${id}/labels/prod`, { body: { version: 2 } });
    await call('DELETE', `/v1/prompts/${id}/labels/prod`);
    await call('DELETE', `/v1/prompts/${id}`);
    const audit = await call<Page<{ action: string; outcome: string; resource_type: string }>>('GET', `/v1/audit-logs?resource_id=${id}&outcome=success`);
    expect(audit.status).toBe(200);
    expect(audit.body.data.map((event) => event.action).sort()).toEqual(
      ['prompt.create', 'prompt.delete', 'prompt.label_remove', 'prompt.label_set', 'prompt.publish', 'prompt.update'].sort(),
    );
    expect(audit.body.data.every((event) => event.resource_type === 'prompt')).toBe(true);
  });

  it('pages through a workspace’s prompts newest first', async () => {
    const workspace = await newWorkspace(gateway);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const reply = await call('POST', `/v1/prompts?workspace_id=${workspace.id}`, { body: { ...template, name: `p${i}` } });
      expect(reply.status).toBe(201);
      ids.push(reply.body.id);
    }
    const { items, pages } = await allPages<PromptView>(gateway, `/v1/prompts?workspace_id=${workspace.id}`, {}, 2);
    expect(pages).toBe(3);
    expect(items.map((item) => item.id)).toEqual([...ids].reverse());
    expect(items[0].version).toBeUndefined();
    expectError(await call('GET', '/v1/prompts?limit=101'), 400, 'invalid_limit', { param: 'limit' });
    expectError(await call('GET', '/v1/prompts?cursor=%%%'), 400, 'invalid_cursor', { param: 'cursor' });
  });
});

describe('authentication, scopes and workspace isolation', () => {
  it('refuses a missing key with 401', async () => {
    expectError(await call('GET', '/v1/prompts', { key: null }), 401, 'api_key_missing');
    expectError(await call('POST', '/v1/prompts', { key: null, body: template }), 401, 'api_key_missing');
  });

  it('needs prompts:write to change, prompts:read to read, and accepts prompts:list for lists', async () => {
    const { body: created } = await create();
    expectError(await create(template, readOnly), 403, 'missing_scope', { message: /prompts:write/ });
    expectError(await call('PATCH', `/v1/prompts/${created.id}`, { key: readOnly, body: { name: 'x' } }), 403, 'missing_scope');
    expectError(await call('DELETE', `/v1/prompts/${created.id}`, { key: readOnly }), 403, 'missing_scope');
    expectError(await call('POST', `/v1/prompts/${created.id}/versions/1/publish`, { key: readOnly }), 403, 'missing_scope');
    expect((await call('GET', `/v1/prompts/${created.id}`, { key: readOnly })).status).toBe(200);
    expect((await call('GET', '/v1/prompts', { key: listOnly })).status).toBe(200);
    expectError(await call('GET', `/v1/prompts/${created.id}`, { key: listOnly }), 403, 'missing_scope', { message: /prompts:read/ });
    expectError(await call('GET', '/v1/prompts', { key: renderOnly }), 403, 'missing_scope');
  });

  it('hides another workspace’s prompts behind 404s', async () => {
    const { body: mine } = await create();
    const theirs = await create(template, otherWorkspaceWriter);
    expect(theirs.body.workspace_id).toBe(otherWorkspaceId);
    for (const [method, path, body] of [
      ['GET', `/v1/prompts/${mine.id}`, undefined],
      ['PATCH', `/v1/prompts/${mine.id}`, { name: 'stolen' }],
      ['DELETE', `/v1/prompts/${mine.id}`, undefined],
      ['GET', `/v1/prompts/${mine.id}/versions`, undefined],
      ['POST', `/v1/prompts/${mine.id}/versions/1/publish`, undefined],
      ['PUT', `/v1/prompts/${mine.id}/labels/x`, { version: 1 }],
    ] as const) {
      expectError(await call(method, path, { key: otherWorkspaceWriter, body }), 404, 'not_found');
    }
    const theirList = await call<Page<PromptView>>('GET', '/v1/prompts?limit=100', { key: otherWorkspaceWriter });
    expect(theirList.body.data.map((prompt) => prompt.id)).toEqual([theirs.body.id]);
    expectError(await call('GET', `/v1/prompts?workspace_id=${gateway.bootstrap.workspaceId}`, { key: otherWorkspaceWriter }), 404, 'not_found');
    expect((await call('GET', `/v1/prompts/${theirs.body.id}?workspace_id=${otherWorkspaceId}`)).status).toBe(200);
    expectError(await call('GET', `/v1/prompts?workspace_id=${otherWorkspaceId}`, { key: otherOrgAdmin }), 404, 'not_found');
    expect((await call('GET', `/v1/prompts/${mine.id}`)).body.name).toBe(template.name);
  });
});
