import { toFile } from 'openai';
import { describe, expect, it } from 'vitest';
import { createClient } from '../../../sdk/js/src/index.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import type { MockUpstream } from '../../support/mock-upstream.js';
import { batchProviderMock } from './mock-batch-provider.js';

let gateway: TestGateway;
let upstream: MockUpstream;
useGatewayWithUpstream(batchProviderMock().handler, (started) => ({ gateway, upstream } = started));

describe('files and batches through the TypeScript SDK (the openai client gw’s SDK extends)', () => {
  it('files.create, batches.create, batches.retrieve, files.content and batches.list work unchanged', async () => {
    const client = createClient({ apiKey: gateway.apiKey, baseURL: `${gateway.url}/v1`, provider: 'openai', customHost: `${upstream.url}/v1`, providerApiKey: 'sk-provider-token', openai: { maxRetries: 0 } });
    const input = ['x', 'y'].map((id) => JSON.stringify({ custom_id: id, method: 'POST', url: '/v1/chat/completions', body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 5 } })).join('\n');
    const file = await client.files.create({ file: await toFile(Buffer.from(input), 'input.jsonl'), purpose: 'batch' });
    expect(file).toMatchObject({ object: 'file', purpose: 'batch', filename: 'input.jsonl' });
    const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    expect(batch.status).toBe('validating');
    await client.batches.retrieve(batch.id);
    const done = await client.batches.retrieve(batch.id);
    expect(done.status).toBe('completed');
    const content = await (await client.files.content(done.output_file_id!)).text();
    expect(content.trim().split('\n').map((line) => (JSON.parse(line) as { custom_id: string }).custom_id)).toEqual(['x', 'y']);
    const page = await client.batches.list();
    expect(page.data.map((item) => item.id)).toContain(batch.id);
    await expect(client.files.retrieve('file-0000000000000000000000000')).rejects.toMatchObject({ status: 404 });
  });
});
