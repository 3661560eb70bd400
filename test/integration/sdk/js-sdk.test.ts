import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createClient, createHeaders, GwApiError, GwValidationError, PARAMETER_HEADERS, SDK_OPERATIONS, type GwClient } from '../../../sdk/js/src/index.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import { chatStream, openAIMockHandler } from '../../support/mock-openai.js';
import type { MockUpstream } from '../../support/mock-upstream.js';

let gateway: TestGateway;
let upstream: MockUpstream;
let client: GwClient;
useGatewayWithUpstream(openAIMockHandler(), (started) => ({ gateway, upstream } = started));
beforeAll(() => {
  client = createClient({
    apiKey: gateway.apiKey,
    baseURL: `${gateway.url}/v1`,
    provider: 'openai',
    customHost: upstream.url,
    providerApiKey: 'sk-provider-token',
    openai: { maxRetries: 0 },
  });
});

describe('createHeaders', () => {
  it('maps every documented parameter to its header', () => {
    const headers = createHeaders({
      apiKey: 'gwk_x',
      provider: 'openai',
      virtualKey: 'vk-1',
      config: { strategy: { mode: 'fallback' }, targets: [{ provider: 'openai' }, { provider: 'anthropic' }] },
      customHost: 'http://127.0.0.1:8000/v1',
      traceID: 'trace-1',
      metadata: { _user: 'alice' },
      cacheForceRefresh: true,
      cacheNamespace: 'ns',
      requestTimeout: 5000,
      forwardHeaders: ['X-Tenant-Id', 'x-request-source'],
      deployment: 'prod-chat',
      azureResourceName: 'res',
      cloudbRegion: 'us-central1',
      awsRegion: 'eu-west-1',
    });
    expect(headers).toEqual({
      'x-gw-api-key': 'gwk_x',
      'x-gw-provider': 'openai',
      'x-gw-virtual-key': 'vk-1',
      'x-gw-config': '{"strategy":{"mode":"fallback"},"targets":[{"provider":"openai"},{"provider":"anthropic"}]}',
      'x-gw-custom-host': 'http://127.0.0.1:8000/v1',
      'x-gw-trace-id': 'trace-1',
      'x-gw-metadata': '{"_user":"alice"}',
      'x-gw-cache-force-refresh': 'true',
      'x-gw-cache-namespace': 'ns',
      'x-gw-request-timeout': '5000',
      // Names inside the forward list keep their HTTP form.
      'x-gw-forward-headers': 'X-Tenant-Id,x-request-source',
      'x-gw-deployment': 'prod-chat',
      'x-gw-azure-resource-name': 'res',
      'x-gw-cloudb-region': 'us-central1',
      'x-gw-aws-region': 'eu-west-1',
    });
  });

  it('turns any other camelCase key into a header of its own', () => {
    expect(createHeaders({ xMyHeader: 'a', xTenantID: 'b' })).toEqual({ 'x-my-header': 'a', 'x-tenant-id': 'b' });
  });

  it('refuses the Python (snake_case) spelling of a parameter, naming the TypeScript one', () => {
    const cases: Array<[string, string]> = [['api_key', 'apiKey'], ['virtual_key', 'virtualKey'], ['trace_id', 'traceId'], ['cloudc_region', 'cloudcRegion'], ['provider_api_key', 'providerApiKey'], ['base_url', 'baseURL']];
    for (const [snake, camel] of cases) {
      let refused: unknown;
      try {
        createHeaders({ [snake]: 'x' });
      } catch (error) {
        refused = error;
      }
      expect(refused).toBeInstanceOf(GwValidationError);
      expect(refused).toMatchObject({ param: camel, code: 'invalid_parameter_name' });
      expect((refused as Error).message).toContain(`\`${camel}\``);
    }
    expect(() => createClient({ apiKey: 'gwk_x', provider_api_key: 'sk-x' })).toThrow(GwValidationError);
    // A custom header in HTTP or snake form that is no parameter's spelling stays a header.
    expect(createHeaders({ x_tenant: 'a' })).toEqual({ x_tenant: 'a' });
  });

  it('documents a header for every parameter, all lower-case', () => {
    for (const header of Object.values(PARAMETER_HEADERS)) expect(header).toBe(header.toLowerCase());
  });

  it('fails a bad config in the client with the message the gateway answers', async () => {
    const bad = { strategy: { mode: 'fallbak' }, targets: [{ provider: 'openai' }] };
    let clientError: GwValidationError | undefined;
    try {
      createHeaders({ config: bad });
    } catch (error) {
      clientError = error as GwValidationError;
    }
    expect(clientError).toBeInstanceOf(GwValidationError);
    expect(clientError!.code).toBe('AB0103');
    const response = await gateway.post('/v1/chat/completions', { model: 'm', messages: [{ role: 'user', content: 'x' }] }, { 'x-gw-config': JSON.stringify(bad) });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { message: string; code: string } };
    expect(body.error.code).toBe('AB0103');
    expect(clientError!.message).toBe(body.error.message);
  });

  it('refuses bad values of the other parameters the way the gateway does', () => {
    expect(() => createHeaders({ requestTimeout: 0 })).toThrow(/x-gw-request-timeout/);
    expect(() => createHeaders({ traceId: 'has spaces' })).toThrow(/x-gw-trace-id/);
    expect(() => createHeaders({ forwardHeaders: ['authorization'] })).toThrow(/cannot be forwarded/);
    expect(() => createHeaders({ metadata: { n: 1 } as unknown as Record<string, string> })).toThrow(/values must be strings/);
  });
});

