import { readFileSync } from 'node:fs';
import { logOfTrace } from './observability/observability-support.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { faultInjectingHandler } from '../support/fault-mock.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.js';
import { readSseEvents } from '../support/sse-client.js';

let gateway: TestGateway;
let upstream: MockUpstream;
let faults: ReturnType<typeof faultInjectingHandler>;

beforeAll(async () => {
  faults = faultInjectingHandler();
  upstream = await startMockUpstream(faults);
  gateway = await startTestGateway();
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

const messages = [{ role: 'user', content: 'Hi' }];
const target = (model: string, extra: Record<string, unknown> = {}) => ({ provider: 'openai', api_key: 'sk-t', custom_host: upstream.url, override_params: { model }, ...extra });

async function send(config: unknown, body: Record<string, unknown> = { messages }, headers: Record<string, string> = {}) {
  return gateway.post('/v1/chat/completions', body, { 'x-gw-config': JSON.stringify(config), ...headers });
}
const modelsSince = (start: number) => upstream.requests.slice(start).map((request) => (request.json as { model: string }).model);

describe('fallback', () => {
  it('tries targets in order and answers from the first that succeeds', async () => {
    const start = upstream.requests.length;
    const response = await send({ strategy: { mode: 'fallback' }, targets: [target('status-503'), target('status-500'), target('ok-1')] });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-gw-last-used-option-index')).toBe('config.targets[2]');
    expect(response.headers.get('x-gw-provider')).toBe('openai');
    expect(modelsSince(start)).toEqual(['status-503', 'status-500', 'ok-1']);
  });

  it('falls back only for on_status_codes when they are given', async () => {
    const start = upstream.requests.length;
    const response = await send({ strategy: { mode: 'fallback', on_status_codes: [429] }, targets: [target('status-503'), target('ok-2')] });
    expect(response.status).toBe(503);
    const body = (await response.json()) as { error: { code: string; provider_error: unknown } };
    expect(body.error.code).toBe('injected_503');
    expect(modelsSince(start)).toEqual(['status-503']);
  });

  it('falls back on a provider 4xx by default', async () => {
    const response = await send({ strategy: { mode: 'fallback' }, targets: [target('status-400'), target('ok-3')] });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-gw-last-used-option-index')).toBe('config.targets[1]');
  });

  it('never falls back on an error gw raises about the request itself', async () => {
    const start = upstream.requests.length;
    const azureWithoutDeployment = { provider: 'azure-openai', api_key: 'k', custom_host: upstream.url, override_params: { model: 'x' } };
    const response = await send({ strategy: { mode: 'fallback' }, targets: [azureWithoutDeployment, target('ok-4')] });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('missing_azure_deployment');
    expect(modelsSince(start)).toEqual([]);
  });

  it('times out a hanging target with 408 and moves on', async () => {
    const start = upstream.requests.length;
    const response = await send({ strategy: { mode: 'fallback' }, targets: [target('hang', { request_timeout: 100 }), target('ok-5')] });
    expect(response.status).toBe(200);
    expect(modelsSince(start)).toEqual(['hang', 'ok-5']);
  });

  it('moves on after a connection reset', async () => {
    const response = await send({ strategy: { mode: 'fallback' }, targets: [target('reset'), target('ok-6')] });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-gw-last-used-option-index')).toBe('config.targets[1]');
  });

  it('streams: an error before the first content falls back; the client sees only the good stream', async () => {
    const response = await send({ strategy: { mode: 'fallback' }, targets: [target('stream-error-first'), target('ok-7')] }, { messages, stream: true });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-gw-last-used-option-index')).toBe('config.targets[1]');
    const events = await readSseEvents(response);
    expect(events.at(-1)!.data).toBe('[DONE]');
    expect(events.some((event) => event.event === 'error')).toBe(false);
  });

  it('streams: a failure after content ends the stream with an error event and does not fall back', async () => {
    const start = upstream.requests.length;
    const response = await send({ strategy: { mode: 'fallback' }, targets: [target('stream-mid-fail'), target('ok-8')] }, { messages, stream: true });
    const events = await readSseEvents(response);
    expect(events.at(-1)!.event).toBe('error');
    expect(modelsSince(start)).toEqual(['stream-mid-fail']);
  });

  it('answers with the last failure when every target failed', async () => {
    const response = await send({ strategy: { mode: 'fallback' }, targets: [target('status-500'), target('status-502')] });
    expect(response.status).toBe(502);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('injected_502');
  });
});

describe('retries', () => {
  it('retries a flaky target and reports the retry count', async () => {
    const response = await send(target('flaky-2', { retry: { attempts: 3 } }));
    expect(response.status).toBe(200);
    expect(response.headers.get('x-gw-retry-attempt-count')).toBe('2');
    expect(faults.calls('flaky-2')).toBe(3);
  });

  it('gives up after the attempts and answers the last error with the count', async () => {
    const response = await send(target('status-503', { retry: { attempts: 2 } }), { messages, model: 'ignored' });
    expect(response.status).toBe(503);
    expect(response.headers.get('x-gw-retry-attempt-count')).toBe('2');
  });

  it('does not retry a status outside the default codes', async () => {
    const before = faults.calls('status-404');
    const response = await send(target('status-404', { retry: { attempts: 3 } }));
    expect(response.status).toBe(404);
    expect(faults.calls('status-404') - before).toBe(1);
  });
});

describe('load balancing', () => {
  it('spreads requests by weight and never picks a zero-weight target', async () => {
    const config = { strategy: { mode: 'loadbalance' }, targets: [target('lb-a'), target('lb-b'), target('lb-never', { weight: 0 })] };
    for (let i = 0; i < 40; i++) expect((await send(config)).status).toBe(200);
    expect(faults.calls('lb-a')).toBeGreaterThan(0);
    expect(faults.calls('lb-b')).toBeGreaterThan(0);
    expect(faults.calls('lb-a') + faults.calls('lb-b')).toBe(40);
    expect(faults.calls('lb-never')).toBe(0);
  });

  it('a failing choice falls through when the balancer is nested in a fallback', async () => {
    const config = {
      strategy: { mode: 'fallback' },
      targets: [{ strategy: { mode: 'loadbalance' }, targets: [target('status-500'), target('status-503')] }, target('ok-nested')],
    };
    const response = await send(config);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-gw-last-used-option-index')).toBe('config.targets[1]');
  });
});

describe('conditional routing and override params', () => {
  it('needs no model in the body when override_params supplies it', async () => {
    const response = await send(target('from-config'), { messages });
    expect(response.status).toBe(200);
    expect((upstream.requests.at(-1)!.json as { model: string }).model).toBe('from-config');
  });

  it('400 AB0112 when no condition matches and there is no default', async () => {
    const config = {
      strategy: { mode: 'conditional', conditions: [{ query: { 'metadata._user': 'alice' }, then: 'a' }] },
      targets: [{ ...target('x'), name: 'a' }],
    };
    const response = await send(config, { messages }, { 'x-gw-metadata': '{"_user":"bob"}' });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; param: string } };
    expect(body.error).toMatchObject({ code: 'AB0112', param: 'config.strategy' });
  });

  it('400 with the AB01 code, the JSON path and the allowed values for an invalid inline config', async () => {
    const response = await send({ strategy: { mode: 'round-robin' }, targets: [target('x')] });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; param: string; message: string } };
    expect(body.error.code).toBe('AB0103');
    expect(body.error.param).toBe('config.strategy.mode');
    expect(body.error.message).toContain('"fallback"');
  });

  it('400 AB0101 for a config that is not JSON', async () => {
    const response = await gateway.post('/v1/chat/completions', { messages }, { 'x-gw-config': '{not json' });
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('AB0101');
  });
});

