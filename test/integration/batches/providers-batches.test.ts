import { describe, expect, it } from 'vitest';
import { batchClient, type BatchTenant } from '../../support/batch-tenants.js';
import { PROVIDER_SLUGS } from '../../../shared/providers/registry.js';
import { usePricedGateway } from '../../support/priced-gateway.js';
import { batchProviderMock } from './mock-batch-provider.js';

const priced = usePricedGateway({ provider: 'openai', prices: {}, handler: batchProviderMock().handler });
const batches = batchClient(() => priced.gateway);
const { call } = batches;
const tenant = (name: string, budget?: number) => batches.tenant(name, { budget });

async function uploaded(who: BatchTenant, customIds: string[]): Promise<string> {
  const lines = customIds.map((id) => JSON.stringify({ custom_id: id, method: 'POST', url: '/v1/chat/completions', body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 10 } }));
  const answer = await batches.upload(who, lines);
  expect(answer.status, answer.text).toBe(200);
  return answer.body.id as string;
}

const CREATE = (fileId: string) => ({ input_file_id: fileId, endpoint: '/v1/chat/completions', completion_window: '24h' });

describe('batches on Azure OpenAI, through a virtual key, and the providers that have none', () => {
  it('Azure OpenAI: the resource-level batch API with api-version and api-key, endpoint and line urls without /v1', async () => {
    const who = await tenant('azure batches');
    const fileId = await uploaded(who, ['a', 'b']);
    const azure = { 'x-gw-provider': 'azure-openai', 'x-gw-custom-host': priced.upstream.url, 'x-gw-azure-api-version': '2025-04-01-preview', authorization: 'Bearer azure-key-0001' };
    const created = await call(who, 'POST', '/v1/batches', { json: CREATE(fileId), headers: azure });
    expect(created.status, created.text).toBe(200);
    const upload = priced.upstream.requests.find((request) => request.path === '/openai/files' && request.method === 'POST')!;
    expect(upload.query.get('api-version')).toBe('2025-04-01-preview');
    expect(upload.headers['api-key']).toBe('azure-key-0001');
    expect(upload.headers.authorization).toBeUndefined();
    expect(upload.body).toContain('"url":"/chat/completions"');
    const create = priced.upstream.requests.find((request) => request.path === '/openai/batches')!;
    expect(create.json).toMatchObject({ endpoint: '/chat/completions', completion_window: '24h' });
    // The client sees OpenAI's endpoint name and gw's ids, never the provider's.
    expect(created.body).toMatchObject({ endpoint: '/v1/chat/completions', provider: 'azure-openai', id: expect.stringMatching(/^batch-/) });
    const batchId = created.body.id as string;
    await call(who, 'GET', `/v1/batches/${batchId}`, { headers: azure });
    const done = await call(who, 'GET', `/v1/batches/${batchId}`, { headers: azure });
    expect(done.body).toMatchObject({ status: 'completed', request_counts: { total: 2, completed: 2 } });
    const content = await fetch(`${priced.gateway.url}/v1/files/${done.body.output_file_id as string}/content`, { headers: { 'x-gw-api-key': who.key } });
    expect((await content.text()).trim().split('\n')).toHaveLength(2);
  });

  it('a batch made with a virtual key is polled without any credential: gw uses the batch’s own key (and only to its stored host)', async () => {
    const who = await tenant('virtual key batches');
    const response = await fetch(`${priced.gateway.url}/v1/virtual-keys?workspace_id=${who.workspaceId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gw-api-key': priced.gateway.apiKey },
      body: JSON.stringify({ name: 'batch key', provider: 'openai', credential: 'sk-stored-batch-0001', custom_host: `${priced.upstream.url}/v1` }),
    });
    const key = (await response.json()) as { id: string };
    expect(response.status, JSON.stringify(key)).toBe(201);
    const fileId = await uploaded(who, ['a']);
    const created = await call(who, 'POST', '/v1/batches', { json: CREATE(fileId), headers: { 'x-gw-virtual-key': key.id } });
    expect(created.status, created.text).toBe(200);
    const batchId = created.body.id as string;
    await call(who, 'GET', `/v1/batches/${batchId}`);
    const done = await call(who, 'GET', `/v1/batches/${batchId}`);
    expect(done.body.status).toBe('completed');
    const polls = priced.upstream.requests.filter((request) => request.method === 'GET' && request.path.startsWith('/v1/batches/'));
    expect(polls.at(-1)!.headers.authorization).toBe('Bearer sk-stored-batch-0001');
    // A host the caller names is refused for the stored credential, as for chat.
    const elsewhere = await call(who, 'POST', '/v1/batches', { json: CREATE(fileId), headers: { 'x-gw-virtual-key': key.id, 'x-gw-custom-host': 'http://127.0.0.2:9/v1' } });
    expect(elsewhere.status).toBe(400);
  });

  it('a provider without a batch service gw drives: a clear 400 batches_unsupported_provider, nothing reserved or sent', async () => {
    const who = await tenant('refused batches', 100);
    const fileId = await uploaded(who, ['a']);
    const before = priced.upstream.requests.length;
    // Every provider of the registry but the four gw batches with, named alone with a key: the refusal names the
    // provider, whatever else that provider would need for chat (an account id, a region …).
    const others = PROVIDER_SLUGS.filter((slug) => !['openai', 'azure-openai', 'bedrock', 'vertex-ai'].includes(slug));
    expect(others.length).toBeGreaterThan(10);
    for (const slug of others) {
      const answer = await call(who, 'POST', '/v1/batches', { json: CREATE(fileId), headers: { 'x-gw-provider': slug, authorization: 'Bearer sk-example-key' } });
      expect(answer.status, `${slug}: ${answer.text}`).toBe(400);
      expect(answer.body.error, slug).toMatchObject({ code: 'batches_unsupported_provider', param: 'x-gw-provider', message: expect.stringContaining(`'${slug}'`) });
      expect((answer.body.error as { message: string }).message).toContain('openai, azure-openai, bedrock, vertex-ai');
    }
    // A config or deployment may route to several providers: a batch runs on one, so both are refused.
    for (const [header, value] of [['x-gw-config', JSON.stringify({ provider: 'openai', api_key: 'sk-example-key' })], ['x-gw-deployment', 'some-deployment']]) {
      const answer = await call(who, 'POST', '/v1/batches', { json: CREATE(fileId), headers: { [header]: value } });
      expect(answer.status, answer.text).toBe(400);
      expect(answer.body.error).toMatchObject({ code: 'batch_config_unsupported', param: header });
    }
    expect(priced.upstream.requests.length).toBe(before);
    expect(await batches.usageOf(who.workspaceId)).toBe(0);
  });
});