describe('createClient', () => {
  it('runs chat completions through gw with the headers set', async () => {
    upstream.setHandler(openAIMockHandler());
    const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] });
    expect(completion.choices[0].message.content).toBe('Hello from the mock provider!');
    expect(upstream.requests.at(-1)!.headers.authorization).toBe('Bearer sk-provider-token');
  });

  it('streams unchanged', async () => {
    upstream.setHandler(() => ({ chunks: chatStream('gpt-4o-mini', 'one two three') }));
    const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }], stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('one two three');
  });

  it('takes per-request values with withOptions, leaving the original client as it was', async () => {
    upstream.setHandler(openAIMockHandler());
    const traced = client.withOptions({ traceId: 'sdk-trace-42', metadata: { _user: 'bob' } });
    const { response } = await traced.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] }).withResponse();
    expect(response.headers.get('x-gw-trace-id')).toBe('sdk-trace-42');
    // gw fills the body's `user` from metadata._user: the provider sees it.
    expect(JSON.parse(upstream.requests.at(-1)!.body).user).toBe('bob');
    const { response: plain } = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] }).withResponse();
    expect(plain.headers.get('x-gw-trace-id')).not.toBe('sdk-trace-42');
  });

  it('sends no Authorization at all when no provider key is given', async () => {
    upstream.setHandler(openAIMockHandler());
    const keyless = createClient({ apiKey: gateway.apiKey, baseURL: `${gateway.url}/v1`, provider: 'openai', customHost: upstream.url, openai: { maxRetries: 0 } });
    await keyless.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] });
    expect(upstream.requests.at(-1)!.headers.authorization).toBeUndefined();
  });

  it('surfaces gw errors through the openai error classes', async () => {
    const wrongKey = createClient({ apiKey: 'gwk_nope', baseURL: `${gateway.url}/v1`, provider: 'openai', providerApiKey: 'x', openai: { maxRetries: 0 } });
    await expect(wrongKey.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'Hi' }] })).rejects.toMatchObject({ status: 401 });
  });
});

describe('control-plane helpers', () => {
  it('create, read and update saved configs and virtual keys; never echo a credential', async () => {
    const config = await client.configs.create({ name: 'sdk-config', config: { strategy: { mode: 'single' }, targets: [{ provider: 'openai' }] } });
    expect(config.id).toEqual(expect.any(String));
    const read = await client.configs.get(config.id as string);
    expect(read.name).toBe('sdk-config');
    const list = await client.configs.list();
    expect(list.data.some((item) => item.id === config.id)).toBe(true);
    const virtualKey = await client.virtualKeys.create({ name: 'sdk-vk', provider: 'openai', credential: 'sk-sdk-sentinel-credential' });
    expect(JSON.stringify(virtualKey)).not.toContain('sk-sdk-sentinel-credential');
    const fetched = await client.virtualKeys.get(virtualKey.id as string);
    expect(JSON.stringify(fetched)).not.toContain('sk-sdk-sentinel-credential');
  });

  it('creates a rate-limit policy and lists API keys and workspaces', async () => {
    const policy = await client.policies.rateLimits.create({
      name: 'sdk-policy',
      conditions: [{ key: 'metadata._user', value: 'sdk-user' }],
      group_by: [{ key: 'api_key' }],
      type: 'requests',
      unit: 'rpm',
      value: 100,
    });
    expect(policy.object).toBe('policy_usage_limits');
    expect((await client.apiKeys.list()).object).toBe('list');
    expect((await client.workspaces.list()).data.length).toBeGreaterThan(0);
  });

  it('throws GwApiError with gw status and code', async () => {
    const error = await client.configs.get('cfg-does-not-exist').catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(GwApiError);
    expect((error as GwApiError).status).toBe(404);
    expect((error as GwApiError).code).toEqual(expect.any(String));
    const invalid = await client.policies.rateLimits.create({ type: 'requests' }).catch((thrown: unknown) => thrown);
    expect((invalid as GwApiError).status).toBe(400);
  });

  it('calls only routes that docs/openapi.yaml documents', () => {
    const document = parse(readFileSync('docs/openapi.yaml', 'utf8')) as { paths: Record<string, Record<string, unknown>> };
    const missing = SDK_OPERATIONS.filter((operation) => {
      const [method, path] = operation.split(' ');
      return document.paths[path]?.[method.toLowerCase()] === undefined;
    });
    expect(missing).toEqual([]);
  });
});