describe('the request headers and the trace', () => {
  it('a config wins over x-gw-provider + Authorization; a config without provider inherits them', async () => {
    await gateway.post('/v1/chat/completions', { messages }, {
      'x-gw-config': JSON.stringify({ provider: 'azure-openai', api_key: 'azure-key', azure_resource_name: 'r', azure_deployment_id: 'd', custom_host: upstream.url, override_params: { model: 'cfg' } }),
      'x-gw-provider': 'openai',
      authorization: 'Bearer header-key',
    });
    expect(upstream.requests.at(-1)!.path).toBe('/openai/deployments/d/chat/completions');
    expect(upstream.requests.at(-1)!.headers['api-key']).toBe('azure-key');
    await gateway.post('/v1/chat/completions', { messages, model: 'inherits' }, {
      'x-gw-config': JSON.stringify({ retry: { attempts: 1 } }),
      'x-gw-provider': 'openai',
      'x-gw-custom-host': upstream.url,
      authorization: 'Bearer header-key',
    });
    expect(upstream.requests.at(-1)!.headers.authorization).toBe('Bearer header-key');
  });

  it('x-gw-custom-host wins over the config custom_host', async () => {
    const start = upstream.requests.length;
    const response = await send({ ...target('header-host'), custom_host: 'http://127.0.0.1:9' }, { messages }, { 'x-gw-custom-host': upstream.url });
    expect(response.status).toBe(200);
    expect(modelsSince(start)).toEqual(['header-host']);
  });

  it('x-gw-request-timeout wins over the config request_timeout', async () => {
    const response = await send(target('slow-300', { request_timeout: 60_000 }), { messages }, { 'x-gw-request-timeout': '100' });
    expect(response.status).toBe(408);
  });

  it('records every attempt in the request log so a fallback can be explained', async () => {
    const traceId = `trace-${Date.now()}`;
    await send({ strategy: { mode: 'fallback' }, targets: [target('status-503'), target('ok-traced')] }, { messages }, { 'x-gw-trace-id': traceId });
    const record = await logOfTrace(gateway, traceId);
    expect(record.attempts).toEqual([
      expect.objectContaining({ target_path: 'config.targets[0]', provider: 'openai', status: 503, error_code: 'injected_503', retry: 0 }),
      expect.objectContaining({ target_path: 'config.targets[1]', provider: 'openai', status: 200, retry: 0 }),
    ]);
  });
});

