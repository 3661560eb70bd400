import { describe, expect, it } from 'vitest';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import type { MockUpstream } from '../../support/mock-upstream.js';
import { readSseEvents } from '../../support/sse-client.js';

let gateway: TestGateway;
let upstream: MockUpstream;
useGatewayWithUpstream(openAIMockHandler(), (started) => ({ gateway, upstream } = started));

const chat = { messages: [{ role: 'user', content: 'Hi' }], model: 'gpt-4o' };
const azureHeaders = (extra: Record<string, string> = {}) => ({
  'x-gw-provider': 'azure-openai',
  'x-gw-custom-host': upstream.url,
  'x-gw-azure-resource-name': 'contoso',
  'x-gw-azure-deployment-id': 'gpt-4o-prod',
  'x-gw-azure-api-version': '2024-10-21',
  authorization: 'Bearer azure-key-123',
  ...extra,
});

describe('Azure OpenAI', () => {
  it('calls the deployment URL with api-version and the key converted to api-key', async () => {
    const response = await gateway.post('/v1/chat/completions', chat, azureHeaders());
    expect(response.status).toBe(200);
    expect(response.headers.get('x-gw-provider')).toBe('azure-openai');
    const seen = upstream.requests.at(-1)!;
    expect(seen.path).toBe('/openai/deployments/gpt-4o-prod/chat/completions');
    expect(seen.query.get('api-version')).toBe('2024-10-21');
    expect(seen.headers['api-key']).toBe('azure-key-123');
    expect(seen.headers.authorization).toBeUndefined();
  });

  it('accepts the spec clouda slug and x-gw-clouda-* headers', async () => {
    const response = await gateway.post('/v1/embeddings', { input: 'hello', model: 'text-embedding-3-small' }, {
      'x-gw-provider': 'clouda',
      'x-gw-custom-host': upstream.url,
      'x-gw-clouda-resource-name': 'contoso',
      'x-gw-clouda-deployment-id': 'embed',
      'x-gw-clouda-api-version': '2024-10-21',
      authorization: 'Bearer k',
    });
    expect(response.status).toBe(200);
    expect(upstream.requests.at(-1)!.path).toBe('/openai/deployments/embed/embeddings');
  });

  it('streams, asking for usage on API versions that support it', async () => {
    const response = await gateway.post('/v1/chat/completions', { ...chat, stream: true }, azureHeaders());
    const events = await readSseEvents(response);
    expect(events.at(-1)!.data).toBe('[DONE]');
    expect((upstream.requests.at(-1)!.json as { stream_options?: unknown }).stream_options).toEqual({ include_usage: true });
    await readSseEvents(await gateway.post('/v1/chat/completions', { ...chat, stream: true }, azureHeaders({ 'x-gw-azure-api-version': '2024-02-01' })));
    expect((upstream.requests.at(-1)!.json as { stream_options?: unknown }).stream_options).toBeUndefined();
  });

  it.each([
    ['x-gw-azure-deployment-id', 'missing_azure_deployment'],
    ['x-gw-azure-resource-name', 'missing_azure_resource'],
  ])('400 without %s', async (header, code) => {
    const headers: Record<string, string> = azureHeaders();
    delete headers[header];
    if (header === 'x-gw-azure-resource-name') delete headers['x-gw-custom-host'];
    const response = await gateway.post('/v1/chat/completions', chat, headers);
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; param: string } };
    expect(body.error).toMatchObject({ code, param: header });
  });

  it('400 for a malformed api-version', async () => {
    const response = await gateway.post('/v1/chat/completions', chat, azureHeaders({ 'x-gw-azure-api-version': 'latest&x=1' }));
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('invalid_azure_api_version');
  });
});