describe('README config examples, executed', () => {
  const example = (name: string) => JSON.parse(readFileSync(`docs/examples/configs/${name}.json`, 'utf8')) as Record<string, unknown>;

  it('fallback across providers: OpenAI fails, Azure OpenAI answers', async () => {
    upstream.setHandler((request) => (request.path === '/chat/completions' ? { status: 500, json: { error: { message: 'down' } } } : faults(request)));
    try {
      const response = await gateway.post('/v1/chat/completions', { messages }, { 'x-gw-config': JSON.stringify(example('fallback-across-providers')), 'x-gw-custom-host': upstream.url });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-gw-provider')).toBe('azure-openai');
      expect(upstream.requests.at(-1)!.path).toBe('/openai/deployments/gpt-4o-prod/chat/completions');
    } finally {
      upstream.setHandler(faults);
    }
  });

  it('weighted load balance: both models serve, the heavier one more often over many requests', async () => {
    const start = upstream.requests.length;
    for (let i = 0; i < 60; i++) {
      await gateway.post('/v1/chat/completions', { messages }, { 'x-gw-config': JSON.stringify(example('weighted-load-balance')), 'x-gw-custom-host': upstream.url });
    }
    const models = modelsSince(start);
    const mini = models.filter((model) => model === 'gpt-4o-mini').length;
    expect(mini + models.filter((model) => model === 'gpt-4o').length).toBe(60);
    expect(mini).toBeGreaterThan(30);
  });

  it('conditional by _user metadata', async () => {
    const config = JSON.stringify(example('conditional-by-user'));
    const modelFor = async (metadata: Record<string, string>, body: Record<string, unknown> = {}) => {
      await gateway.post('/v1/chat/completions', { messages, ...body }, { 'x-gw-config': config, 'x-gw-custom-host': upstream.url, 'x-gw-metadata': JSON.stringify(metadata) });
      return upstream.requests.at(-1)!.json as { model: string; max_tokens?: number };
    };
    expect((await modelFor({ _user: 'alice' })).model).toBe('gpt-4o');
    expect((await modelFor({ _user: 'carol' })).model).toBe('gpt-4o-mini');
    expect(await modelFor({ _user: 'dave', tier: 'trial' }, { max_tokens: 4000 })).toMatchObject({ model: 'gpt-4o-mini', max_tokens: 1000 });
  });
});
